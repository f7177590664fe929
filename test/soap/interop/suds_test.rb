# frozen_string_literal: true

require_relative "interop_support"

# Python's suds (Debian's python3-suds) reads the WSDL and calls the service:
# document/literal, rpc/encoded and rpc/literal (suds_client.py).
class SudsInteropTest < Minitest::Test
  include ForeignClientTest
  include PeerServer

  PYTHON = "/usr/bin/python3"

  def setup
    require_peer(File.executable?(PYTHON) && system(PYTHON, "-c", "import suds", err: File::NULL), "suds (python3-suds)")
  end

  def test_suds_calls_every_style
    check_foreign_client([PYTHON, File.join(__dir__, "suds_client.py")], paths: %w[/document /encoded /rpc])
  end

  # A header, a nil (suds leaves the element out), non-ASCII text and one
  # object passed twice (suds writes two copies).
  def test_suds_header_nil_text_and_shared_value
    require_operation_keywords # the service's whoAmI reads its header through context:
    check_more([PYTHON, File.join(__dir__, "suds_client.py")], paths: %w[/document /encoded /rpc])
  end
end

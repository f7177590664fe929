# frozen_string_literal: true

require_relative "interop_support"

# Python's suds (Debian's python3-suds) reads the WSDL and calls the service:
# document/literal and rpc/encoded (suds_client.py).
class SudsInteropTest < Minitest::Test
  include ForeignClientTest
  include PeerServer

  PYTHON = "/usr/bin/python3"

  def test_suds_calls_document_and_rpc_encoded
    require_peer(File.executable?(PYTHON) && system(PYTHON, "-c", "import suds", err: File::NULL), "suds (python3-suds)")
    check_foreign_client([PYTHON, File.join(__dir__, "suds_client.py")])
  end
end

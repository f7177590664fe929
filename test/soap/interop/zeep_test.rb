# frozen_string_literal: true

require_relative "interop_support"

# Python's zeep (Debian's python3-zeep, for /usr/bin/python3) reads the WSDL and
# calls the service: document/literal and rpc/encoded (zeep_client.py).
class ZeepInteropTest < Minitest::Test
  include ForeignClientTest

  PYTHON = "/usr/bin/python3"

  def test_zeep_calls_document_and_rpc_encoded
    unless File.executable?(PYTHON) && system(PYTHON, "-c", "import zeep", err: File::NULL)
      skip "zeep is not installed for #{PYTHON} (apt-get install python3-zeep; .ci/run does)"
    end

    check_foreign_client([PYTHON, File.join(__dir__, "zeep_client.py")])
  end
end

# frozen_string_literal: true

require_relative "interop_support"

# Node's `soap` package (npm, installed by .ci/run into tmp/node) reads the WSDL
# and calls the service: document/literal and rpc/encoded (node_client.js).
class NodeSoapInteropTest < Minitest::Test
  include ForeignClientTest

  MODULE = File.join(ForeignClientTest::ROOT, "tmp/node/node_modules/soap")

  def test_node_soap_calls_document_and_rpc_encoded
    skip "node is not installed (.ci/run needs it for this test)" unless system("node", "--version", out: File::NULL, err: File::NULL)
    skip "Node's soap package is not in tmp/node (.ci/run installs it: npm install --prefix tmp/node soap@1)" unless File.exist?(File.join(MODULE,
                                                                                                                                           "package.json"))

    check_foreign_client(["node", File.join(__dir__, "node_client.js"), MODULE])
  end
end

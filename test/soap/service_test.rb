# frozen_string_literal: true

require_relative "soap_test_support"
require "rack/mock"
require "rack/lint"
require "minitest/mock"
require "rexml/document"

# Wirebind::SOAP::Service as a Rack app, through Rack::Lint, with requests written
# and responses read by the envelope layer the client uses.
class ServiceTest < Minitest::Test
  include SOAPTestModels
  RemoteIssue = SOAPTestModels::RemoteIssue
  ErrorDetail = SOAPTestModels::ErrorDetail
  BEANS = SOAPTestModels::BEANS

  NS = "http://soap.rpc.jira.atlassian.com"

  class Probe
    @ensured = 0
    class << self
      attr_accessor :ensured
    end
  end

  class JiraService < Wirebind::SOAP::Service
    namespace NS
    style :rpc_encoded
    multi_ref true

    operation :login, args: { in0: :string, in1: :string }, returns: :string do |user, password|
      raise Wirebind::SOAP::Fault.new(code: "Client", reason: "bad password", detail: ErrorDetail.new(errno: "E42")) unless password == "secret"

      "token-#{user}"
    end

    operation :getIssues, args: { in0: :string, in1: :integer }, returns: [RemoteIssue] do |_token, count|
      (0...count).map { |n| SOAPTestModels.issue(n) }
    end

    operation :streamIssues, args: { in0: :integer }, returns: [RemoteIssue] do |count|
      Enumerator.new do |y|
        count.times { |n| y << SOAPTestModels.issue(n) }
      ensure
        Probe.ensured += 1
      end
    end

    operation :addLabels, args: { in0: RemoteIssue, in1: [:string] }, returns: RemoteIssue do |issue, labels|
      issue.labels += labels
      issue
    end

    operation :failLate, args: { in0: :integer }, returns: [RemoteIssue] do |count|
      Enumerator.new do |y|
        count.times { |n| y << SOAPTestModels.issue(n) }
        raise Wirebind::SOAP::Fault.new(code: "Server", reason: "late")
      end
    end

    operation :failEarly, returns: [RemoteIssue] do
      Enumerator.new { |_y| raise Wirebind::SOAP::Fault.new(code: "Server", reason: "nothing to stream", detail: "<e:why xmlns:e=\"urn:e\">empty</e:why>") }
    end

    operation :crash, returns: :string do
      raise IOError, "secret path /etc/jira/db.properties"
    end

    operation :nothing do
      nil
    end
  end

  class DocumentService < Wirebind::SOAP::Service
    namespace "urn:docs"
    version :both

    operation :getIssues, args: { keys: [:string], limit: :integer }, returns: [RemoteIssue] do |keys, limit|
      keys.first(limit).each_with_index.map { |key, n| SOAPTestModels.issue(n).tap { |issue| issue.key = key } }
    end

    operation :echo, args: { issue: RemoteIssue }, returns: RemoteIssue do |issue|
      issue
    end
  end

  def app(service = JiraService)
    Rack::Lint.new(service.new)
  end

  def post(body, service: JiraService, content_type: "text/xml; charset=utf-8", **env)
    errors = StringIO.new
    response = Rack::MockRequest.new(app(service)).post("/soap", input: body, "CONTENT_TYPE" => content_type,
                                                                 "rack.errors" => errors, **env)
    [response, errors.string]
  end

  def request(operation, parts, style: :rpc_encoded, version: "1.1", namespace: NS)
    Wirebind::SOAP::Envelope.write(+"", operation: operation, namespace: namespace, parts: parts, style: style, version: version)
  end

  def reader(response)
    Wirebind::SOAP::Envelope::Reader.new(response.body, http_status: response.status)
  end

  def test_rpc_encoded_scalar_result
    response, = post(request("login", { in0: "ann", in1: "secret" }))

    assert_equal 200, response.status
    assert_equal "text/xml; charset=utf-8", response.content_type
    assert_equal response.body.bytesize, Integer(response["content-length"])
    assert_equal ["loginResponse", NS], reader(response).operation
    assert_equal "token-ann", reader(response).decode(:string)
  end

  class Rpc12Service < Wirebind::SOAP::Service
    namespace NS
    style :rpc_encoded
    version "1.2"
    operation(:login, args: { in0: :string, in1: :string }, returns: :string) { |user, _| "token-#{user}" }
    operation(:getIssues, args: { in0: :string, in1: :integer }, returns: [RemoteIssue]) { |_, n| (0...n).map { |i| SOAPTestModels.issue(i) } }
  end

  # SOAP 1.2 Part 2 §4.2.2: rpc:result names the return element, first; the
  # encodingStyle is SOAP 1.2's encoding.
  def test_soap12_rpc_response_names_its_result_with_rpc_result
    request = request("login", { in0: "ann", in1: "secret" }, version: "1.2")
    assert_includes request, %(encodingStyle="#{Wirebind::SOAP::ENCODING_NS_12}")
    response, = post(request, service: Rpc12Service, content_type: "application/soap+xml; charset=utf-8")

    assert_equal 200, response.status
    assert_match %r{<ns1:loginResponse[^>]*><rpc:result xmlns:rpc="#{Wirebind::SOAP::RPC_NS}">loginReturn</rpc:result><loginReturn }, response.body
    assert_equal ["loginReturn", nil], reader(response).result
    assert_equal "token-ann", reader(response).decode(:string)
    list, = post(request("getIssues", { in0: "t", in1: 2 }, version: "1.2"), service: Rpc12Service, content_type: "application/soap+xml")
    assert_equal [SOAPTestModels.issue(0), SOAPTestModels.issue(1)], reader(list).decode([RemoteIssue])
  end

  # PHP SoapClient and SOAP::Lite repeat a value by id and href in every
  # style: a document/literal request resolves them too (not a record of nils).
  def test_document_literal_requests_resolve_href_and_id
    xml = request("echo", { issue: SOAPTestModels.issue(1) }, style: :document, namespace: "urn:docs")
    version = %r{<RemoteVersion>.*?</RemoteVersion>}.match(xml)[0]
    first = version.sub("<RemoteVersion>", '<RemoteVersion id="ref1">')
    php = xml.sub(%r{<affectsVersions>.*</affectsVersions>}, "<affectsVersions>#{first}<RemoteVersion href=\"#ref1\"/></affectsVersions>")
    response, = post(php, service: DocumentService)
    assert_equal 200, response.status
    echoed = reader(response).decode(RemoteIssue)
    assert_equal %w[1.1 1.1], echoed.affects_versions.map(&:name)
    assert_equal SOAPTestModels.issue(1), echoed
    # A dangling href is a Client fault naming it, not nils.
    dangling, = post(php.sub('href="#ref1"', 'href="#ref9"'), service: DocumentService)
    assert_equal 500, dangling.status
    fault = assert_raises(Wirebind::SOAP::Fault) { reader(dangling).decode(RemoteIssue) }
    assert_match(/ref9/, fault.reason)
  end

  class Shared12Service < Rpc12Service
    multi_ref true
    operation(:getTwice, args: { in0: :string }, returns: [RemoteIssue]) do |key|
      issue = SOAPTestModels.issue(1).tap { |i| i.key = key }
      [issue, issue]
    end
  end

  # SOAP 1.2 Part 2 section 3.1.5: a shared referent over 1.2 rpc/encoded is
  # written with enc:id and enc:ref (no href, no soapenc:root), and read back as one object.
  def test_soap12_rpc_encoded_shares_referents_with_enc_ref
    response, = post(request("getTwice", { in0: "K-1" }, version: "1.2"), service: Shared12Service, content_type: "application/soap+xml")
    assert_equal 200, response.status
    body = response.body
    assert_includes body, %(xmlns:enc="#{Wirebind::SOAP::ENCODING_NS_12}")
    assert_equal 2, body.scan(%r{<item enc:ref="id0"/>}).size
    assert_match(/<multiRef enc:id="id0"[ >]/, body)
    refute_match(/href=|soapenc:root| id=/, body)
    Wirebind::XML.check(body)
    issues = reader(response).decode([RemoteIssue], references: true)
    assert_equal %w[K-1 K-1], issues.map(&:key)
    assert_same issues[0], issues[1]
    # SOAP 1.1 keeps href and id.
    v11 = Wirebind::SOAP::Envelope.write(+"", operation: "op", parts: { in0: [issues[0], issues[0]] }, style: :rpc_encoded, multi_ref: true)
    assert_match(%r{<item href="#id0"/>.*<multiRef id="id0" soapenc:root="0"}m, v11)
  end

  def test_soap12_rpc_result_is_the_name_of_the_value_not_the_value
    env = %(<e:Envelope xmlns:e="#{Wirebind::SOAP::NS_12}"><e:Body><m:addResponse xmlns:m="urn:m" xmlns:r="urn:r">) +
          %(<rpc:result xmlns:rpc="#{Wirebind::SOAP::RPC_NS}">r:sum</rpc:result><r:sum>5</r:sum></m:addResponse></e:Body></e:Envelope>)
    assert_equal 5, Wirebind::SOAP::Envelope::Reader.new(env).decode(:integer)
    assert_equal ["sum", "urn:r"], Wirebind::SOAP::Envelope::Reader.new(env).result
    bad = env.sub("r:sum</rpc", "x:sum</rpc")
    error = assert_raises(Wirebind::DecodeError) { Wirebind::SOAP::Envelope::Reader.new(bad) }
    assert_match(/rpc:result names "x:sum", whose prefix "x" is not declared/, error.message)
    # No rpc:result (a 1.2 server that leaves it out): the first child, as before.
    plain = env.sub(%r{<rpc:result.*</rpc:result>}, "")
    assert_equal 5, Wirebind::SOAP::Envelope::Reader.new(plain).decode(:integer)
  end

  WSSE = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd"

  def with_header(request, version, must: "1", extra: "")
    env = Wirebind::SOAP::VERSIONS.fetch(version)
    request.sub("<soapenv:Body>", %(<soapenv:Header><wsse:Security xmlns:wsse="#{WSSE}" soapenv:mustUnderstand="#{must}"#{extra}>) +
                                  %(<wsse:UsernameToken/></wsse:Security></soapenv:Header><soapenv:Body>)).tap { assert_includes request, env }
  end

  class OpenService < Wirebind::SOAP::Service
    namespace NS
    style :rpc_encoded
    version :both
    operation(:login, args: { in0: :string, in1: :string }, returns: :string) { |user, _| "token-#{user}" }
  end

  class SecureService < OpenService
    understands "{#{WSSE}}Security"
  end

  # SOAP 1.1 §4.2.3, SOAP 1.2 Part 1 §5.2.3, WS-I BP R1027: a mustUnderstand
  # header block that nothing claims is a MustUnderstand fault, not a 200.
  def test_must_understand_header_nobody_claims_is_a_fault
    { "1.1" => "text/xml", "1.2" => "application/soap+xml" }.each do |version, content_type|
      request = with_header(request("login", { in0: "ann", in1: "secret" }, version: version), version)
      response, = post(request, service: OpenService, content_type: content_type)
      assert_equal 500, response.status, version
      fault = assert_raises(Wirebind::SOAP::Fault) { reader(response).decode(:string) }
      assert_equal "soapenv:MustUnderstand", fault.code, version
      assert_match(/header \{#{Regexp.escape(WSSE)}\}Security was not understood/, fault.reason)
      true_value, = post(with_header(request("login", { in0: "a", in1: "b" }, version: version), version, must: "true"), service: OpenService, content_type: content_type)
      assert_equal 500, true_value.status, version
      # Claimed by the service, or not mustUnderstand, or meant for another node: answered.
      claimed, = post(request, service: SecureService, content_type: content_type)
      assert_equal "token-ann", reader(claimed).decode(:string), version
      optional, = post(with_header(request("login", { in0: "ann", in1: "secret" }, version: version), version, must: "0"), service: OpenService, content_type: content_type)
      assert_equal 200, optional.status, version
      role = version == "1.1" ? "actor" : "role"
      other, = post(with_header(request("login", { in0: "ann", in1: "secret" }, version: version), version, extra: %( soapenv:#{role}="urn:elsewhere")),
                    service: OpenService, content_type: content_type)
      assert_equal 200, other.status, version
    end
  end

  class Token
    include Wirebind::Model
    xml_root "Token"
    xml_namespace "urn:auth"
    attribute :user, :string
  end

  class ContextService < Wirebind::SOAP::Service
    namespace NS
    style :rpc_encoded
    operation(:whoAmI, args: { greeting: :string }, returns: :string) do |greeting, context:|
      token = context.header(Token)
      "#{greeting}, #{token ? token.user : 'stranger'} via #{context.env['REQUEST_METHOD']}"
    end
    operation(:plain, args: { x: :string }, returns: :string) { |x| x * 2 }
  end

  # Operations reach the request's headers (decoded by the model given) and the
  # Rack env through a context: keyword; blocks without one are called as before.
  def test_operation_context_with_headers_and_env
    require_operation_keywords
    body = request("whoAmI", { greeting: "hi" })
    with_token = body.sub("<soapenv:Body>", %(<soapenv:Header><t:Token xmlns:t="urn:auth"><t:user>ann &amp; co</t:user></t:Token></soapenv:Header><soapenv:Body>))
    response, = post(with_token, service: ContextService)
    assert_equal "hi, ann & co via POST", reader(response).decode(:string)
    response, = post(body, service: ContextService)
    assert_equal "hi, stranger via POST", reader(response).decode(:string)
    response, = post(request("plain", { x: "ab" }), service: ContextService)
    assert_equal "abab", reader(response).decode(:string)
  end

  class HookedService < Wirebind::SOAP::Service
    namespace NS
    style :rpc_encoded
    operation(:login, args: { in0: :string, in1: :string }, returns: :string) { |_, _| raise KeyError, "secret detail" }
  end

  def test_on_error_hook_gets_the_exception_and_the_caller_a_generic_fault
    seen = []
    hooked = Class.new(HookedService) { on_error { |error, env| seen << [error, env["REQUEST_METHOD"]] } }
    response, errors = post(request("login", { in0: "a", in1: "b" }), service: hooked)
    assert_equal 500, response.status
    fault = assert_raises(Wirebind::SOAP::Fault) { reader(response).decode(:string) }
    assert_equal "internal server error", fault.reason
    refute_includes response.body, "secret detail"
    assert_equal 1, seen.size
    assert_instance_of KeyError, seen[0][0]
    assert_equal "POST", seen[0][1]
    assert(seen[0][0].backtrace.any? { |line| line.include?("service_test.rb") })
    assert_empty errors
    # Without a hook: class and message on rack.errors, as before.
    _, errors = post(request("login", { in0: "a", in1: "b" }), service: HookedService)
    assert_includes errors, "KeyError: secret detail"
  end

  def test_rpc_encoded_list_as_multi_refs_decodes_to_the_same_records
    response, = post(request("getIssues", { in0: "t", in1: 5 }))

    assert_equal 200, response.status
    assert_includes response.body, '<multiRef id="id0"'
    assert_includes response.body, 'soapenc:arrayType="ns2:RemoteIssue[5]"'
    issues = reader(response).decode([RemoteIssue], references: true)
    assert_equal (0...5).map { |n| SOAPTestModels.issue(n) }, issues
  end

  def test_model_and_list_arguments
    issue = SOAPTestModels.issue(3)
    response, = post(request("addLabels", { in0: issue, in1: %w[x y] }))

    assert_equal 200, response.status, response.body
    result = reader(response).decode(RemoteIssue, references: true)
    assert_equal issue.labels + %w[x y], result.labels
    assert_equal issue.affects_versions, result.affects_versions
  end

  def test_enumerator_result_streams_in_pieces_of_64_kib
    Probe.ensured = 0
    response = app.call(Rack::MockRequest.env_for("/soap", method: "POST", input: request("streamIssues", { in0: 3000 }),
                                                           "CONTENT_TYPE" => "text/xml"))
    status, headers, body = response
    assert_equal 200, status
    refute headers.key?("content-length")
    pieces = []
    body.each { |piece| pieces << piece }
    body.close

    assert_operator pieces.size, :>, 5
    assert_equal pieces.size, pieces.map(&:object_id).uniq.size, "a fresh String per piece"
    pieces[0...-1].each { |piece| assert_includes (64 * 1024)...(64 * 1024 + 8192), piece.bytesize }
    issues = Wirebind::SOAP::Envelope::Reader.new(pieces.join).decode([RemoteIssue], references: true)
    assert_equal 3000, issues.size
    assert_equal SOAPTestModels.issue(2999), issues.last
    assert_equal 1, Probe.ensured
  end

  def test_records_are_produced_as_the_body_is_read
    produced = 0
    service = Class.new(Wirebind::SOAP::Service) do
      style :rpc_encoded
      operation(:many, returns: [:string]) { Enumerator.new { |y| 100_000.times { |n| produced += 1; y << "value #{n}" } } }
    end
    status, _headers, body = service.new.call(Rack::MockRequest.env_for("/", method: "POST", "CONTENT_TYPE" => "text/xml",
                                                                             input: request("many", {}, namespace: nil)))
    assert_equal 200, status
    at_first_piece = produced
    pieces = 0
    body.each { |_piece| pieces += 1 }

    assert_operator at_first_piece, :<, 100_000 / 10
    assert_equal 100_000, produced
    assert_operator pieces, :>, 20
  end

  def test_closing_an_unread_body_stops_the_enumerator
    Probe.ensured = 0
    _status, _headers, body = app.call(Rack::MockRequest.env_for("/soap", method: "POST", "CONTENT_TYPE" => "text/xml",
                                                                          input: request("streamIssues", { in0: 100_000 })))
    pieces = 0
    catch(:enough) do
      body.each do |_piece|
        pieces += 1
        throw :enough if pieces == 2
      end
    end
    body.close

    assert_equal 2, pieces
    assert_equal 1, Probe.ensured
  end

  def test_fault_from_an_operation_soap11
    response, = post(request("login", { in0: "ann", in1: "wrong" }))

    assert_equal 500, response.status
    fault = reader(response).fault
    assert_equal "soapenv:Client", fault.code
    assert_equal "bad password", fault.reason
    assert_equal "E42", fault.detail_as(ErrorDetail).errno
  end

  def test_fault_from_an_operation_soap12
    body = request("echo", { issue: SOAPTestModels.issue(1) }, style: :document, version: "1.2", namespace: "urn:docs")
    ok, = post(body, service: DocumentService, content_type: "application/soap+xml; charset=utf-8")
    assert_equal 200, ok.status
    assert_equal "application/soap+xml; charset=utf-8", ok.content_type
    assert_equal SOAPTestModels.issue(1), reader(ok).decode(RemoteIssue)

    response, = post(request("nope", {}, style: :document, version: "1.2", namespace: "urn:docs"),
                     service: DocumentService, content_type: "application/soap+xml")
    assert_equal 400, response.status # SOAP 1.2's HTTP binding: a Sender fault
    fault = reader(response).fault
    assert_equal "soapenv:Sender", fault.code
    assert_match(/no operation "nope"/, fault.reason)
  end

  def test_fault_raised_before_the_first_piece_is_a_fault_response
    response, = post(request("failEarly", {}))

    assert_equal 500, response.status
    fault = reader(response).fault
    assert_equal "soapenv:Server", fault.code
    assert_equal "nothing to stream", fault.reason
    assert_includes fault.detail, "<e:why"
  end

  def test_fault_after_the_status_was_sent_cuts_the_body_short
    errors = StringIO.new
    status, _headers, body = JiraService.new.call(Rack::MockRequest.env_for("/soap", method: "POST", "CONTENT_TYPE" => "text/xml",
                                                                                     input: request("failLate", { in0: 20_000 }),
                                                                                     "rack.errors" => errors))
    assert_equal 200, status
    received = +""
    assert_raises(Wirebind::SOAP::Fault) { body.each { |piece| received << piece } }
    body.close
    refute_includes received, "</soapenv:Envelope>"
    assert_includes errors.string, "cut short by Wirebind::SOAP::Fault"
  end

  def test_bad_xml_is_a_client_fault_without_a_stack_trace
    ["<soapenv:Envelope xmlns:soapenv=\"#{Wirebind::SOAP::NS_11}\"><soapenv:Body><login>", "not xml at all", "",
     "<!DOCTYPE x [<!ENTITY a 'b'>]><x>&a;</x>", "<a xmlns=\"urn:x\"><b/></a>"].each do |body|
      response, = post(body)

      assert_equal 500, response.status, body
      fault = reader(response).fault
      assert_equal "soapenv:Client", fault.code, body
      refute_match(/\.rb:\d+/, response.body)
    end
  end

  def test_arguments_that_do_not_fit_are_a_client_fault
    body = request("getIssues", { in0: "t", in1: "many" })
    response, = post(body)

    assert_equal 500, response.status
    fault = reader(response).fault
    assert_equal "soapenv:Client", fault.code
    assert_match(/the request could not be read: .*many/, fault.reason)
  end

  def test_unexpected_exception_is_a_server_fault_without_internals
    response, errors = post(request("crash", {}))

    assert_equal 500, response.status
    fault = reader(response).fault
    assert_equal "soapenv:Server", fault.code
    assert_equal "internal server error", fault.reason
    refute_includes response.body, "db.properties"
    refute_includes response.body, "IOError"
    assert_includes errors, "IOError: secret path"
  end

  def test_void_operation
    response, = post(request("nothing", {}))

    assert_equal 200, response.status
    assert_equal ["nothingResponse", NS], reader(response).operation
  end

  def test_dispatch_by_soap_action_and_mismatch
    response, = post(request("login", { in0: "a", in1: "secret" }), "HTTP_SOAPACTION" => "\"#{NS}/getIssues\"")
    assert_equal 500, response.status
    assert_match(/SOAPAction .* names getIssues, the body login/, reader(response).fault.reason)

    response, = post(request("login", { in0: "a", in1: "secret" }), "HTTP_SOAPACTION" => "\"#{NS}/login\"")
    assert_equal 200, response.status

    empty = %(<e:Envelope xmlns:e="#{Wirebind::SOAP::NS_11}"><e:Body/></e:Envelope>)
    response, = post(empty, "HTTP_SOAPACTION" => "#{NS}/nothing")
    assert_equal 200, response.status
    assert_equal ["nothingResponse", NS], reader(response).operation
  end

  def test_versions_by_content_type
    body11 = request("getIssues", { keys: %w[A B], limit: 1 }, style: :document, namespace: "urn:docs")
    assert_equal 200, post(body11, service: DocumentService).first.status

    wrong, = post(request("login", { in0: "a", in1: "secret" }, version: "1.2"), content_type: "application/soap+xml")
    assert_equal 415, wrong.status
    assert_equal "soapenv:Client", reader(wrong).fault.code

    mismatch, = post(request("login", { in0: "a", in1: "secret" }, version: "1.2"))
    assert_equal 500, mismatch.status
    assert_equal "soapenv:VersionMismatch", reader(mismatch).fault.code
  end

  def test_document_list_arguments_and_wrapped_list_result
    body = request("getIssues", { keys: %w[OPS-7 OPS-8 OPS-9], limit: 2 }, style: :document, namespace: "urn:docs")
    response, = post(body, service: DocumentService)

    assert_equal 200, response.status, response.body
    assert_includes response.body, "<getIssuesResponse xmlns=\"urn:docs\"><getIssuesReturn><item>"
    assert_equal %w[OPS-7 OPS-8], reader(response).decode([RemoteIssue]).map(&:key)
  end

  def test_other_methods
    assert_equal 405, Rack::MockRequest.new(app).put("/soap").status
    assert_equal 404, Rack::MockRequest.new(app).get("/soap").status
  end

  def test_wsdl_rpc_encoded
    response = Rack::MockRequest.new(app).get("http://example.org:8080/rpc/soap?wsdl")
    assert_equal 200, response.status
    doc = REXML::Document.new(response.body)

    assert_equal "http://example.org:8080/rpc/soap", REXML::XPath.first(doc, "//soap:address/@location").value
    assert_equal "rpc", REXML::XPath.first(doc, "//soap:binding/@style").value
    assert_equal "encoded", REXML::XPath.first(doc, "//wsdl:operation[@name='getIssues']/wsdl:input/soap:body/@use").value
    issue = REXML::XPath.first(doc, "//xsd:schema[@targetNamespace='#{BEANS}']/xsd:complexType[@name='RemoteIssue']")
    assert_equal %w[id key summary votes created due estimate ratio affectsVersions label],
                 REXML::XPath.match(issue, ".//xsd:element/@name").map(&:value)
    assert_equal "unbounded", REXML::XPath.first(issue, ".//xsd:element[@name='label']/@maxOccurs").value
    array = REXML::XPath.first(doc, "//xsd:complexType[@name='ArrayOfRemoteIssue']")
    assert_equal "soapenc:Array", REXML::XPath.first(array, ".//xsd:restriction/@base").value
    assert_match(/\Ans\d:RemoteIssue\[\]\z/, REXML::XPath.first(array, ".//xsd:attribute").attribute("arrayType").value)
    assert_equal %w[in0 in1], REXML::XPath.match(doc, "//wsdl:message[@name='getIssuesRequest']/wsdl:part/@name").map(&:value)
    assert_equal "#{NS}/login", REXML::XPath.first(doc, "//wsdl:operation[@name='login']/soap:operation/@soapAction").value
  end

  class BothVersionsJiraService < JiraService
    version :both
  end

  # ?wsdl is written once per service (per declaration: a later operation is in
  # the next one): a second request, for any endpoint, builds no description.
  def test_the_wsdl_is_written_once
    service = Class.new(BothVersionsJiraService)
    first = Rack::MockRequest.new(app(service)).get("http://example.org:8080/rpc/soap?wsdl").body
    again = other_host = nil
    Wirebind::SOAP::WSDLWriter.stub(:new, ->(*) { flunk "the description was written again" }) do
      again = Rack::MockRequest.new(app(service)).get("http://example.org:8080/rpc/soap?wsdl").body
      other_host = Rack::MockRequest.new(app(service)).get("http://other.example:9/a&b/soap?wsdl").body
    end
    assert_equal first, again
    assert_equal first.gsub("http://example.org:8080/rpc/soap", "http://other.example:9/a&amp;b/soap"), other_host
    assert_equal 2, first.scan("http://example.org:8080/rpc/soap").size # both ports' soap:address (1.1 and 1.2)

    service.operation(:ping, returns: :string) { "pong" }
    assert_includes Rack::MockRequest.new(app(service)).get("/soap?wsdl").body, %(<wsdl:operation name="ping">)
  end

  # Each binding's rpc/encoded body names its own version's encoding (WSDL 1.1
  # section 3.5 for SOAP 1.1; SOAP 1.2 Part 2 section 3 for soap12:body).
  def test_wsdl_rpc_encoded_soap12_binding_names_soap12_encoding
    doc = REXML::Document.new(Rack::MockRequest.new(app(BothVersionsJiraService)).get("/rpc/soap?wsdl").body)
    assert_equal [Wirebind::SOAP::ENCODING_NS], REXML::XPath.match(doc, "//soap:body/@encodingStyle").map(&:value).uniq
    assert_equal [Wirebind::SOAP::ENCODING_NS_12], REXML::XPath.match(doc, "//soap12:body/@encodingStyle").map(&:value).uniq
  end

  class Base
    include Wirebind::Model
    attribute :id, :string
  end

  class Special < Base
    attribute :power, :integer
    attribute :tags, [:string], xml: "tags/*"
  end

  class PolyService < Wirebind::SOAP::Service
    namespace "urn:poly"
    version "1.2"
    operation(:find, args: { ids: [:string] }, returns: [Base]) { |ids| ids.map { |id| Base.new(id: id) } }
  end

  def test_wsdl_document_literal_with_an_extension
    doc = REXML::Document.new(Rack::MockRequest.new(app(PolyService)).get("/x?wsdl").body)

    schema = REXML::XPath.first(doc, "//xsd:schema[@targetNamespace='urn:poly']")
    assert_equal "qualified", schema.attribute("elementFormDefault").value
    special = REXML::XPath.first(schema, "xsd:complexType[@name='Special']")
    assert_equal "tns:Base", REXML::XPath.first(special, ".//xsd:extension/@base").value
    assert_equal %w[power tags item], REXML::XPath.match(special, ".//xsd:element/@name").map(&:value)
    find = REXML::XPath.first(schema, "xsd:element[@name='find']//xsd:element[@name='ids']")
    assert_equal "unbounded", find.attribute("maxOccurs").value
    assert_equal "tns:ArrayOfBase", REXML::XPath.first(schema, "xsd:element[@name='findResponse']//xsd:element/@type").value
    assert REXML::XPath.first(doc, "//soap12:binding"), "a SOAP 1.2 binding"
    assert_nil REXML::XPath.first(doc, "//soap:binding")
    assert_equal "literal", REXML::XPath.first(doc, "//soap12:body/@use").value
  end

  class OpenRecord
    include Wirebind::Model
    attribute :id, :string
    attribute :payload, :any
    attribute :raw, :xml
    attribute :kind, :qname
  end

  # Issue 19, item 9: every field kind in ?wsdl and in rpc/encoded bodies.
  def test_open_content_fields_in_the_wsdl_and_rpc_encoded
    record = OpenRecord.new(id: "7", payload: { "@type" => "Folder", "#text" => "group-v3" }, raw: "<b>x</b>",
                            kind: Wirebind::QName.new("urn:k", "Folder"))
    %i[document rpc_encoded rpc].each do |style|
      service = Class.new(Wirebind::SOAP::Service) do
        namespace "urn:open"
        style style
        operation(:echo, args: { in0: OpenRecord }, returns: OpenRecord) { |value| value }
      end
      response = Rack::MockRequest.new(app(service)).get("/x?wsdl")
      assert_equal 200, response.status, "#{style}: #{response.body[0, 300]}"
      doc = REXML::Document.new(response.body)
      type = REXML::XPath.first(doc, "//xsd:complexType[@name='OpenRecord']")
      types = REXML::XPath.match(type, ".//xsd:element").to_h { |e| [e.attribute("name").value, e.attribute("type")&.value] }
      assert_equal({ "id" => "xsd:string", "payload" => "xsd:anyType", "raw" => "xsd:anyType", "kind" => "xsd:QName" }, types, style)
    end
    xml = Wirebind::SOAP::Envelope.write(+"", operation: "echo", namespace: "urn:open", parts: { in0: record }, style: :rpc_encoded)
    assert_match(%r{<payload type="Folder">group-v3</payload>}, xml)
    assert_match(%r{<raw><b>x</b></raw>}, xml)
    assert_match(/<kind( xmlns:\w+="urn:k")? xsi:type="xsd:QName"( xmlns:\w+="urn:k")?>\w+:Folder</, xml)
  end

  def test_operations_metadata_and_inheritance
    child = Class.new(JiraService) do
      operation(:extra, args: { in0: :string }, returns: :string, &:upcase)
    end

    assert_equal %w[login getIssues streamIssues addLabels failLate failEarly crash nothing],
                 JiraService.operations.map(&:name)
    assert_equal [*JiraService.operations.map(&:name), "extra"], child.operations.map(&:name)
    assert_equal :rpc_encoded, child.style
    assert_equal({ in0: :string, in1: :integer }, JiraService.operations[1].args)
    assert_equal [RemoteIssue], JiraService.operations[1].returns
    assert JiraService.operations.frozen?
    assert JiraService.handlers.frozen?

    status, _, body = child.new.call(Rack::MockRequest.env_for("/", method: "POST", "CONTENT_TYPE" => "text/xml",
                                                                    input: request("extra", { in0: "abc" })))
    assert_equal 200, status
    assert_equal "ABC", Wirebind::SOAP::Envelope::Reader.new(body.to_a.join).decode(:string)
    status, = JiraService.new.call(Rack::MockRequest.env_for("/", method: "POST", "CONTENT_TYPE" => "text/xml",
                                                                  input: request("extra", { in0: "abc" })))
    assert_equal 500, status
  end

  def test_declaration_errors
    klass = Class.new(Wirebind::SOAP::Service)
    assert_raises(ArgumentError) { klass.operation(:"bad name") { nil } }
    assert_raises(ArgumentError) { klass.operation(:x, args: { in0: :text }) { nil } }
    assert_raises(ArgumentError) { klass.operation(:x, returns: String) { nil } }
    assert_raises(ArgumentError) { klass.operation(:x) }
    assert_raises(ArgumentError) { klass.style(:literal) }
    assert_raises(ArgumentError) { klass.version("1.3") }
    klass.operation(:x) { nil }
    error = assert_raises(ArgumentError) { klass.operation(:x) { nil } }
    assert_match(/declared twice/, error.message)
  end
end

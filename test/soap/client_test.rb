# frozen_string_literal: true

require_relative "soap_test_support"
require_relative "loopback_server"
require "logger"
require "stringio"
require "digest/sha1"
require "tmpdir"

# The client against loopback servers: results, faults, transport errors,
# connection reuse, threads, encodings and authentication headers.
class SOAPClientTest < Minitest::Test
  include SOAPTestModels
  Envelope = Wirebind::SOAP::Envelope
  Client = Wirebind::SOAP::Client
  NS = "http://soap.rpc.jira.atlassian.com"

  ISSUES = (1..30).map { |n| SOAPTestModels.issue(n) }.freeze

  def response_xml(parts, style: :rpc_encoded, multi_ref: style == :rpc_encoded, version: "1.1", operation: "getIssuesResponse")
    Envelope.write(+"", operation: operation, namespace: NS, parts: parts, style: style, multi_ref: multi_ref, version: version)
  end

  def ok(body, headers = {})
    [200, headers, body]
  end

  ADAPTER = :net_http

  def new_client(**options)
    Client.new(**{ adapter: self.class::ADAPTER }.merge(options))
  end

  def client_for(server, **options)
    new_client(endpoint: server.url, namespace: NS, style: :rpc_encoded, read_timeout: 5, open_timeout: 2, **options)
  end

  def fixture(name)
    File.binread(shared_path("fixtures", "soap", name))
  end

  def test_rpc_encoded_multi_ref_list_and_single_results
    body = response_xml({ getIssuesReturn: ISSUES })
    LoopbackServer.open(proc { ok(body) }) do |server|
      client = client_for(server)
      issues = client.call(:getIssuesFromJqlSearch, { in0: "token", in1: "project = OPS", in2: 1000 }, returns: [RemoteIssue])
      assert_equal ISSUES, issues
      assert_same issues[0].affects_versions[0], issues[0].affects_versions[1] # one multiRef, referenced twice
      assert_equal ISSUES.first, client.call(:getIssue, { in0: "token" }, returns: RemoteIssue, at: "*/getIssuesReturn/*")
      request = server.requests.pop
      assert_equal %("#{NS}/getIssuesFromJqlSearch"), request.headers["soapaction"]
      assert_equal "text/xml; charset=utf-8", request.headers["content-type"]
      assert_match %r{<ns1:getIssuesFromJqlSearch soapenv:encodingStyle="[^"]+" xmlns:ns1="#{NS}"><in0 xsi:type="xsd:string">token</in0>}, request.body
      assert_includes request.headers["accept-encoding"], "gzip"
      client.close
    end
  end

  # SOAP 1.1 §4.2.3: a mustUnderstand header block for this node that the client
  # does not understand is an error, not a result.
  def test_must_understand_response_header
    env = Wirebind::SOAP::NS_11
    body = %(<e:Envelope xmlns:e="#{env}"><e:Header><s:Session xmlns:s="urn:session" e:mustUnderstand="1">x</s:Session>) +
           %(<s:Hint xmlns:s="urn:session">y</s:Hint><s:Other xmlns:s="urn:session" e:mustUnderstand="1" e:actor="urn:elsewhere"/>) +
           %(</e:Header><e:Body><m:loginResponse xmlns:m="#{NS}"><loginReturn>tok</loginReturn></m:loginResponse></e:Body></e:Envelope>)
    LoopbackServer.open(proc { ok(body) }) do |server|
      error = assert_raises(Wirebind::SOAP::MustUnderstandError) { client_for(server).call(:login, {}, returns: :string) }
      assert_equal [["Session", "urn:session"]], error.headers
      assert_match(/mustUnderstand header \{urn:session\}Session/, error.message)
      assert_kind_of Wirebind::Error, error
      assert_equal "tok", client_for(server, understands: ["{urn:session}Session"]).call(:login, {}, returns: :string)
      assert_equal "tok", client_for(server, understands: ["Session"]).call(:login, {}, returns: :string)
    end
  end

  def test_scalar_results_and_each
    login = response_xml({ loginReturn: "tok-123" }, operation: "loginResponse", multi_ref: false)
    list = response_xml({ getIssuesReturn: ISSUES })
    LoopbackServer.open(proc { |request| ok(request.body.include?("login") ? login : list) }) do |server|
      client = client_for(server)
      assert_equal "tok-123", client.call(:login, { in0: "u", in1: "p" }, returns: :string)
      seen = []
      assert_equal ISSUES.size, client.each(:getIssuesFromJqlSearch, { in0: "t" }, returns: RemoteIssue) { |issue| seen << issue.key }
      assert_equal ISSUES.map(&:key), seen
      assert_equal ISSUES.map(&:key), client.each(:getIssuesFromJqlSearch, { in0: "t" }, returns: [RemoteIssue]).map(&:key)
    end
  end

  def test_document_style_soap12
    body = response_xml({ result: ISSUES.first(3) }, style: :document, version: "1.2")
    LoopbackServer.open(proc { ok(body, "Content-Type" => "application/soap+xml") }) do |server|
      client = new_client(endpoint: server.url, namespace: "urn:docs", version: "1.2", soap_action: ->(op) { "urn:act:#{op}" })
      assert_equal ISSUES.first(3), client.call(:find, { query: "x", limit: 3 }, returns: [RemoteIssue], at: "*/result")
      request = server.requests.pop
      assert_equal %(application/soap+xml; charset=utf-8; action="urn:act:find"), request.headers["content-type"]
      assert_nil request.headers["soapaction"]
      assert_includes request.body, %(<find xmlns="urn:docs"><query>x</query><limit>3</limit></find>)
    end
  end

  FAULTS = {
    "soap_fault.xml" => ["soap:Server", "Fault occurred while processing."],
    "another_soap_fault.xml" => ["ERR_NO_SESSION", "Wrong session message"],
    "empty_soap_fault.xml" => [nil, nil],
    "soap_fault12.xml" => ["soap:Sender", "Sender Timeout"],
    "soap_fault_funky.xml" => ["42", "The Answer to Life The Universe And Everything"]
  }.freeze

  def test_every_fixture_fault_whatever_the_status
    [500, 200].each do |status|
      LoopbackServer.open(proc { |request| [status, {}, fixture(request.path.delete_prefix("/"))] }) do |server|
        FAULTS.each do |file, (code, reason)|
          client = new_client(endpoint: server.url("/#{file}"))
          fault = assert_raises(Wirebind::SOAP::Fault) { client.call(:op, {}, returns: :string) }
          assert_equal [code, reason, status], [fault.code, fault.reason, fault.http_status], file
          client.close
        end
        client = new_client(endpoint: server.url("/soap_fault_invalid_encoding.xml"))
        error = assert_raises(Wirebind::Error) { client.call(:op, {}, returns: :string) }
        assert_kind_of(status == 200 ? Wirebind::ParseError : Wirebind::SOAP::HTTPError, error)
      end
    end
  end

  def test_soap12_fault_written_by_the_envelope_layer
    fault = Wirebind::SOAP::Fault.new(code: "Client", reason: "no such issue", subcodes: ["app:NotFound"], detail: ErrorDetail.new(errno: "E1"))
    body = Envelope.write_fault(+"", fault, version: "1.2")
    LoopbackServer.open(proc { [500, { "Content-Type" => "application/soap+xml" }, body] }) do |server|
      error = assert_raises(Wirebind::SOAP::Fault) { new_client(endpoint: server.url, version: "1.2").call(:x, {}, returns: :string) }
      assert_equal "soapenv:Sender", error.code
      assert_equal ["app:NotFound"], error.subcodes
      assert_equal "E1", error.detail_as(ErrorDetail).errno
    end
  end

  def test_html_error_page
    page = "<!DOCTYPE html><html><body>#{'Service Unavailable ' * 600}</body></html>"
    LoopbackServer.open(proc { [503, { "Content-Type" => "text/html" }, page] }) do |server|
      error = assert_raises(Wirebind::SOAP::HTTPError) { new_client(endpoint: server.url).call(:x, {}, returns: :string) }
      assert_equal 503, error.status
      assert_equal 4096, error.body.bytesize
      assert error.body.start_with?("<!DOCTYPE html>")
    end
    LoopbackServer.open(proc { [404, { "Content-Type" => "text/xml" }, "<error>not here</error>"] }) do |server|
      error = assert_raises(Wirebind::SOAP::HTTPError) { new_client(endpoint: server.url).call(:x, {}, returns: :string) }
      assert_equal 404, error.status
      assert_equal "<error>not here</error>", error.body
    end
  end

  def test_a_200_html_page_is_a_decode_error
    LoopbackServer.open(proc { ok("<html><body>hi</body></html>", "Content-Type" => "text/html") }) do |server|
      assert_raises(Wirebind::DecodeError) { new_client(endpoint: server.url).call(:x, {}, returns: :string) }
    end
  end

  def test_truncated_bodies_are_connection_errors
    body = response_xml({ getIssuesReturn: ISSUES }, multi_ref: false)
    cut = body.byteslice(0, body.bytesize / 2)
    shapes = {
      "content-length" => ->(socket) { socket.write("HTTP/1.1 200 OK\r\nContent-Type: text/xml\r\nContent-Length: #{body.bytesize}\r\n\r\n#{cut}") },
      "chunked" => lambda { |socket|
        socket.write("HTTP/1.1 200 OK\r\nContent-Type: text/xml\r\nTransfer-Encoding: chunked\r\n\r\n#{cut.bytesize.to_s(16)}\r\n#{cut}\r\n")
      },
      "until close" => ->(socket) { socket.write("HTTP/1.1 200 OK\r\nContent-Type: text/xml\r\nConnection: close\r\n\r\n#{cut}") }
    }
    shapes.each do |name, writer|
      LoopbackServer.open(proc { ->(socket) { writer.call(socket) && socket.close } }) do |server|
        client = client_for(server)
        assert_raises(Wirebind::SOAP::ConnectionError, name) { client.call(:get, {}, returns: [RemoteIssue]) }
        seen = []
        assert_raises(Wirebind::SOAP::ConnectionError, name) { client.each(:get, {}, returns: RemoteIssue) { |issue| seen << issue } }
        refute_empty seen, name # what was read before the cut was yielded, and stays yielded
        assert_operator seen.size, :<, ISSUES.size, name
        assert_equal ISSUES.first(seen.size), seen, name
      end
    end
  end

  # Timeouts are checked by what happens, not by wall-clock bounds that a loaded
  # machine breaks: the error comes, no sooner than the timeout, once (the request
  # was sent once), and long before the server would have answered or the peer read.
  TIMEOUT = 0.5
  NEVER = 120 # seconds: longer than any test; the server's threads are killed at its stop

  def assert_timed_out_in_time(elapsed)
    assert_operator elapsed, :>=, TIMEOUT * 0.9, "the error came before the timeout"
    assert_operator elapsed, :<, NEVER / 4, "the timeout did not stop the wait"
  end

  def test_slow_server_times_out_after_the_read_timeout
    LoopbackServer.open(proc { |_| ->(_socket) { sleep NEVER } }) do |server|
      client = client_for(server, read_timeout: TIMEOUT)
      started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      error = assert_raises(Wirebind::SOAP::TimeoutError) { client.call(:slow, {}, returns: :string) }
      assert_timed_out_in_time(Process.clock_gettime(Process::CLOCK_MONOTONIC) - started)
      assert_match(/timeout/, error.message)
      assert_equal 1, server.requests.size, "a timed-out request is not sent again"
    end
  end

  # The adapter alone, on a request already built: the client's own work on a
  # 32 MB request is not the transport's timeout.
  def test_a_server_that_does_not_read_times_the_write_out
    server = TCPServer.new("127.0.0.1", 0)
    accepted = []
    acceptor = Thread.new { loop { accepted << server.accept } }
    client = new_client(endpoint: "http://127.0.0.1:#{server.addr[1]}/soap", write_timeout: TIMEOUT, read_timeout: NEVER)
    body = "x" * 32_000_000
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    assert_raises(Wirebind::SOAP::TimeoutError) { client.transport.request("/soap", { "Content-Type" => "text/xml" }, body) { flunk } }
    assert_timed_out_in_time(Process.clock_gettime(Process::CLOCK_MONOTONIC) - started)
  ensure
    acceptor&.kill&.join(2)
    accepted&.each(&:close)
    server&.close
  end

  def test_connection_refused
    server = TCPServer.new("127.0.0.1", 0)
    port = server.addr[1]
    server.close
    client = new_client(endpoint: "http://127.0.0.1:#{port}/soap", open_timeout: 2)
    error = assert_raises(Wirebind::SOAP::ConnectionError) { client.call(:x, {}, returns: :string) }
    assert_match(/refused/, error.message)
  end

  def test_keep_alive_reuses_one_connection
    body = response_xml({ loginReturn: "t" }, operation: "loginResponse", multi_ref: false)
    LoopbackServer.open(proc { ok(body) }) do |server|
      client = client_for(server)
      25.times { assert_equal "t", client.call(:login, {}, returns: :string) }
      assert_equal 1, server.connections
      assert_equal 1, client.transport.connections_opened
      # Faults and error statuses keep the connection too.
    end
  end

  def test_faults_keep_the_connection
    LoopbackServer.open(proc { [500, {}, fixture("soap_fault.xml")] }) do |server|
      client = client_for(server)
      5.times { assert_raises(Wirebind::SOAP::Fault) { client.call(:x, {}, returns: :string) } }
      assert_equal 1, server.connections
    end
  end

  def test_a_connection_the_server_closed_while_idle_is_reopened
    body = response_xml({ loginReturn: "t" }, operation: "loginResponse", multi_ref: false)
    handler = proc do
      lambda do |socket|
        socket.write("HTTP/1.1 200 OK\r\nContent-Type: text/xml\r\nContent-Length: #{body.bytesize}\r\n\r\n#{body}")
        socket.close # no Connection: close header: the client learns of it when it next sends
      end
    end
    LoopbackServer.open(handler) do |server|
      client = client_for(server)
      3.times do
        assert_equal "t", client.call(:login, {}, returns: :string)
        sleep 0.05
      end
      assert_equal 3, server.connections
      assert_equal 3, server.requests.size # each request sent once
    end
  end

  def test_sixteen_threads_share_one_client
    body = response_xml({ getIssuesReturn: ISSUES.first(5) })
    LoopbackServer.open(proc { ok(body) }) do |server|
      client = client_for(server, pool_size: 4)
      errors = Queue.new
      threads = 16.times.map do
        Thread.new do
          10.times { errors << "wrong result" unless client.call(:get, {}, returns: [RemoteIssue]) == ISSUES.first(5) }
        rescue StandardError => e
          errors << e
        end
      end
      threads.each { |t| t.join(30) }
      assert_equal 0, errors.size, (errors.pop unless errors.empty?).inspect
      assert_operator server.connections, :<=, 4
      assert_equal 160, server.requests.size
    end
  end

  def test_gzip_deflate_and_chunked_bodies
    body = response_xml({ getIssuesReturn: ISSUES })
    gzip = StringIO.new(+"").tap { |io| Zlib::GzipWriter.wrap(io) { |gz| gz.write(body) } }.string
    deflate = Zlib::Deflate.deflate(body)
    { "gzip" => [{ "Content-Encoding" => "gzip" }, gzip], "deflate" => [{ "Content-Encoding" => "deflate" }, deflate],
      "chunked" => [{ "Transfer-Encoding" => "chunked" }, body],
      "chunked gzip" => [{ "Transfer-Encoding" => "chunked", "Content-Encoding" => "gzip" }, gzip] }.each do |name, (headers, payload)|
      LoopbackServer.open(proc { [200, headers, payload] }) do |server|
        client = client_for(server)
        assert_equal ISSUES, client.call(:get, {}, returns: [RemoteIssue]), name
        assert_equal ISSUES, client.call(:get, {}, returns: [RemoteIssue]), name
        assert_equal 1, server.connections, name
      end
    end
  end

  def test_polymorphic_results
    special = Class.new(RemoteIssue) { xml_type "SpecialIssue", namespace: "urn:special" }
    body = %(<e:Envelope xmlns:e="#{Wirebind::SOAP::NS_11}" xmlns:xsi="#{Wirebind::SOAP::XSI_NS}" xmlns:s="urn:special"><e:Body>) +
           %(<r><list><item><key>A</key></item><item xsi:type="s:SpecialIssue"><key>B</key></item></list></r></e:Body></e:Envelope>)
    LoopbackServer.open(proc { ok(body) }) do |server|
      issues = new_client(endpoint: server.url).call(:get, {}, returns: [RemoteIssue])
      assert_equal [RemoteIssue, special], issues.map(&:class)
    end
  end

  class Password
    include Wirebind::Model
    attribute :type, :string, xml: "@Type"
    attribute :text, :string, xml: "."
  end

  class UsernameToken
    include Wirebind::Model
    attribute :username, :string, xml: "Username"
    attribute :password, Password, xml: "Password"
    attribute :nonce, :string, xml: "Nonce"
    attribute :created, :string, xml: "Created"
  end

  def test_ws_security_and_basic_auth_and_soap_headers
    body = response_xml({ r: "ok" }, operation: "xResponse", multi_ref: false)
    log = StringIO.new
    LoopbackServer.open(proc { ok(body) }) do |server|
      text = client_for(server, wsse: { username: "bot", password: "s3cret & <x>" }, basic_auth: %w[user pa55],
                                soap_headers: [Session.new(token: "sess")], logger: Logger.new(log))
      assert_equal "ok", text.call(:x, {}, returns: :string)
      request = server.requests.pop
      assert_equal "Basic #{['user:pa55'].pack('m0')}", request.headers["authorization"]
      token = Wirebind::XML.decode(request.body, UsernameToken, at: "Envelope/Header/Security/UsernameToken")
      assert_equal ["bot", "s3cret & <x>"], [token.username, token.password.text]
      assert_match(/#PasswordText\z/, token.password.type)
      assert_equal "sess", Wirebind::XML.decode(request.body, Session, at: "Envelope/Header/Session").token

      digest = client_for(server, wsse: { username: "bot", password: "s3cret", digest: true })
      digest.call(:x, {}, returns: :string)
      token = Wirebind::XML.decode(server.requests.pop.body, UsernameToken, at: "Envelope/Header/Security/UsernameToken")
      assert_match(/#PasswordDigest\z/, token.password.type)
      expected = [Digest::SHA1.digest(token.nonce.unpack1("m0") + token.created + "s3cret")].pack("m0")
      assert_equal expected, token.password.text
    end
    assert_match(/SOAP x: HTTP 200, \d+ bytes, [\d.]+ ms/, log.string)
    refute_includes log.string, "s3cret"
    refute_includes log.string, "pa55"
  end

  # The debug hook: the request and response as bytes, credentials filtered, a
  # large body in pieces as it is read.
  def test_debug_hook_sees_the_exchange_with_credentials_filtered
    body = response_xml({ getIssuesReturn: ISSUES * 20 })
    events = []
    hook = ->(event, data) { events << [event, data] }
    LoopbackServer.open(proc { ok(body, "Set-Cookie" => "s=1") }) do |server|
      client = client_for(server, wsse: { username: "bot", password: "s3cret", digest: true }, basic_auth: %w[user pa55],
                                  headers: { "Proxy-Authorization" => "Basic eA==" }, debug: hook)
      assert_equal ISSUES * 20, client.call(:getIssues, { in0: "t" }, returns: [RemoteIssue])
      sent = server.requests.pop
      kinds = events.map(&:first)
      assert_equal %i[request response], kinds.first(2)
      assert_equal :response_end, kinds.last
      request = events[0][1]
      assert_equal "[FILTERED]", request[:headers]["Authorization"]
      assert_equal "[FILTERED]", request[:headers]["Proxy-Authorization"]
      assert_match(%r{<wsse:Password Type="[^"]+">\[FILTERED\]</wsse:Password>}, request[:body])
      assert_match(%r{<wsse:Nonce [^>]+>\[FILTERED\]</wsse:Nonce>}, request[:body])
      assert_equal sent.body.b.sub(/(<wsse:Password[^>]*>)[^<]*/, "\\1[FILTERED]").sub(/(<wsse:Nonce[^>]*>)[^<]*/, "\\1[FILTERED]"), request[:body]
      refute_includes events.inspect, "pa55"
      assert_equal 200, events[1][1][:status]
      assert_equal "[FILTERED]", events[1][1][:headers]["set-cookie"]
      pieces = events.select { |event, _| event == :response_body }.map(&:last)
      assert_operator pieces.size, :>, 1 # streamed, not buffered whole for the hook
      assert_equal body.b, pieces.join
      assert_equal body.bytesize, events.last[1]
    end
    assert_raises(ArgumentError) { new_client(endpoint: "http://x/y", debug: :yes) }
  end

  def self_signed
    TestCertificates.issue("/CN=127.0.0.1", ca: true, san: "IP:127.0.0.1")
  end

  def test_tls_verifies_by_default
    key, cert = self_signed
    context = OpenSSL::SSL::SSLContext.new
    context.key = key
    context.cert = cert
    body = response_xml({ r: "secure" }, operation: "xResponse", multi_ref: false)
    Dir.mktmpdir do |dir|
      ca_file = File.join(dir, "ca.pem")
      File.write(ca_file, cert.to_pem)
      LoopbackServer.open(proc { ok(body) }, ssl: context) do |server|
        assert server.url.start_with?("https://")
        error = assert_raises(Wirebind::SOAP::ConnectionError) { new_client(endpoint: server.url).call(:x, {}, returns: :string) }
        assert_match(/certificate verify failed/, error.message)
        assert_equal "secure", new_client(endpoint: server.url, ssl: { ca_file: ca_file }).call(:x, {}, returns: :string)
        assert_equal "secure", new_client(endpoint: server.url, ssl: { verify: false }).call(:x, {}, returns: :string)
      end
    end
  end

  def test_bad_options
    assert_raises(ArgumentError) { new_client(endpoint: "ftp://x/y") }
    assert_raises(ArgumentError) { new_client(endpoint: "http://x/y", style: :literal) }
    assert_raises(ArgumentError) { new_client(endpoint: "http://x/y", version: "2.0") }
    assert_raises(ArgumentError) { new_client(endpoint: "http://x/y", adapter: :curl) }
    assert_raises(ArgumentError) { new_client(endpoint: "http://x/y", pool_size: 0) }
    assert_raises(ArgumentError) { new_client(endpoint: "http://x/y", wsse: { username: "a" }) }
  end
end

# The same tests through the lean socket adapter.
class SOAPClientSocketTest < SOAPClientTest
  ADAPTER = :socket

  def test_it_is_the_socket_adapter
    assert_instance_of Wirebind::SOAP::Transport::Socket, new_client(endpoint: "http://127.0.0.1:1/x").transport
    # the default
    assert_instance_of Wirebind::SOAP::Transport::Socket, Client.new(endpoint: "http://127.0.0.1:1/x").transport
    assert_instance_of Wirebind::SOAP::Transport::NetHTTP, Client.new(endpoint: "http://127.0.0.1:1/x", adapter: :net_http).transport
  end
end

# The same tests through the httpx gem, where it installs.
class SOAPClientHTTPXTest < SOAPClientTest
  ADAPTER = :httpx

  def setup
    Wirebind::SOAP::Transport::HTTPX # autoloaded: raises LoadError where httpx is not installed
  rescue LoadError, NameError => e # (NameError: JRuby, once an autoload has failed)
    skip "httpx is not installed: #{e.message}"
  end

  def test_it_is_the_httpx_adapter
    assert_instance_of Wirebind::SOAP::Transport::HTTPX, new_client(endpoint: "http://127.0.0.1:1/x").transport
  end
end

# frozen_string_literal: true

require_relative "interop_support"

# Savon 2.17 (a SOAP client nobody here wrote) reads the service's WSDL and calls it.
class SavonInteropTest < Minitest::Test
  # Why savon cannot load, or nil: JRuby's gem home (rake test:jruby) has no
  # savon, whose nokogiri is a gem of its own there.
  SAVON_MISSING = begin
    # Savon and its dependencies warn while loading (circular requires): their
    # warnings, not ours, so they are not raised as errors here.
    verbose = $VERBOSE
    $VERBOSE = nil
    require "savon"
    nil
  rescue LoadError => e
    e.message
  ensure
    $VERBOSE = verbose
  end

  def setup
    skip "savon is not installed: #{SAVON_MISSING}" if SAVON_MISSING
    Interop.received
  end

  def savon(server, path)
    Savon.client(wsdl: "#{server.url}#{path}?wsdl", log: false, open_timeout: 5, read_timeout: 10,
                 raise_errors: false)
  end

  def test_document_literal
    Interop::Server.open(Interop::APP) do |server|
      client = savon(server, "/document")
      assert_equal %i[login get_issues create_issue who_am_i echo pair], client.operations

      login = client.call(:login, message: { user: "ann", password: "secret" })
      assert login.success?
      assert_equal "token-ann", login.body.dig(:login_response, :login_return)

      issues = client.call(:get_issues, message: { token: "token-ann", jql: "project = OPS", max: 2 })
      items = issues.body.dig(:get_issues_response, :get_issues_return, :item)
      assert_equal(%w[OPS-1 OPS-2], items.map { |item| item[:key] })
      assert_equal "Issue 2 <&> é", items[1][:summary]
      assert_equal "6", items[1][:votes]
      assert_equal Interop::CREATED, Time.parse(items[1][:created].to_s)
      assert_equal(%w[1.2 2.0], items[1][:versions][:version].map { |v| v[:name] })

      created = client.call(:create_issue, message: { token: "t", issue: { summary: "From Savon", votes: 4,
                                                                           versions: { version: [{ name: "9.1", sequence: 91 }] } } })
      issue = created.body.dig(:create_issue_response, :create_issue_return)
      assert_equal "NEW-1", issue[:key]
      assert_equal "From Savon", issue[:summary]

      fault = client.call(:login, message: { user: "bob", password: "nope" })
      refute fault.success?
      assert_equal 500, fault.http.code
      assert_equal "bad password for bob", fault.body.dig(:fault, :faultstring)

      received = Interop.received
      assert_equal [[:login, "ann", "secret"], [:getIssues, "token-ann", "project = OPS", 2]], received.first(2)
      assert_equal [:createIssue, "t", Interop::Issue.new(summary: "From Savon", votes: 4, versions: [Interop::Version.new(name: "9.1", sequence: 91)])],
                   received[2]
      assert_equal [:login, "bob", "nope"], received[3]
    end
  end

  # soap_version: 2 against the SOAP 1.2 service: application/soap+xml, and a 1.2
  # fault (Code/Value, Reason/Text) with HTTP 400 for a Sender fault.
  def test_document_literal_over_soap12
    Interop::Server.open(Interop::APP) do |server|
      client = Savon.client(wsdl: "#{server.url}/document12?wsdl", log: false, open_timeout: 5, read_timeout: 10,
                            raise_errors: false, soap_version: 2)
      login = client.call(:login, message: { user: "ann", password: "secret" })
      assert_equal ["token-ann", "application/soap+xml; charset=utf-8"],
                   [login.body.dig(:login_response, :login_return), login.http.headers["content-type"]]
      issues = client.call(:get_issues, message: { token: "token-ann", jql: "project = OPS", max: 2 })
      items = issues.body.dig(:get_issues_response, :get_issues_return, :item)
      assert_equal [%w[OPS-1 OPS-2], "Issue 2 <&> é"], [items.map { |item| item[:key] }, items[1][:summary]]
      fault = client.call(:login, message: { user: "bob", password: "nope" })
      assert_equal 400, fault.http.code
      assert_equal({ code: { value: "soapenv:Sender" }, reason: { text: "bad password for bob" } }, fault.body[:fault])
      assert_equal [[:login, "ann", "secret"], [:getIssues, "token-ann", "project = OPS", 2], [:login, "bob", "nope"]], Interop.received
    end
  end

  def test_rpc_encoded
    Interop::Server.open(Interop::APP) do |server|
      client = savon(server, "/encoded")

      login = client.call(:login, message: { user: "ann", password: "secret" })
      assert_equal "token-ann", login.body.dig(:login_response, :login_return)

      issues = client.call(:get_issues, message: { token: "t", jql: "x", max: 3 })
      items = issues.body.dig(:get_issues_response, :get_issues_return, :item)
      assert_equal(%w[OPS-1 OPS-2 OPS-3], items.map { |item| item[:key] })
      assert_equal(%w[1.3 2.0], items[2][:versions][:item].map { |v| v[:name] })

      assert_equal [[:login, "ann", "secret"], [:getIssues, "t", "x", 3]], Interop.received
    end
  end

  # rpc/literal, with a header (Savon's soap_header), a nil and non-ASCII text.
  def test_rpc_literal
    require_operation_keywords # the service's whoAmI reads its header through context:
    Interop::Server.open(Interop::APP) do |server|
      client = savon(server, "/rpc")
      issues = client.call(:get_issues, message: { token: "t", jql: "x", max: 2 })
      items = issues.body.dig(:get_issues_response, :get_issues_return, :item)
      assert_equal(%w[OPS-1 OPS-2], items.map { |item| item[:key] })
      assert_equal "Issue 2 <&> é", items[1][:summary]

      auth = { "tns:AuthHeader" => { "tns:user" => "ann", "tns:password" => "secret" } }
      answer = client.call(:who_am_i, message: { greeting: "hello" }, soap_header: auth)
      assert_equal "hello, ann", answer.body.dig(:who_am_i_response, :who_am_i_return)
      assert_nil client.call(:echo, message: { text: nil }).body.dig(:echo_response, :echo_return)
      assert_equal "Grüße ✓ 日本", client.call(:echo, message: { text: "Grüße ✓ 日本" }).body.dig(:echo_response, :echo_return)

      assert_equal [[:getIssues, "t", "x", 2], [:whoAmI, "hello", "ann"], [:echo, nil], [:echo, "Grüße ✓ 日本"]], Interop.received
    end
  end
end

# frozen_string_literal: true

# `bundle exec rake bench:soap_service`: Wirebind::SOAP::Service against a
# hand-written Rack handler using Builder (how the seed's XML API server wrote
# its responses), each under Puma in a child process on 127.0.0.1.
#
# Both answer getIssuesFromJqlSearch with the same BENCH_ISSUES (100) JIRA
# issues (examples/jira/models.rb), rpc/encoded with Axis-style multiRefs, and
# both read the request (the handler with Nokogiri, as a hand-written one
# would). Each response is first decoded and checked equal to the issues; then
# h2load (nghttp2-client, over HTTP/1.1 keep-alive) sends requests for
# BENCH_SECONDS (5) on BENCH_CONNECTIONS (4) connections, three rounds, the best kept.
# Before that, the two apps are called in this process (Rack env in, body read
# out), interleaved with GC counted (Bench::Clock.report, BENCH_RUNS rounds):
# the CPU per response, which the load of a shared machine moves far less.
#
# wash_out is not measured: it is a Rails engine (controllers, routes), and
# does not run as a plain Rack app without Rails.

lib = File.expand_path("../lib", __dir__)
$LOAD_PATH.unshift(lib) unless $LOAD_PATH.include?(lib)
$stdout.sync = true

require "wirebind"
require "builder"
require "nokogiri"
require "net/http"
require "tmpdir"
require "stringio"
require "rack/mock"
require_relative "clock"
require_relative "../examples/jira/service"

module Bench
  module SOAPService
    COUNT = Integer(ENV.fetch("BENCH_ISSUES", "100"))
    SECONDS = Integer(ENV.fetch("BENCH_SECONDS", "5"))
    CONNECTIONS = Integer(ENV.fetch("BENCH_CONNECTIONS", "4"))
    ROUNDS = 3
    RUNS = Integer(ENV.fetch("BENCH_RUNS", "20"))
    NS = Jira::Service.namespace
    ISSUES = Array.new(COUNT) { |n| Jira.issue(n) }.freeze

    # The service, declared as a user would: the JIRA operation, returning the issues.
    class WirebindService < Wirebind::SOAP::Service
      namespace NS
      style :rpc_encoded
      multi_ref true
      operation :getIssuesFromJqlSearch, args: { in0: :string, in1: :string, in2: :integer },
                                         returns: [Jira::RemoteIssue] do |_token, _jql, max|
        ISSUES.first(max)
      end
    end

    # A hand-written Rack handler: Nokogiri reads the request, Builder writes
    # the same envelope (multiRefs, xsi:types) as the service.
    class BuilderHandler
      ENV_NS = Wirebind::SOAP::NS_11
      ENC = Wirebind::SOAP::ENCODING_NS
      BEANS = Jira::BEANS

      def call(env)
        request = Nokogiri::XML(env["rack.input"].read)
        operation = request.at_xpath("/soapenv:Envelope/soapenv:Body/*", "soapenv" => ENV_NS)
        return [500, { "content-type" => "text/plain" }, ["no operation"]] unless operation&.name == "getIssuesFromJqlSearch"

        max = Integer(operation.at_xpath("in2").text)
        [200, { "content-type" => "text/xml; charset=utf-8" }, [response(ISSUES.first(max))]]
      end

      def response(issues)
        ids = {}.compare_by_identity
        pending = []
        ref = lambda do |record|
          ids.fetch(record) do
            pending << record
            ids[record] = "id#{ids.size}"
          end
        end
        x = Builder::XmlMarkup.new
        x.instruct!
        x.soapenv(:Envelope, "xmlns:soapenv" => ENV_NS, "xmlns:xsd" => Wirebind::SOAP::XSD_NS,
                             "xmlns:xsi" => Wirebind::SOAP::XSI_NS, "xmlns:soapenc" => ENC) do
          x.soapenv(:Body) do
            x.ns1(:getIssuesFromJqlSearchResponse, "soapenv:encodingStyle" => ENC, "xmlns:ns1" => NS) do
              x.getIssuesFromJqlSearchReturn("xsi:type" => "soapenc:Array", "soapenc:arrayType" => "ns2:RemoteIssue[#{issues.size}]",
                                             "xmlns:ns2" => BEANS) do
                issues.each { |issue| x.item(href: "##{ref.call(issue)}") }
              end
            end
            index = 0
            while index < pending.size
              record = pending[index]
              index += 1
              multi_ref(x, record, ids[record], ref)
            end
          end
        end
        x.target!
      end

      def multi_ref(x, record, id, ref)
        x.multiRef(id: id, "soapenc:root" => "0", "soapenv:encodingStyle" => ENC, "xsi:type" => "ns2:#{record.class.xml_type[0]}",
                   "xmlns:ns2" => BEANS) do
          case record
          when Jira::RemoteIssue then issue(x, record, ref)
          when Jira::RemoteVersion
            string(x, :id, record.id)
            string(x, :name, record.name)
            x.archived(record.archived.to_s, "xsi:type" => "xsd:boolean")
            x.releaseDate(time(record.release_date), "xsi:type" => "xsd:dateTime")
            x.released(record.released.to_s, "xsi:type" => "xsd:boolean")
            x.sequence(record.sequence.to_s, "xsi:type" => "xsd:int")
          when Jira::RemoteComponent
            string(x, :id, record.id)
            string(x, :name, record.name)
          when Jira::RemoteCustomFieldValue
            string(x, :customfieldId, record.customfield_id)
            string(x, :key, record.key)
            array(x, :values, record.values, "xsd:string") { |value| string(x, :item, value) }
          end
        end
      end

      def issue(x, issue, ref)
        string(x, :id, issue.id)
        refs(x, :affectsVersions, issue.affects_versions, "RemoteVersion", ref)
        string(x, :assignee, issue.assignee)
        array(x, :attachmentNames, issue.attachment_names, "xsd:string") { |name| string(x, :item, name) }
        refs(x, :components, issue.components, "RemoteComponent", ref)
        x.created(time(issue.created), "xsi:type" => "xsd:dateTime")
        refs(x, :customFieldValues, issue.custom_field_values, "RemoteCustomFieldValue", ref)
        string(x, :description, issue.description)
        string(x, :environment, issue.environment)
        refs(x, :fixVersions, issue.fix_versions, "RemoteVersion", ref)
        %i[key priority project reporter resolution status summary].each { |name| string(x, name, issue.public_send(name)) }
        string(x, :type, issue.type)
        x.updated(time(issue.updated), "xsi:type" => "xsd:dateTime")
        x.votes(issue.votes.to_s, "xsi:type" => "xsd:int")
      end

      def string(x, name, value)
        x.tag!(name, value, "xsi:type" => "xsd:string") unless value.nil?
      end

      def array(x, name, list, type, &block)
        x.tag!(name, "xsi:type" => "soapenc:Array", "soapenc:arrayType" => "#{type}[#{list.size}]") { list.each(&block) }
      end

      def refs(x, name, list, type, ref)
        x.tag!(name, "xsi:type" => "soapenc:Array", "soapenc:arrayType" => "ns2:#{type}[#{list.size}]", "xmlns:ns2" => BEANS) do
          list.each { |record| x.item(href: "##{ref.call(record)}") }
        end
      end

      def time(value)
        value.utc.strftime("%Y-%m-%dT%H:%M:%SZ")
      end
    end

    module_function

    def main
      h2load = ENV.fetch("H2LOAD", "h2load")
      abort "bench/soap_service.rb needs h2load (apt-get install nghttp2-client)" unless system(h2load, "--version", out: File::NULL)

      request = Wirebind::SOAP::Envelope.write(+"", operation: "getIssuesFromJqlSearch", namespace: NS, style: :rpc_encoded,
                                                    parts: { in0: "token", in1: "project = OPS", in2: COUNT })
      apps = { "wirebind SOAP::Service" => WirebindService.new, "Builder + Nokogiri handler" => BuilderHandler.new }
      in_process(apps, request)
      servers = apps.transform_values { |app| Jira::ForkedServer.new(app) }
      bodies = servers.transform_values { |server| check(server, request) }
      puts "SOAP service under Puma (1 process, 4 threads; Ruby #{RUBY_VERSION}, wirebind #{Wirebind.backend}): " \
           "getIssuesFromJqlSearch of #{COUNT} issues, rpc/encoded with multiRefs; " \
           "requests for #{SECONDS} s on #{CONNECTIONS} keep-alive connections (h2load --h1), best of #{ROUNDS}"
      bodies.each { |name, body| puts format("  %-28s response %6.1f KiB, decoded and checked equal to the issues", name, body.bytesize / 1024.0) }
      puts "  the two responses are byte for byte the same: #{bodies.values.uniq.size == 1 ? 'yes' : 'no (equal once decoded)'}"
      rates = Dir.mktmpdir do |dir|
        body = File.join(dir, "request.xml")
        File.write(body, request)
        servers.to_h { |name, server| [name, Array.new(ROUNDS) { h2load_rate(h2load, server, body) }.max] }
      end
      rates.each { |name, rate| puts format("  %-28s %8.0f requests/s", name, rate) }
      ratio = rates["wirebind SOAP::Service"] / rates["Builder + Nokogiri handler"]
      puts format("wirebind SOAP::Service serves %.2fx the requests/s of the Builder handler", ratio)
      puts "wash_out: not measured (a Rails engine; it does not run as a plain Rack app without Rails)"
    ensure
      servers&.each_value(&:stop)
    end

    # Each app called as Puma would (the env, then the body read), interleaved.
    def in_process(apps, request)
      calls = apps.transform_values do |app|
        lambda do
          _status, _headers, body = app.call(Rack::MockRequest.env_for("/", method: "POST", input: StringIO.new(request),
                                                                            "CONTENT_TYPE" => "text/xml; charset=utf-8",
                                                                            "HTTP_SOAPACTION" => "\"#{NS}/getIssuesFromJqlSearch\""))
          body.each { |piece| piece }
          body.close if body.respond_to?(:close)
        end
      end
      samples = Clock.report("one response in process (#{COUNT} issues)", calls, runs: RUNS, count: COUNT, unit: "issue")
      wirebind, builder = samples.values
      puts format("wirebind SOAP::Service takes %.2fx less CPU per response than the Builder handler (in process, interleaved)",
                  builder.mean_ns / wirebind.mean_ns)
    end

    # @return [String] the response, after checking it decodes to ISSUES
    def check(server, request)
      uri = URI(server.url)
      response = Net::HTTP.start(uri.host, uri.port) do |http|
        http.post(uri.path, request, "content-type" => "text/xml; charset=utf-8", "soapaction" => "\"#{NS}/getIssuesFromJqlSearch\"")
      end
      abort "#{server.url}: HTTP #{response.code}: #{response.body[0, 300]}" unless response.code == "200"
      issues = Wirebind::SOAP::Envelope::Reader.new(response.body).decode([Jira::RemoteIssue], references: true)
      abort "#{server.url}: the response does not decode to the issues" unless issues == ISSUES

      response.body
    end

    def h2load_rate(h2load, server, body)
      output = IO.popen([h2load, "--h1", "-D", SECONDS.to_s, "-c", CONNECTIONS.to_s, "-d", body,
                         "-H", "content-type: text/xml; charset=utf-8", "-H", "soapaction: \"#{NS}/getIssuesFromJqlSearch\"",
                         server.url], err: %i[child out], &:read)
      done = output[/requests: .*?(\d+) done/, 1].to_i
      succeeded = output[/requests: .*?(\d+) succeeded/, 1].to_i
      abort "h2load against #{server.url}: #{succeeded}/#{done} succeeded\n#{output}" unless succeeded == done && done.positive?

      Float(output[%r{finished in [\d.]+m?s, ([\d.]+) req/s}, 1])
    end
  end
end

Bench::SOAPService.main if $PROGRAM_NAME == __FILE__

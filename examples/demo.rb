# frozen_string_literal: true

# bundle install && bundle exec rake demo
#
# The job wirebind exists for, end to end: the models and client of a JIRA-like
# SOAP API are generated from its WSDL (examples/jira/jira.wsdl, shipped in the gem;
# JIRA_WSDL=path/to/jirasoapservice-v2.wsdl generates from JIRA's own), defined in
# memory by examples/jira/models.rb with Wirebind::WSDL.load(...).define, the same
# classes `wirebind generate` writes as files; a JIRA-like SOAP service
# built on those models (examples/jira/service.rb: rpc/encoded, every record an
# Axis-style multiRef) runs under Puma on 127.0.0.1 in a child process; this
# process calls it with the generated client:
#
#   client = Jira::Client.new(endpoint: url)    # rpc/encoded, JIRA's namespace: from the WSDL
#   token  = client.login(in0: "demo", in1: "secret")
#   issues = client.get_issues_from_jql_search(in0: token, in1: jql, in2: 1000)          # [Jira::RemoteIssue]
#   client.each_get_issues_from_jql_search(in0: token, in1: jql, in2: 100_000) { |issue| ... }
#
# then makes the same 1000-issue call with Savon and prints the ratio. The
# server is stopped at the end. DEMO_CALL=1000 and DEMO_STREAM=100000 set how
# many issues are called for and streamed.

$LOAD_PATH.unshift File.expand_path("../lib", __dir__)
$stdout.sync = true
require "net/http"
require "wirebind"
require_relative "jira/service"

CALL_COUNT = Integer(ENV.fetch("DEMO_CALL", "1000"))
STREAM_COUNT = Integer(ENV.fetch("DEMO_STREAM", "100000"))
JQL = "project = OPS ORDER BY created"
MIB = 1024.0 * 1024

def now = Process.clock_gettime(Process::CLOCK_MONOTONIC)

def rss_mib(field = "VmRSS")
  File.read("/proc/self/status")[/^#{field}:\s+(\d+)/, 1].to_i / 1024.0
rescue Errno::ENOENT
  nil
end

def mib(value) = value ? format("%.0f MiB", value) : "n/a (no /proc)"

# Starts the peak-RSS counter again (Linux: "5" to clear_refs), so a peak belongs to one step.
def reset_peak
  File.write("/proc/self/clear_refs", "5")
  true
rescue SystemCallError
  false
end

def best_of(runs)
  times = Array.new(runs) do
    GC.start
    t0 = now
    @result = yield
    now - t0
  end
  [@result, times.min]
end

server = Jira::ForkedServer.new(Jira::Service.new)
begin
  puts "wirebind #{Wirebind::VERSION} (#{Wirebind.backend} backend) on Ruby #{RUBY_VERSION}"
  operations = Jira::DESCRIPTION.ports.sum { |port| port.binding.operations.size }
  puts "Models and client generated from #{File.basename(Jira::WSDL_PATH)}: #{Jira::DESCRIPTION.types.size} types, " \
       "#{Jira::Client.name} with #{operations} operations (#{format('%.0f', Jira::DEFINE_SECONDS * 1000)} ms)"
  puts "A JIRA-like SOAP service on those models (rpc/encoded, Axis-style multiRefs) under Puma at #{server.url}"
  puts "  its WSDL: #{server.url}?wsdl"

  client = Jira::Client.new(endpoint: server.url, read_timeout: 600)
  token = client.login(in0: "demo", in1: "secret")
  puts "\nlogin -> #{token.inspect}"

  # ---- 1000 issues -------------------------------------------------------------------------
  call = -> { client.get_issues_from_jql_search(in0: token, in1: JQL, in2: CALL_COUNT) }
  issues = call.call
  expected = Array.new(CALL_COUNT) { |n| Jira.issue(n) }
  raise "the issues received differ from those the service generated" unless issues == expected

  GC.start
  before = GC.stat(:total_allocated_objects)
  issues, seconds = best_of(3) { call.call }
  allocated = (GC.stat(:total_allocated_objects) - before) / 3 / CALL_COUNT
  first = issues.first
  puts "\ngetIssuesFromJqlSearch, #{CALL_COUNT} issues: #{format('%.0f', CALL_COUNT / seconds)} records/s (#{format('%.1f', seconds * 1000)} ms a call, " \
       "best of 3, server time included), #{allocated} objects allocated per record, process RSS #{mib(rss_mib)}"
  puts "  equal to what the service generated: yes"
  puts "  #{first.key}: #{first.summary}"
  puts "    a #{first.class}; created #{first.created} (a #{first.created.class}), votes #{first.votes.inspect}"
  puts "    affects #{first.affects_versions.map { |v| "#{v.name} (#{v.class.name.split('::').last}, released #{v.released})" }.join(', ')}"
  puts "    components #{first.components.map(&:name).inspect}, custom fields #{first.custom_field_values.map(&:values).inspect}"
  shared = issues[0].fix_versions[1].equal?(issues[4].fix_versions[1])
  puts "    the same multiRef twice is the same object: #{shared ? 'yes' : 'NO'}"

  # ---- streaming -----------------------------------------------------------------------------
  GC.start
  base = rss_mib
  peak_reset = reset_peak
  count = 0
  votes = 0
  t0 = now
  client.each_get_issues_from_jql_search(in0: token, in1: JQL, in2: STREAM_COUNT) do |issue|
    count += 1
    votes += issue.votes
  end
  seconds = now - t0
  expected_votes = Array.new(STREAM_COUNT) { |n| n % 11 }.sum
  raise "streamed #{count} issues (#{votes} votes), expected #{STREAM_COUNT} (#{expected_votes})" unless count == STREAM_COUNT && votes == expected_votes

  peak = rss_mib("VmHWM")
  puts "\neach, #{STREAM_COUNT} issues: #{format('%.0f', count / seconds)} records/s (#{format('%.1f', seconds)} s, " \
       "the server writing them as they are generated), all #{count} received, votes summed #{votes}"
  if peak_reset && peak && base
    growth = peak - base
    puts "  peak RSS while streaming #{mib(peak)}, #{format('%.0f MiB', growth)} above where it started " \
         "(#{format('%.2f', growth * MIB / count / 1024)} KiB a record): each record is yielded once it and its " \
         "multiRefs are read, and a multiRef is let go once no record still waiting holds it"
  else
    puts "  peak RSS of the process #{mib(peak)}"
  end

  # ---- Savon -------------------------------------------------------------------------------
  begin
    verbose = $VERBOSE
    $VERBOSE = nil # Savon's dependencies warn while loading
    require "savon"
  rescue LoadError
    puts "\nSavon is not installed: no comparison (bundle install)"
  else
    $VERBOSE = verbose
    savon = Savon.client(endpoint: server.url, namespace: Jira::Service.namespace, log: false, read_timeout: 600,
                         env_namespace: :soapenv, namespace_identifier: :ns1, convert_request_keys_to: :none)
    savon_call = -> { savon.call(:getIssuesFromJqlSearch, message: { in0: token, in1: JQL, in2: CALL_COUNT }).body }
    body = savon_call.call
    items = body.dig(:get_issues_from_jql_search_response, :get_issues_from_jql_search_return, :item)
    raise "Savon got #{items&.size.inspect} items" unless items.is_a?(Array) && items.size == CALL_COUNT

    _, savon_seconds = best_of(3) { savon_call.call }
    _, seconds = best_of(3) { call.call }
    puts "\nThe same #{CALL_COUNT}-issue call with Savon #{Savon::VERSION}: #{format('%.1f', savon_seconds * 1000)} ms a call " \
         "(best of 3), an untyped Hash with #{Array(body[:multi_ref]).size} multiRefs left for you to resolve"
    puts "  wirebind: #{format('%.1f', seconds * 1000)} ms with typed, resolved records: " \
         "#{format('%.1fx', savon_seconds / seconds)} Savon's speed (both times include the server writing the response)"
    # The server's share: the same request's bytes fetched and not parsed.
    uri = URI(server.url)
    request = Wirebind::SOAP::Envelope.write(+"", operation: "getIssuesFromJqlSearch", namespace: Jira::Service.namespace,
                                                  style: :rpc_encoded, parts: { in0: token, in1: JQL, in2: CALL_COUNT })
    raw = Net::HTTP.start(uri.host, uri.port, read_timeout: 600) do |http|
      best_of(3) { http.post(uri.path, request, "content-type" => "text/xml; charset=utf-8").body.bytesize }
    end
    fetch = raw[1]
    if fetch < seconds
      puts "  the server's share (the same response fetched as bytes, not parsed): #{format('%.1f', fetch * 1000)} ms; " \
           "beyond it, wirebind's client takes #{format('%.1f', (seconds - fetch) * 1000)} ms and Savon " \
           "#{format('%.1f', (savon_seconds - fetch) * 1000)} ms: #{format('%.1fx', (savon_seconds - fetch) / (seconds - fetch))}"
    end
  end
  puts "\nThe client alone against Savon, and the service against a Builder handler: bundle exec rake bench:soap bench:soap_service"
ensure
  server.stop
  puts "server stopped"
end

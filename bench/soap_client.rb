# frozen_string_literal: true

# `bundle exec rake bench:soap`: the SOAP client against Savon 2.17 over loopback.
#
# A server in a forked process (its own CPU time, not billed to the clients)
# serves canned responses over keep-alive HTTP/1.1 on 127.0.0.1:
#   /jira   getIssuesFromJqlSearch of BENCH_COUNT (1000) issues, rpc/encoded,
#           every record an Axis-style multiRef (written by Envelope.write)
#   /small  a login response (a short string)
#   /big    a document/literal response of STREAM_MB (80) MB, generated as it is sent
#   /stats  how many connections the server accepted
#
# Every contender's result is first checked equal to the issues the response
# was written from (Savon's Hash through the mapping a user would write, its
# multiRefs resolved by hand); then each is timed, medians reported, and the
# goals printed with the ratios measured in this run.
#
#   /file?P a file written before the run, sent as it is read: getIssuesFromJqlSearch
#           of STREAM_ISSUES (100,000) issues, rpc/encoded multiRefs, in two orders
#           (depth first as wirebind's Service writes them, level by level as Axis 1
#           does), streamed by the client's each (kept in tmp/bench/ between runs);
#           and a third, depth first, whose first and last issues share a version
#           (each must take it back from 600,000 multiRefs before, the same object)
#
# Environment: BENCH_COUNT=1000, SMALL_CALLS=10000, SAVON_SMALL_CALLS=1000,
# STREAM_MB=80, SAVON_STREAM_MB=16, STREAM_ISSUES=100000, BENCH_RUNS=15.

lib = File.expand_path("../lib", __dir__)
$LOAD_PATH.unshift(lib) unless $LOAD_PATH.include?(lib)
$stdout.sync = true

require "socket"
require "fileutils"
require "tempfile"
require "wirebind"
require "savon"
require_relative "clock"
require_relative "generator"
require_relative "models"
require_relative "peers/nori"

module Bench
  module SOAPClient
    NS = "http://soap.rpc.jira.atlassian.com"
    COUNT = Integer(ENV.fetch("BENCH_COUNT", "1000"))
    SMALL_CALLS = Integer(ENV.fetch("SMALL_CALLS", "10000"))
    SAVON_SMALL_CALLS = Integer(ENV.fetch("SAVON_SMALL_CALLS", "1000"))
    STREAM_MB = Integer(ENV.fetch("STREAM_MB", "80"))
    SAVON_STREAM_MB = Integer(ENV.fetch("SAVON_STREAM_MB", "16"))
    RUNS = Integer(ENV.fetch("BENCH_RUNS", "15"))
    STREAM_ISSUES = Integer(ENV.fetch("STREAM_ISSUES", "100000"))
    THREADS = 16
    MIB = 1024.0 * 1024

    module_function

    def main
      issues = Generator.expected(COUNT)
      jira = Wirebind::SOAP::Envelope.write(+"", operation: "getIssuesFromJqlSearchResponse", namespace: NS,
                                                 parts: { getIssuesFromJqlSearchReturn: issues }, style: :rpc_encoded, multi_ref: true)
      small = Wirebind::SOAP::Envelope.write(+"", operation: "loginResponse", namespace: NS, parts: { loginReturn: "token-abc" },
                                                  style: :rpc_encoded)
      block = issues.first(50).map { |issue| Wirebind::XML.encode(issue, root: "item") }.join
      server = Server.start("/jira" => jira, "/small" => small, big: block)
      puts "SOAP client over loopback (Ruby #{RUBY_VERSION}, wirebind #{Wirebind.backend}, Savon #{Savon::VERSION}); " \
           "getIssuesFromJqlSearch: #{COUNT} issues, #{(jira.bytesize / MIB).round(2)} MiB, #{jira.scan('<multiRef ').size} multiRefs"
      big_issue(server, issues)
      small_calls(server)
      streaming(server, issues.first(50))
      multi_ref_streaming(server)
      multi_ref_shared(server)
    ensure
      server&.stop
    end

    # ---- 1000 issues, rpc/encoded, multiRef -----------------------------------------

    def big_issue(server, issues)
      wirebind = wirebind_client(server, "/jira")
      call = -> { wirebind.call(:getIssuesFromJqlSearch, { in0: "token", in1: "project = OPS", in2: COUNT }, returns: [Issue]) }
      pure = -> { wirebind.call(:getIssuesFromJqlSearch, { in0: "token", in1: "project = OPS", in2: COUNT }, returns: [Issue], backend: :pure) }
      savon = savon_client(server, "/jira")
      savon_body = -> { savon.call(:getIssuesFromJqlSearch, message: { in0: "token", in1: "project = OPS", in2: COUNT }).body }
      savon_mapped = -> { SavonMapping.issues(savon_body.call) }

      check("wirebind", call.call, issues)
      check("wirebind pure", pure.call, issues)
      check("Savon + mapping", savon_mapped.call, issues)

      t_wirebind = median(RUNS) { call.call }
      t_pure = median([RUNS / 3, 3].max) { pure.call }
      t_savon = median(5) { savon_body.call }
      t_mapped = median(5) { savon_mapped.call }
      allocations = allocated { call.call }
      largest, string_bytes = string_allocations { call.call }
      puts
      puts "| getIssuesFromJqlSearch, #{COUNT} issues (rpc/encoded, multiRef) | median | vs wirebind |"
      puts "|---|---:|---:|"
      row("wirebind client (native)", t_wirebind, t_wirebind)
      row("wirebind client (pure)", t_pure, t_wirebind)
      row("Savon 2.17 `response.body` (a Hash)", t_savon, t_wirebind)
      row("Savon 2.17 + mapping into the same models", t_mapped, t_wirebind)
      puts "allocations per call: #{allocations} objects for #{issues.size} records of #{jira_objects(issues)} objects; " \
           "Strings: #{string_bytes} bytes in all (#{(string_bytes.to_f / server.size('/jira')).round(2)}x the body's " \
           "#{server.size('/jira')} bytes, the values included), the largest #{largest} bytes (no String holds the body)"
      goal("#{COUNT} issues: wirebind vs Savon response.body", t_savon / t_wirebind, 10)
      goal("#{COUNT} issues: wirebind vs Savon + mapping", t_mapped / t_wirebind, 10)
      wirebind.close
    end

    # ---- many small calls -----------------------------------------------------------

    def small_calls(server)
      savon = savon_client(server, "/small")
      savon_login = -> { SavonMapping.login(savon.call(:login, message: { in0: "bot", in1: "secret" }).body) }
      raise "Savon login returned #{savon_login.call.inspect}" unless savon_login.call == "token-abc"

      rows = []
      goals = []
      t_savon = timed { SAVON_SMALL_CALLS.times { savon_login.call } }
      savon_clients = Array.new(THREADS) { savon_client(server, "/small") }
      savon_per_thread = SAVON_SMALL_CALLS / THREADS
      t_savon_threads = timed do
        threads(THREADS) { |n| savon_per_thread.times { SavonMapping.login(savon_clients[n].call(:login, message: { in0: "b" }).body) } }
      end
      savon_rate = SAVON_SMALL_CALLS / t_savon
      savon_rate_threads = (savon_per_thread * THREADS) / t_savon_threads
      %i[net_http socket httpx].each do |adapter|
        client = wirebind_client(server, "/small", adapter: adapter)
        login = -> { client.call(:login, { in0: "bot", in1: "secret" }, returns: :string) }
        raise "wirebind login returned #{login.call.inspect}" unless login.call == "token-abc"

        server_before = server.connections
        t_one = timed { SMALL_CALLS.times { login.call } }
        opened = client.transport.connections_opened
        t_threads = timed { threads(THREADS) { |n| (SMALL_CALLS / THREADS + (n < SMALL_CALLS % THREADS ? 1 : 0)).times { login.call } } }
        opened_threads = client.transport.connections_opened
        server_saw = server.connections - server_before - 1 # less the /stats request before
        rate = SMALL_CALLS / t_one
        rate_threads = SMALL_CALLS / t_threads
        rows << "| wirebind `adapter: :#{adapter}`, one client, one thread | #{SMALL_CALLS} | #{rate.round} | #{opened} |"
        rows << "| wirebind `adapter: :#{adapter}`, the same client, #{THREADS} threads | #{SMALL_CALLS} | #{rate_threads.round} | " \
                "#{opened_threads} in all (pool_size 5; the server accepted #{server_saw}) |"
        goals << ["small calls, one thread, :#{adapter}: wirebind vs Savon calls/s", rate / savon_rate]
        goals << ["small calls, #{THREADS} threads, :#{adapter}: wirebind vs Savon calls/s", rate_threads / savon_rate_threads]
        goals << [:connections, adapter, opened_threads]
        client.close
      end
      floor = raw_exchange_rate(server)
      puts
      puts "| small calls (login) | calls | calls/s | connections opened |"
      puts "|---|---:|---:|---:|"
      rows.each { |row| puts row }
      puts "| Savon 2.17, one thread | #{SAVON_SMALL_CALLS} | #{savon_rate.round} | one per call |"
      puts "| Savon 2.17, #{THREADS} threads (a client each) | #{savon_per_thread * THREADS} | #{savon_rate_threads.round} | one per call |"
      puts "| *floor: the same request written and its response read on one socket by hand (no HTTP library, no XML)* | #{SMALL_CALLS} | *#{floor.round}* | 1 |"
      goals.each do |what, ratio, opened|
        if what == :connections
          puts "connections opened by the :#{ratio} client over #{2 * SMALL_CALLS + 1} calls (1 and #{THREADS} threads): #{opened} " \
               "(goal: at most the pool size, 5) #{opened <= 5 ? 'met' : 'NOT MET'}"
        else
          goal(what, ratio, 5)
        end
      end
      puts "(the floor is #{(floor / savon_rate).round(1)}x Savon: no client can be more than that much faster against this server)"
    end

    # A keep-alive exchange written by hand: what this server and the loopback cost.
    def raw_exchange_rate(server)
      request = Wirebind::SOAP::Envelope.write(+"", operation: "login", namespace: NS, parts: { in0: "bot", in1: "secret" }, style: :rpc_encoded)
      message = "POST /small HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/xml\r\nContent-Length: #{request.bytesize}\r\n\r\n#{request}"
      socket = TCPSocket.new("127.0.0.1", server.port)
      socket.setsockopt(Socket::IPPROTO_TCP, Socket::TCP_NODELAY, 1)
      tail = "</soapenv:Envelope>"
      elapsed = timed do
        SMALL_CALLS.times do
          socket.write(message)
          buffer = socket.readpartial(65_536)
          buffer << socket.readpartial(65_536) until buffer.end_with?(tail)
        end
      end
      socket.close
      SMALL_CALLS / elapsed
    end

    # ---- an 80 MB response through each -----------------------------------------------

    def streaming(server, block_issues)
      wirebind = in_child do
        client = wirebind_client(server, "/big?mb=#{STREAM_MB}")
        count = 0
        bad = 0
        client.each(:getAll, {}, returns: Issue, at: "*/*") do |issue|
          bad += 1 unless issue == block_issues[count % block_issues.size]
          count += 1
        end
        raise "#{bad} of #{count} streamed issues differ" unless bad.zero?

        count
      end
      savon = in_child(timeout: 300) do
        client = savon_client(server, "/big?mb=#{SAVON_STREAM_MB}")
        body = client.call(:getAll, message: {}).body
        SavonMapping.items(body).size
      end
      [[wirebind, STREAM_MB], [savon, SAVON_STREAM_MB]].each do |result, megabytes|
        expected = megabytes * 1024 * 1024 / server.big_block_size * block_issues.size
        abort "a streamed response gave #{result[:value]} records, not #{expected}" if result[:ok] && result[:value] != expected
      end
      puts
      puts "| document/literal response through each | size | records | time | MB/s | peak RSS growth |"
      puts "|---|---:|---:|---:|---:|---:|"
      streamed_row("wirebind `each`", STREAM_MB, wirebind)
      streamed_row("Savon 2.17 `response.body`", SAVON_STREAM_MB, savon)
      if wirebind[:ok]
        goal_max("#{STREAM_MB} MB through each: peak RSS growth (MiB)", wirebind[:rss] / 1024.0, 64)
      end
      return unless savon[:ok] && wirebind[:ok]

      puts "Savon's peak RSS growth per MB of body: #{(savon[:rss] / 1024.0 / SAVON_STREAM_MB).round(1)} MiB/MB " \
           "(so about #{(savon[:rss] / 1024.0 / SAVON_STREAM_MB * STREAM_MB).round} MiB for #{STREAM_MB} MB, not run: bounded at #{SAVON_STREAM_MB} MB)"
    end

    # ---- 100,000 issues, rpc/encoded multiRefs, through each ---------------------------------

    def multi_ref_streaming(server)
      orders = { true => "depth first (wirebind's Service)", breadth_first: "level by level (Axis 1's order)" }
      results = orders.map do |order, label|
        file = multi_ref_file(order)
        result = in_child do
          client = wirebind_client(server, "/file?#{file}")
          count = 0
          bad = 0
          client.each(:getIssuesFromJqlSearch, { in0: "token", in1: "project = OPS", in2: STREAM_ISSUES }, returns: Issue) do |issue|
            # spot-checked: every 997th against the issue it was written from
            bad += 1 if (count % 997).zero? && issue != Generator.expected_issue(count)
            count += 1
          end
          raise "#{bad} of the streamed issues checked differ" unless bad.zero?

          count
        end
        abort "each over #{file} gave #{result[:value]} issues, not #{STREAM_ISSUES}" if result[:ok] && result[:value] != STREAM_ISSUES
        [label, File.size(file), result]
      end
      puts
      puts "| getIssuesFromJqlSearch, #{STREAM_ISSUES} issues (rpc/encoded, multiRef) through each | size | time | issues/s | peak RSS growth |"
      puts "|---|---:|---:|---:|---:|"
      results.each do |label, size, result|
        if result[:ok]
          puts "| multiRefs #{label} | #{(size / MIB).round} MiB | #{result[:time].round(1)} s | #{(STREAM_ISSUES / result[:time]).round} | " \
               "#{(result[:rss] / 1024.0).round(1)} MiB |"
        else
          puts "| multiRefs #{label} | #{(size / MIB).round} MiB | failed: #{result[:error]} | | |"
        end
      end
      depth = results.first[2]
      goal_max("#{STREAM_ISSUES} issues, depth-first multiRefs, through each: peak RSS growth (MiB)", depth[:rss] / 1024.0, 128) if depth[:ok]
      puts "(level by level, every issue waits for the level after it: each holds them all, as the multiRefs still pending)"
    end

    # The first and the last of STREAM_ISSUES issues share a version, written
    # once (depth first, right after the first issue): the last one's href
    # names a multiRef let go some 600,000 multiRefs before. each must read it
    # as call does: every issue equal to the one it was written from, the
    # shared version one object.
    def multi_ref_shared(server)
      file = multi_ref_file(:shared)
      result = in_child do
        client = wirebind_client(server, "/file?#{file}")
        count = 0
        bad = 0
        first = last = nil
        client.each(:getIssuesFromJqlSearch, { in0: "token", in1: "project = OPS", in2: STREAM_ISSUES }, returns: Issue) do |issue|
          bad += 1 unless issue == shared_issue(count)
          first ||= issue
          last = issue
          count += 1
        end
        raise "#{bad} of #{count} streamed issues differ" unless bad.zero?
        raise "the shared version is not one object" unless first.fix_versions.last.equal?(last.fix_versions.last)

        count
      end
      puts
      if result[:ok] && result[:value] == STREAM_ISSUES
        puts "each over #{STREAM_ISSUES} issues whose first and last share a version (a reference #{(File.size(file) / MIB).round} MiB back): " \
             "every issue equal to the one it was written from, the version one object (#{result[:time].round(1)} s, " \
             "peak RSS growth #{(result[:rss] / 1024.0).round(1)} MiB)"
      else
        abort "each over the shared-version document failed: #{result[:error] || result[:value]}"
      end
    end

    SHARED_VERSION = Version.new(name: "shared", archived: false, released: true, sequence: 1)

    def shared_issue(index)
      issue = Generator.expected_issue(index)
      issue.fix_versions = issue.fix_versions + [SHARED_VERSION] if index.zero? || index == STREAM_ISSUES - 1
      issue
    end

    # The response, written once by a child process (its memory is not the
    # parent's) into tmp/bench/, and kept for the next run.
    def multi_ref_file(order)
      dir = File.expand_path("../tmp/bench", __dir__)
      FileUtils.mkdir_p(dir)
      name = { true => "depth", breadth_first: "levels", shared: "shared" }.fetch(order)
      file = File.join(dir, "soap_multi_ref_#{name}_#{STREAM_ISSUES}.xml")
      return file if File.exist?(file)

      pid = fork do
        shared = order == :shared
        issues = Enumerator.new { |y| STREAM_ISSUES.times { |n| y << (shared ? shared_issue(n) : Generator.expected_issue(n)) } }
        File.open("#{file}.part", "wb") do |io|
          Wirebind::SOAP::Envelope.write(io, operation: "getIssuesFromJqlSearchResponse", namespace: NS,
                                             parts: { getIssuesFromJqlSearchReturn: issues }, types: { getIssuesFromJqlSearchReturn: [Issue] },
                                             style: :rpc_encoded, multi_ref: shared || order)
        end
        File.rename("#{file}.part", file)
        exit!(0)
      end
      _, status = Process.wait2(pid)
      abort "writing #{file} failed" unless status.success? && File.exist?(file)
      file
    end

    def streamed_row(name, megabytes, result)
      unless result[:ok]
        puts "| #{name} | #{megabytes} MB | failed: #{result[:error]} | | | |"
        return
      end
      puts "| #{name} | #{megabytes} MB | #{result[:value]} | #{result[:time].round(2)} s | #{(megabytes / result[:time]).round(1)} | " \
           "#{(result[:rss] / 1024.0).round(1)} MiB |"
    end

    # Runs the block in a child process; reports its value, time and peak RSS growth (VmHWM - VmRSS at start, KiB).
    def in_child(timeout: 600)
      reader, writer = IO.pipe
      pid = fork do
        reader.close
        GC.start
        base = status_kib("VmRSS")
        started = Clock.now
        value = yield
        elapsed = Clock.now - started
        writer.write(Marshal.dump({ ok: true, value: value, time: elapsed, rss: status_kib("VmHWM") - base }))
      rescue StandardError => e
        writer.write(Marshal.dump({ ok: false, error: "#{e.class}: #{e.message[0, 200]}" }))
      ensure
        writer.close
        exit!(0)
      end
      writer.close
      result = nil
      # rubocop:disable Style/RescueModifier, Security/MarshalLoad -- our own child's report, through our own pipe
      waiter = Thread.new { result = Marshal.load(reader.read) rescue { ok: false, error: "no result" } }
      # rubocop:enable Style/RescueModifier, Security/MarshalLoad
      unless waiter.join(timeout)
        Process.kill(:KILL, pid)
        result = { ok: false, error: "stopped after #{timeout} s" }
      end
      Process.wait(pid)
      reader.close
      result
    end

    def status_kib(field)
      File.read("/proc/self/status")[/^#{field}:\s+(\d+)/, 1].to_i
    end

    # ---- helpers ----------------------------------------------------------------------

    # The streaming rows read hundreds of MiB in one call, minutes on a loaded
    # machine: the deadline is in_child's bound, not the client's default.
    def wirebind_client(server, path, adapter: :net_http)
      Wirebind::SOAP::Client.new(endpoint: "http://127.0.0.1:#{server.port}#{path}", namespace: NS, style: :rpc_encoded,
                                 read_timeout: 120, deadline: 600, adapter: adapter)
    end

    def savon_client(server, path)
      Savon.client(endpoint: "http://127.0.0.1:#{server.port}#{path}", namespace: NS, log: false, read_timeout: 300,
                   env_namespace: :soapenv, namespace_identifier: :ns1, convert_request_keys_to: :none)
    end

    def check(name, got, expected)
      return if got == expected

      index = (0...expected.size).find { |i| got[i] != expected[i] } || got.size
      abort "#{name} disagrees with the issues the response was written from (first at #{index}: #{got[index].inspect[0, 300]})"
    end

    def jira_objects(issues)
      count = 0
      pending = issues.dup
      until pending.empty?
        value = pending.pop
        count += 1
        case value
        when Array then pending.concat(value)
        when Wirebind::Model then pending.concat(value.class.attributes.map { |a| value.public_send(a.name) }.compact)
        end
      end
      count
    end

    def median(runs, &block)
      times = Array.new(runs) do
        GC.start
        timed(&block)
      end
      times.sort[runs / 2]
    end

    def timed
      started = Clock.now
      yield
      Clock.now - started
    end

    def allocated
      GC.start
      before = GC.stat(:total_allocated_objects)
      yield
      GC.stat(:total_allocated_objects) - before
    end

    # [largest, total] bytes of the Strings a call allocates (GC off while it runs, so each is still there to measure).
    def string_allocations
      require "objspace"
      GC.start
      GC.disable
      ObjectSpace.trace_object_allocations_start
      generation = GC.count
      yield
      largest = 0
      total = 0
      ObjectSpace.each_object(String) do |string|
        next unless ObjectSpace.allocation_generation(string) == generation

        size = ObjectSpace.memsize_of(string)
        total += size
        largest = size if size > largest
      end
      [largest, total]
    ensure
      ObjectSpace.trace_object_allocations_stop
      GC.enable
    end

    def threads(count, &block)
      Array.new(count) { |n| Thread.new(n, &block) }.each(&:join)
    end

    def row(name, time, base)
      puts "| #{name} | #{(time * 1000).round(1)} ms | #{(time / base).round(1)}x |"
    end

    def goal(what, ratio, target)
      puts "goal: #{what}: #{ratio.round(1)}x (goal >= #{target}x) #{ratio >= target ? 'met' : 'NOT MET'}"
    end

    def goal_max(what, value, limit)
      puts "goal: #{what}: #{value.round(1)} (goal <= #{limit}) #{value <= limit ? 'met' : 'NOT MET'}"
    end

    # What a Savon user writes to get the same models: multiRefs resolved by hand
    # (Savon leaves href/id to the caller), then the Hash mapped field by field
    # with the mapping of the Nori benchmark peer (bench/peers/nori.rb).
    module SavonMapping
      MAPPER = Peers::Nori.new

      module_function

      def issues(body)
        refs = {}
        Array(body[:multi_ref]).each { |ref| refs[ref[:@id]] = ref }
        wrapper = body.dig(:get_issues_from_jql_search_response, :get_issues_from_jql_search_return)
        items = wrapper.is_a?(Hash) ? Array(wrapper[:item]) : []
        items.map { |item| MAPPER.send(:issue, resolve(item, refs)) }
      end

      # Replaces {:@href => "#id"} by the multiRef it names, through the nesting (a stack, not recursion).
      def resolve(value, refs)
        root = [value]
        stack = [[root, 0]]
        until stack.empty?
          holder, key = stack.pop
          item = holder[key]
          item = holder[key] = refs.fetch(item[:@href].delete_prefix("#")) if item.is_a?(Hash) && item[:@href]
          # Savon's Nori gives an empty element with attributes (<x xsi:type="xsd:string"></x>) as a
          # Hash of its attributes: the user's mapping reads it as "".
          item = holder[key] = "" if item.is_a?(Hash) && item.each_key.all? { |k| k.start_with?("@") }
          case item
          when Hash then item.each_key { |k| stack << [item, k] }
          when Array then item.each_index { |i| stack << [item, i] }
          end
        end
        root[0]
      end

      def login(body)
        body.dig(:login_response, :login_return).to_s
      end

      def items(body)
        Array(body.values.first[:item])
      end
    end

    # The canned-response server, in a forked process: keep-alive, a thread per connection.
    class Server
      attr_reader :port

      def self.start(bodies)
        new(bodies)
      end

      # SERVER_PROCESSES (2) processes accept on the same socket, a thread per
      # connection in each: the server is no GVL-bound single process that 16
      # client threads (or Savon's connection per call) would queue behind. Each
      # counts the connections it accepted in its own slot of a shared file.
      def initialize(bodies)
        @bodies = bodies
        server = TCPServer.new("127.0.0.1", 0)
        @port = server.addr[1]
        @counts = Tempfile.create("wirebind-bench-connections")
        processes = Integer(ENV.fetch("SERVER_PROCESSES", "2"))
        @counts.write("\0" * 8 * processes)
        @counts.flush
        @pids = Array.new(processes) do |slot|
          fork do
            connections = 0
            lock = Mutex.new
            loop do
              socket = server.accept
              socket.setsockopt(Socket::IPPROTO_TCP, Socket::TCP_NODELAY, 1)
              lock.synchronize { @counts.pwrite([connections += 1].pack("Q"), 8 * slot) }
              Thread.new(socket) { |s| serve(s, -> { accepted }) }
            end
          end
        end
        server.close
      end

      def accepted
        File.binread(@counts.path).unpack("Q*").sum
      end

      def size(path)
        @bodies.fetch(path).bytesize
      end

      def big_block_size
        @bodies.fetch(:big).bytesize
      end

      def connections
        Net::HTTP.get(URI("http://127.0.0.1:#{@port}/stats")).to_i - 1 # this request's own connection
      end

      def stop
        @pids.each do |pid|
          Process.kill(:TERM, pid)
          Process.wait(pid)
        rescue Errno::ESRCH, Errno::ECHILD
          nil
        end
        @counts.close
        File.unlink(@counts.path)
      end

      private

      # One read for a small request's head and body (no line-by-line gets), and
      # each canned response written whole, made once: what a server costs per
      # call must stay well below what any client costs, or it is the server
      # that is measured (the floor line of the small-calls table says how far).
      def serve(socket, connections)
        buffer = +"".b
        loop do
          until (ends = buffer.index("\r\n\r\n"))
            buffer << socket.readpartial(65_536)
          end
          length = buffer.byteslice(0, ends)[/^content-length:[ \t]*(\d+)/i, 1].to_i
          total = ends + 4 + length
          buffer << socket.readpartial(65_536) while buffer.bytesize < total
          path = buffer[/\A[A-Z]+ (\S+)/, 1]
          buffer = buffer.byteslice(total, buffer.bytesize - total)
          if path == "/stats"
            respond(socket, connections.call.to_s, "text/plain")
          elsif path.start_with?("/file?")
            send_file(socket, path.delete_prefix("/file?"))
          elsif path.start_with?("/big")
            stream_big(socket, Integer(path[/mb=(\d+)/, 1]))
          else
            socket.write(canned(path))
          end
        end
      rescue IOError, SystemCallError # EOFError included
        nil
      ensure
        socket.close
      end

      def canned(path)
        (@canned ||= {})[path] ||= response(@bodies.fetch(path)).freeze
      end

      # One write (and no Nagle delay): two small writes would wait on the
      # client's delayed ACK, 40 ms a call, for every client alike.
      def respond(socket, body, type = "text/xml; charset=utf-8")
        socket.write(response(body, type))
      end

      def response(body, type = "text/xml; charset=utf-8")
        "HTTP/1.1 200 OK\r\nContent-Type: #{type}\r\nContent-Length: #{body.bytesize}\r\n\r\n#{body}"
      end

      def send_file(socket, path)
        File.open(path, "rb") do |file|
          socket.write("HTTP/1.1 200 OK\r\nContent-Type: text/xml; charset=utf-8\r\nContent-Length: #{file.size}\r\n\r\n")
          IO.copy_stream(file, socket)
        end
      end

      # A document/literal response of +megabytes+, written in chunks as it is made.
      def stream_big(socket, megabytes)
        socket.write("HTTP/1.1 200 OK\r\nContent-Type: text/xml; charset=utf-8\r\nTransfer-Encoding: chunked\r\n\r\n")
        chunk = ->(text) { socket.write("#{text.bytesize.to_s(16)}\r\n#{text}\r\n") }
        chunk.call(%(<soapenv:Envelope xmlns:soapenv="#{Wirebind::SOAP::NS_11}"><soapenv:Body><getAllResponse xmlns="urn:big">))
        block = @bodies.fetch(:big)
        (megabytes * 1024 * 1024 / block.bytesize).times { chunk.call(block) }
        chunk.call("</getAllResponse></soapenv:Body></soapenv:Envelope>")
        socket.write("0\r\n\r\n")
      end
    end
  end
end

Bench::SOAPClient.main if $PROGRAM_NAME == __FILE__

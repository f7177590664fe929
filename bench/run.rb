# frozen_string_literal: true

# `bundle exec rake bench`: wirebind against the Ruby XML libraries people use
# for SOAP payloads, on one generated JIRA-style getIssues response.
#
# Every contender's output is first compared with Generator.expected (the
# reference built from the generator's draws, never from a parser); one
# mismatch aborts the run before anything is timed. Then each is timed in a
# forked child (so one library's garbage does not bill the next): one
# warm-up run that also counts allocations, then runs until BENCH_SECONDS
# have passed (at least 3, at most 15); the median is reported.
#
# Environment:
#   BENCH_COUNT=1000      issues in the document
#   BENCH_SEED=1          generator seed
#   BENCH_SECONDS=3       timed seconds per contender
#   BENCH_SECTIONS=decode,encode,stream   a subset prints but writes no results
#   STREAM_MB=200         size of the streamed document (0 skips streaming; issue 3 asks for 200)
#   BENCH_WITHOUT_WIREBIND=1  time the peers alone, for work on them while lib/ is broken

lib = File.expand_path("../lib", __dir__)
$LOAD_PATH.unshift(lib) unless $LOAD_PATH.include?(lib) # bundler already put it there
$stdout.sync = true

require "json"
require "rbconfig"
require "tmpdir"
require "etc"
require "wirebind"
require_relative "clock"
require_relative "generator"
require_relative "check"
require_relative "report"
require_relative "peers/nokogiri_xpath"
require_relative "peers/nokogiri_children"
require_relative "peers/nori"
require_relative "peers/shale"
require_relative "peers/happymapper"
require_relative "peers/ox_sax"
require_relative "peers/encoders"

module Bench
  module Run
    COUNT = Integer(ENV.fetch("BENCH_COUNT", "1000"))
    SEED = Integer(ENV.fetch("BENCH_SEED", "1"))
    SECONDS = Float(ENV.fetch("BENCH_SECONDS", "3"))
    SECTIONS = ENV.fetch("BENCH_SECTIONS", "decode,encode,stream").split(",").map(&:to_sym)
    STREAM_MB = Integer(ENV.fetch("STREAM_MB", "200"))
    WITHOUT_WIREBIND = ENV["BENCH_WITHOUT_WIREBIND"] == "1"
    MIN_RUNS = 3
    MAX_RUNS = 15
    # rake bench writes to tmp/bench; rake bench:record to bench/results (tracked).
    RESULTS = ENV.fetch("BENCH_RESULTS") { File.expand_path("../tmp/bench", __dir__) }

    # group: :wirebind, :peer or :baseline. call: input -> output.
    # check: output -> nil, or what is wrong with it; claim: what a nil means.
    Contender = Struct.new(:name, :group, :call, :check, :claim, :note, keyword_init: true)

    module_function

    def main
      abort_unless_wirebind_decodes
      started = clock
      report = Report.new(count: COUNT, seed: SEED, backends: backends, without_wirebind: WITHOUT_WIREBIND)
      puts report.header_text

      xml = Generator.issues_xml(COUNT, seed: SEED)
      expected = Generator.expected(COUNT, seed: SEED)
      report.document_bytes = xml.bytesize
      puts format("document: %d issues, %.2f MB (seed %d)\n\n", COUNT, xml.bytesize / 1e6, SEED)

      decoders = decode_contenders(expected)
      encoders = encode_contenders(expected)

      # Every check before any timing: a wrong answer has no speed.
      check_all("decode", decoders, xml) if SECTIONS.include?(:decode)
      check_all("encode", encoders, expected) if SECTIONS.include?(:encode)

      if SECTIONS.include?(:decode)
        puts "\n== decode (#{COUNT} issues, #{format('%.2f', xml.bytesize / 1e6)} MB, median of timed runs)"
        decoders.each do |c|
          report.add_decode(c, measure(c, xml))
          puts report.decode_line(c.name)
        end
        puts "\n#{report.ratio_text}"
      end

      if SECTIONS.include?(:encode)
        puts "\n== encode (#{COUNT} issues)"
        encoders.each do |c|
          output_bytes = c.call.call(expected).bytesize
          report.add_encode(c, measure(c, expected), output_bytes)
          puts report.encode_line(c.name)
        end
      end

      if SECTIONS.include?(:stream) && STREAM_MB.positive?
        puts "\n== streaming (#{STREAM_MB} MB file, each run in a new process)"
        stream(report, xml.bytesize)
      end

      report.objects_per_record = (Check.objects_in(expected) - 1).fdiv(COUNT) # the list itself is no record's
      unless report.goals.empty?
        puts "\n== goals (issue 3, native backend)"
        puts report.goals_text
      end

      report.elapsed = clock - started
      if SECTIONS.sort == %i[decode encode stream].sort
        report.write(RESULTS)
        puts "\nwrote #{Report::FILES.map { |f| File.join(RESULTS, f) }.join(', ')}"
      else
        puts "\n(partial run: no results written)"
      end
      puts format("total %.0f s", report.elapsed)
    end

    def backends
      return [] if WITHOUT_WIREBIND

      Wirebind.backend == :native ? %i[pure native] : %i[pure]
    end

    def abort_unless_wirebind_decodes
      return if WITHOUT_WIREBIND

      probe = Generator.issues_xml(2, seed: SEED)
      Wirebind::XML.decode(probe, [Issue], at: ISSUES_PATH, backend: :pure)
    rescue StandardError, NotImplementedError => e
      abort "wirebind cannot decode the benchmark document yet (#{e.class}: #{e.message}).\n" \
            "Set BENCH_WITHOUT_WIREBIND=1 to time the peers alone."
    end

    def decode_contenders(expected)
      equal = ->(output) { Check.difference(expected, output) }
      claim = "output == Generator.expected (#{expected.size} issues)"
      list = backends.map do |backend|
        Contender.new(
          name: "wirebind #{backend}", group: :wirebind, check: equal, claim: claim,
          call: ->(xml) { Wirebind::XML.decode(xml, [Issue], at: ISSUES_PATH, backend: backend) },
          note: "Wirebind::XML.decode(xml, [Issue], at:, backend: :#{backend})"
        )
      end
      peers = [
        [Peers::OxSax.new, "Ox.sax_parse with a handler that builds the models"],
        [Peers::NokogiriChildren.new, "Nokogiri DOM, one pass over element children (jiraSOAP 0.9)"],
        [Peers::Shale.new, "Shale mappers (Nokogiri adapter), then models"],
        [Peers::NokogiriXPath.new, "Nokogiri DOM, one XPath per field (jiraSOAP 0.8)"],
        [Peers::Nori.new, "Nori with Savon 2's options, then hashes to models"],
        [Peers::HappyMapper.new, "nokogiri-happymapper classes, then models"]
      ]
      list.concat(peers.map do |peer, note|
        Contender.new(name: peer.name, group: :peer, check: equal, claim: claim, call: peer.method(:decode), note: note)
      end)
      list << Contender.new(
        name: "nokogiri parse only", group: :baseline, note: "Nokogiri::XML(xml): a DOM, no objects (a floor, not a peer)",
        call: ->(xml) { Nokogiri::XML(xml) },
        claim: "root is Envelope, #{expected.size} items",
        check: lambda do |doc|
          items = doc.xpath(Peers::NokogiriChildren::ITEMS, Peers::NokogiriChildren::NAMESPACES).size
          next "root is #{doc.root&.name.inspect}, not Envelope" unless doc.root&.name == "Envelope"

          "#{items} items, expected #{expected.size}" unless items == expected.size
        end
      )
    end

    def encode_contenders(expected)
      reader = Peers::NokogiriChildren.new(items: "/return/item")
      reads_back = ->(xml) { Check.difference(expected, reader.decode(xml)) }
      claim = "output read back by nokogiri children == Generator.expected"
      list = backends.map do |backend|
        Contender.new(
          name: "wirebind #{backend}", group: :wirebind, check: reads_back, claim: claim,
          call: ->(issues) { Wirebind::XML.encode(issues, root: "return", item: "item", backend: backend) },
          note: "Wirebind::XML.encode(issues, root: \"return\", item: \"item\")"
        )
      end
      list + Peers::Encoders::ALL.map do |klass|
        encoder = klass.new
        Contender.new(name: encoder.name, group: :peer, check: reads_back, claim: claim, call: encoder.method(:encode),
                      note: "hand-written #{encoder.name}")
      end
    end

    def check_all(section, contenders, input)
      contenders.each do |c|
        output = c.call.call(input)
        if (problem = c.check.call(output))
          abort "\n#{section}: #{c.name} does not give the expected output, so nothing was timed.\n#{problem}"
        end
        puts "checked #{section}: #{c.name}: #{c.claim}"
      rescue StandardError => e
        abort "\n#{section}: #{c.name} raised #{e.class}: #{e.message}\n  #{e.backtrace.first(8).join("\n  ")}"
      end
    end

    # Runs in a forked child: one run counting allocated objects, then timed
    # runs, each after GC.start so that every run starts from the same heap
    # and pays for its own garbage.
    def measure(contender, input)
      GC.start
      reader, writer = IO.pipe
      pid = fork do
        reader.close
        result =
          begin
            call = contender.call
            # The check in the parent already ran this code once; the counted
            # run below warms this child before anything is timed.
            GC.start
            before = GC.stat(:total_allocated_objects)
            call.call(input)
            allocated = GC.stat(:total_allocated_objects) - before
            times = []
            loop do
              GC.start
              t0 = clock
              call.call(input)
              times << clock - t0
              break if times.size >= MAX_RUNS || (times.size >= MIN_RUNS && times.sum >= SECONDS)
            end
            { times: times, allocated: allocated }
          rescue StandardError => e
            { error: "#{e.class}: #{e.message}" }
          end
        writer.write(Marshal.dump(result))
        writer.close
        exit!(0)
      end
      writer.close
      data = reader.read
      Process.wait(pid)
      result = Marshal.load(data) # rubocop:disable Security/MarshalLoad -- written by our own child, above
      abort "#{contender.name} failed while being timed: #{result[:error]}" if result[:error]

      result
    end

    def stream(report, small_bytes)
      Dir.mktmpdir("wirebind-bench") do |dir|
        path = File.join(dir, "issues.xml")
        per_issue = small_bytes.fdiv(COUNT)
        count = (STREAM_MB * 1e6 / per_issue).ceil
        t0 = clock
        File.open(path, "wb") { |f| Generator.write(f, count: count, seed: SEED) }
        size = File.size(path)
        puts format("generated %d issues, %.1f MB in %.1f s", count, size / 1e6, clock - t0)
        report.stream_document = { issues: count, bytes: size }

        runs = backends.map { |b| ["wirebind #{b}", :wirebind, "wirebind:#{b}"] }
        runs << ["ox sax", :peer, "ox"]
        runs.each do |name, group, what|
          result = stream_run(name, path, what, count)
          # The in-memory case for the goal: the same document, already in a String,
          # through the same each (the 1000-issue decode above triggers no GC at all).
          result[:in_memory_mb_per_s] = stream_run(name, path, "#{what}:string", count)[:mb_per_s] if group == :wirebind
          report.add_stream(name, group, result)
          puts report.stream_line(name)
        end
      end
    end

    # One streaming run in a new process (bench/stream.rb); its JSON result.
    def stream_run(name, path, what, count)
      out = IO.popen([RbConfig.ruby, File.expand_path("stream.rb", __dir__), path, what, count.to_s, SEED.to_s],
                     err: %i[child out], &:read)
      result =
        begin
          JSON.parse(out.lines.last.to_s, symbolize_names: true)
        rescue JSON::ParserError
          {}
        end
      abort "streaming #{name} (#{what}) failed:\n#{out}" unless Process.last_status.success? && result[:ok]

      result
    end

    def clock
      Clock.now
    end
  end
end

Bench::Run.main if $PROGRAM_NAME == __FILE__

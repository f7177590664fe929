# frozen_string_literal: true

# `bundle exec rake bench`: wirebind against the Ruby XML libraries people use
# for SOAP payloads, on one generated JIRA-style getIssues response.
#
# Every contender's output is first compared with Generator.expected (the
# reference built from the generator's draws, never from a parser); one
# mismatch aborts the run before anything is timed. Then every contender of
# a section runs once per round, BENCH_RUNS rounds in a rotating order after
# a warm-up (Bench::Clock.interleaved): the mean CPU time of a run, with the
# garbage collector enabled and the collections inside the timed windows
# counted, is the figure, and the ratios come from the means (the best run,
# GC and allocations per record are printed beside it).
#
# Environment:
#   BENCH_COUNT=1000      issues in the document
#   BENCH_SEED=1          generator seed
#   BENCH_RUNS=10         interleaved rounds per section
#   BENCH_SECTIONS=decode,encode,stream   a subset prints but writes no results
#   STREAM_MB=200         size of the streamed document (0 skips streaming; issue 3 asks for 200)
#   BENCH_WITHOUT_WIREBIND=1  time the peers alone, for work on them while lib/ is broken
#   BENCH_DECODERS="wirebind pure,nokogiri children"  only these decode contenders
#   BENCH_MEANS=path          also write each decode contender's mean CPU seconds there (JSON)

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
    RUNS = Integer(ENV.fetch("BENCH_RUNS", "10"))
    SECTIONS = ENV.fetch("BENCH_SECTIONS", "decode,encode,stream").split(",").map(&:to_sym)
    STREAM_MB = Integer(ENV.fetch("STREAM_MB", "200"))
    WITHOUT_WIREBIND = ENV["BENCH_WITHOUT_WIREBIND"] == "1"
    DECODERS = ENV["BENCH_DECODERS"]&.split(",")
    MEANS = ENV["BENCH_MEANS"]
    # The pure backend is Ruby, like the jiraSOAP technique's mapping: issue 21
    # asks for both figures, without and with YJIT (a child process).
    YJIT_PAIR = ["wirebind pure", "nokogiri children"].freeze
    # rake bench writes to tmp/bench; rake bench:record to bench/results (tracked).
    RESULTS = ENV.fetch("BENCH_RESULTS") { File.expand_path("../tmp/bench", __dir__) }

    # group: :wirebind, :peer or :baseline. call: input -> output.
    # check: output -> nil, or what is wrong with it; claim: what a nil means.
    Contender = Struct.new(:name, :group, :call, :check, :claim, :note, keyword_init: true)

    module_function

    def main
      abort_unless_wirebind_decodes
      started = clock
      report = Report.new(count: COUNT, seed: SEED, backends: backends, runs: RUNS, without_wirebind: WITHOUT_WIREBIND)
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
        title = "decode (#{COUNT} issues, #{format('%.2f', xml.bytesize / 1e6)} MB)"
        measured = measure(title, decoders, xml)
        measured.each { |c, sample| report.add_decode(c, sample) }
        File.write(MEANS, JSON.generate(measured.to_h { |c, sample| [c.name, sample.mean_ns] })) if MEANS
        puts "\n#{report.ratio_text}"
        report.pure_yjit = pure_under_yjit if full_run? && backends.include?(:pure)
      end

      if SECTIONS.include?(:encode)
        measure("encode (#{COUNT} issues)", encoders, expected).each do |c, sample|
          report.add_encode(c, sample, c.call.call(expected).bytesize)
        end
      end

      if SECTIONS.include?(:stream) && STREAM_MB.positive?
        puts "\n== streaming (#{STREAM_MB} MB file, each run in a new process)"
        stream(report, xml.bytesize)
      end

      report.objects_per_record = (Check.objects_in(expected) - 1).fdiv(COUNT) # the list itself is no record's
      unless report.goals.empty?
        puts "\n== goals (issues 3 and 21; native backend unless named)"
        puts report.goals_text
      end

      report.elapsed = clock - started
      if full_run?
        report.write(RESULTS)
        puts "\nwrote #{Report::FILES.map { |f| File.join(RESULTS, f) }.join(', ')}"
      else
        puts "\n(partial run: no results written)"
      end
      puts format("total %.0f s", report.elapsed)
    end

    def full_run?
      SECTIONS.sort == %i[decode encode stream].sort && DECODERS.nil?
    end

    # The pure backend against the jiraSOAP technique again, in a child process
    # started with --yjit (the same rounds, the decode section alone).
    #
    # @return [Float, nil] the technique's mean over pure's; nil without YJIT
    def pure_under_yjit
      return nil unless defined?(RubyVM::YJIT)

      Dir.mktmpdir("wirebind-bench") do |dir|
        means = File.join(dir, "means.json")
        env = { "BENCH_SECTIONS" => "decode", "BENCH_DECODERS" => YJIT_PAIR.join(","), "BENCH_MEANS" => means }
        puts "\n== the pure backend and the jiraSOAP 0.9 technique again, under --yjit"
        out = IO.popen(env, [RbConfig.ruby, "--yjit", __FILE__], err: %i[child out], &:read)
        abort "the --yjit run failed:\n#{out}" unless Process.last_status.success?
        puts out.lines.grep(/ms mean/).join
        pure, technique = JSON.parse(File.read(means)).values_at(*YJIT_PAIR)
        technique / pure
      end
    end

    def backends
      return [] if WITHOUT_WIREBIND

      Wirebind.backend == :native ? %i[native pure] : %i[pure]
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
      list << parse_only_contender(expected)
      DECODERS ? list.select { |c| DECODERS.include?(c.name) } : list
    end

    def parse_only_contender(expected)
      Contender.new(
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

    # Every contender on the same +input+, interleaved (Bench::Clock.report
    # prints the table).
    #
    # @return [Array<(Contender, Bench::Clock::Sample)>]
    def measure(title, contenders, input)
      calls = contenders.to_h { |c| [c.name, -> { c.call.call(input) }] }
      samples = Clock.report(title, calls, runs: RUNS, count: COUNT)
      contenders.map { |c| [c, samples.fetch(c.name)] }
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
          # through the same each.
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

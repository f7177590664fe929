# frozen_string_literal: true

# `ruby bench/json.rb`: wirebind's JSON codecs (the native one, when the
# extension is built, and the pure one) against the json library (the C
# extension every Ruby ships) and Oj, on the generator's 1000 issues written
# as JSON by Wirebind::JSON.encode.
#
# Contenders, decode:
#   wirebind (native)        Wirebind::JSON.decode(json, [Bench::Issue], backend: :native)
#   wirebind (pure)          the same, backend: :pure
#   JSON.parse + mapping     JSON.parse, then a hand-written mapping into the
#                            same models (Time.iso8601, Date.iso8601, exact
#                            decimals through decimal_class: BigDecimal)
#   JSON.parse alone         the baseline: Hashes, strings left unconverted
# and, for reference, wirebind's each (from a StringIO) and its untyped :any.
# and encode:
#   wirebind (native)        Wirebind::JSON.encode(issues, backend: :native)
#   wirebind (pure)          the same, backend: :pure
#   to_h + Oj.dump (compat)  a hand-written to_h (the mapping below) to Hashes,
#                            then Oj.dump(mode: :compat)
#   mapping + JSON.generate  the same Hashes, then JSON.generate
#   JSON.generate alone      the baseline: Hashes prepared beforehand
#
# Every output is first checked (decoders: equal to Generator.expected, offsets
# and classes included; encoders: their text decodes back to it); one mismatch
# aborts before anything is timed. Then every contender runs once per round,
# BENCH_RUNS rounds in a rotating order after a warm-up (Clock.interleaved):
# the mean CPU time of a run, with the garbage collector enabled and the
# collections inside the timed windows counted, is the figure, and ratios to
# the first contender come from the means; the best run, GC count and time
# per run and allocations per issue are printed beside it. CPU time, so that
# other work on a shared machine does not skew the ratios; `ruby --yjit
# bench/json.rb` shows them under YJIT.
# The native backend's goals (issues 4 and 21) are printed at the end with the ratios
# measured.
#
# Environment: BENCH_COUNT=1000, BENCH_SEED=1, BENCH_RUNS=40.

lib = File.expand_path("../lib", __dir__)
$LOAD_PATH.unshift(lib) unless $LOAD_PATH.include?(lib)
$stdout.sync = true

require "json"
require "time"
require "date"
require "bigdecimal"
require "stringio"
require "wirebind"
require "wirebind/json"
begin
  require "oj"
rescue LoadError
  nil # Oj is in the bundle's bench group; without it its row is left out
end
require_relative "clock"
require_relative "generator"
require_relative "check"

module Bench
  # The JSON benchmark.
  module JSONRun
    COUNT = Integer(ENV.fetch("BENCH_COUNT", "1000"))
    SEED = Integer(ENV.fetch("BENCH_SEED", "1"))
    RUNS = Integer(ENV.fetch("BENCH_RUNS", "40"))

    # JSON.generate quotes anything it does not know as its to_s; a decimal is
    # a number, written raw (the json library has no fragment type before 2.10).
    class RawNumber
      def initialize(text)
        @text = text
      end

      def to_json(*)
        @text
      end
    end

    # What a user of the json library writes to get the same models.
    module Mapping
      module_function

      def issues(array)
        array.map { |h| issue(h) }
      end

      def issue(h)
        Issue.new(
          id: h["id"], key: h["key"], summary: h["summary"], description: h["description"],
          type: h["type"], status: h["status"], priority: h["priority"], resolution: h["resolution"],
          assignee: h["assignee"], reporter: h["reporter"], project: h["project"],
          environment: h["environment"], created: time(h["created"]), updated: time(h["updated"]),
          duedate: (d = h["duedate"]) && Date.iso8601(d), votes: h["votes"], watched: h["watched"],
          lang: h["lang"], time_spent: h["time_spent"],
          affects_versions: (h["affects_versions"] || []).map { |v| version(v) },
          fix_versions: (h["fix_versions"] || []).map { |v| version(v) },
          components: (h["components"] || []).map { |c| Component.new(id: c["id"], name: c["name"]) },
          labels: h["labels"] || [],
          custom_field_values: (h["custom_field_values"] || []).map do |f|
            CustomField.new(id: f["id"], key: f["key"], values: f["values"] || [])
          end
        )
      end

      def version(v)
        Version.new(id: v["id"], name: v["name"], archived: v["archived"], released: v["released"],
                    release_date: time(v["release_date"]), sequence: v["sequence"])
      end

      def time(text)
        text && Time.iso8601(text)
      end

      # And back: the Hashes JSON.generate writes the same document from.
      def hashes(issues)
        issues.map do |i|
          {
            "id" => i.id, "key" => i.key, "summary" => i.summary, "description" => i.description,
            "type" => i.type, "status" => i.status, "priority" => i.priority, "resolution" => i.resolution,
            "assignee" => i.assignee, "reporter" => i.reporter, "project" => i.project,
            "environment" => i.environment, "created" => time_text(i.created), "updated" => time_text(i.updated),
            "duedate" => i.duedate&.iso8601, "votes" => i.votes, "watched" => i.watched, "lang" => i.lang,
            # A raw number, written as it stands: JSON.generate would quote a BigDecimal's to_s.
            "time_spent" => i.time_spent && RawNumber.new(i.time_spent.to_s("F")),
            "affects_versions" => i.affects_versions.map { |v| version_hash(v) },
            "fix_versions" => i.fix_versions.map { |v| version_hash(v) },
            "components" => i.components.map { |c| { "id" => c.id, "name" => c.name } },
            "labels" => i.labels,
            "custom_field_values" => i.custom_field_values.map { |f| { "id" => f.id, "key" => f.key, "values" => f.values } }
          }
        end
      end

      def version_hash(v)
        {
          "id" => v.id, "name" => v.name, "archived" => v.archived, "released" => v.released,
          "release_date" => time_text(v.release_date), "sequence" => v.sequence
        }
      end

      def time_text(value)
        value&.xmlschema(value.subsec.zero? ? 0 : 6)
      end
    end

    module_function

    def main
      expected = Generator.expected(COUNT, seed: SEED)
      json = Wirebind::JSON.encode(expected)
      native = Wirebind::JSON.const_defined?(:Native, false)
      yjit = defined?(RubyVM::YJIT) && RubyVM::YJIT.enabled? ? " +YJIT" : ""
      puts format("wirebind %s, Ruby %s%s, json %s, oj %s; %d issues, %.2f MB of JSON (seed %d)",
                  Wirebind::VERSION, RUBY_VERSION, yjit, ::JSON::VERSION, defined?(::Oj) ? ::Oj::VERSION : "-", COUNT,
                  json.bytesize / 1e6, SEED)

      typed = {}
      typed["wirebind (native)"] = -> { Wirebind::JSON.decode(json, [Issue], backend: :native) } if native
      typed["wirebind (pure)"] = -> { Wirebind::JSON.decode(json, [Issue], backend: :pure) }
      typed["JSON.parse + mapping"] = -> { Mapping.issues(::JSON.parse(json, decimal_class: BigDecimal)) }
      streamed = {}
      %i[native pure].each do |backend|
        next if backend == :native && !native

        streamed["wirebind each (#{backend}, StringIO)"] = lambda do
          list = []
          Wirebind::JSON.each(StringIO.new(json), Issue, backend: backend) { |issue| list << issue }
          list
        end
      end
      baseline = { "JSON.parse alone" => -> { ::JSON.parse(json) } }
      untyped = {}
      untyped["wirebind :any (native)"] = -> { Wirebind::JSON.decode(json, :any, backend: :native) } if native
      untyped["wirebind :any (pure)"] = -> { Wirebind::JSON.decode(json, :any, backend: :pure) }

      prepared = Mapping.hashes(expected)
      encoders = {}
      encoders["wirebind (native)"] = -> { Wirebind::JSON.encode(expected, backend: :native) } if native
      encoders["wirebind (pure)"] = -> { Wirebind::JSON.encode(expected, backend: :pure) }
      # use_to_json: Oj writes a RawNumber (a decimal) through its to_json, as JSON.generate does.
      encoders["to_h + Oj.dump (compat)"] = -> { ::Oj.dump(Mapping.hashes(expected), mode: :compat, use_to_json: true) } if defined?(::Oj)
      encoders["mapping + JSON.generate"] = -> { ::JSON.generate(Mapping.hashes(expected)) }
      encoders["JSON.generate alone"] = -> { ::JSON.generate(prepared) }

      check_decoders(typed.merge(streamed), expected)
      check_decoder_baseline(baseline["JSON.parse alone"].call, json)
      untyped.each { |name, call| abort "#{name}: reads differently from JSON.parse" unless call.call == baseline["JSON.parse alone"].call }
      check_encoders(encoders, expected)
      if native && Wirebind::JSON.encode(expected, backend: :native) != Wirebind::JSON.encode(expected, backend: :pure)
        abort "wirebind (native): writes other bytes than wirebind (pure)"
      end

      decode_times = report("decode", typed.merge(baseline).merge(streamed).merge(untyped))
      encode_times = report("encode", encoders)
      goals(decode_times, encode_times) if native
    end

    # The native backend's goals (issue 4's, raised by issue 21: 1.5x JSON.parse,
    # 5x JSON.parse + mapping), with the ratios just measured.
    def goals(decode, encode)
      puts "\n== goals (native backend)"
      native = decode.fetch("wirebind (native)")
      goal("typed decode vs JSON.parse alone (Hashes)", decode.fetch("JSON.parse alone") / native, 1.5)
      goal("typed decode vs JSON.parse + mapping", decode.fetch("JSON.parse + mapping") / native, 5.0)
      oj = encode["to_h + Oj.dump (compat)"]
      goal("encode vs to_h + Oj.dump (compat)", oj / encode.fetch("wirebind (native)"), 1.5) if oj
    end

    def goal(name, ratio, wanted)
      puts format("  %-44s %5.2fx faster (goal %.1fx): %s", name, ratio, wanted, ratio >= wanted ? "met" : "NOT met")
    end

    def check_decoders(decoders, expected)
      decoders.each do |name, call|
        difference = Check.difference(expected, call.call)
        abort "#{name}: decodes differently from the reference:\n#{difference}" if difference
      end
    end

    # JSON.parse alone builds Hashes: check it read the same document.
    def check_decoder_baseline(hashes, json)
      abort "JSON.parse: #{hashes.size} issues" unless hashes.size == COUNT
      abort "JSON.parse: reads differently from Wirebind's :any" unless hashes == Wirebind::JSON.decode(json, :any)
    end

    def check_encoders(encoders, expected)
      encoders.each do |name, call|
        text = call.call
        difference = Check.difference(expected, Wirebind::JSON.decode(text, [Issue]))
        abort "#{name}: writes a document that decodes differently:\n#{difference}" if difference
      end
    end

    # Mean CPU time per decode or encode over RUNS interleaved rounds, the
    # garbage collector enabled and counted (Clock.report); ratios from the means.
    def report(section, contenders)
      Clock.report(section, contenders, runs: RUNS, count: COUNT, unit: "issue").transform_values { |sample| sample.mean_ns / 1e9 }
    end
  end
end

Bench::JSONRun.main if $PROGRAM_NAME == __FILE__

# frozen_string_literal: true

# The regression guard that does not depend on the clock: instructions per
# record of the hot paths (XML decode/encode, JSON decode/encode, the
# serializer, the SOAP envelope read, HPACK), counted by valgrind's callgrind
# on bench/instructions/workload.rb, on both backends (HPACK: native only).
# Only each row's measured window is counted (see the workload), so process
# start-up and input generation are not; the counts repeat within a fraction
# of a percent from run to run, on a loaded machine too.
#
#   ruby bench/instructions.rb            prints the counts beside the budget
#   ruby bench/instructions.rb check      fails when a count exceeds its budget by more than 5%,
#                                         or a budget was raised without a new reason
#   ruby bench/instructions.rb --ref REF  counts another commit (built in a temporary worktree)
#   ruby bench/instructions.rb --rows xml_encode,json_decode --backends native   only these
#
# The budget, bench/instructions.yml, holds per row the figure and the one-line
# reason for it; raising a figure means changing its reason in the same commit.

require "json"
require "yaml"
require "open3"
require "rbconfig"
require "tmpdir"
require_relative "other_commit"

module Bench
  module Instructions
    ROOT = File.expand_path("..", __dir__)
    BUDGET = File.join(ROOT, "bench/instructions.yml")
    WORKLOAD = File.join(ROOT, "bench/instructions/workload.rb")
    TOLERANCE = 0.05
    BACKENDS = %w[native pure].freeze

    module_function

    # @return [Hash{String => Integer}] "backend/row" => instructions per record
    def measure(lib, backends: BACKENDS, rows: nil)
      backends.each_with_object({}) do |backend, counts|
        Dir.mktmpdir("wirebind-callgrind") do |dir|
          out = File.join(dir, "cg.out")
          command = ["valgrind", "--tool=callgrind", "--dump-before=rb_gc_count", "--callgrind-out-file=#{out}",
                     RbConfig.ruby, "-I", lib, WORKLOAD, backend, *rows&.join(",")]
          stdout, stderr, status = Open3.capture3({ "RUBYOPT" => nil, "BUNDLE_GEMFILE" => nil, "WORKLOAD_ISSUES" => nil }, *command)
          abort "callgrind run failed (#{backend}):\n#{stderr}" unless status.success?
          windows = JSON.parse(stdout.lines.last)
          # The last dumps are the rows' windows, an untimed and a measured one
          # each; counted from the end, because Ruby itself calls rb_gc_count
          # too (Class#subclasses does, which the first encode of a model asks)
          # and such calls during start-up add dumps before the first window.
          last = Dir.glob("#{out}.*").map { |path| Integer(path[/\.(\d+)\z/, 1]) }.max
          windows.each_with_index do |window, index|
            total = window_total("#{out}.#{last - (2 * (windows.size - 1 - index))}")
            counts["#{backend}/#{window['row']}"] = (total.to_f / window["records"]).round
          end
        end
      end
    end

    def window_total(path)
      File.foreach(path) { |line| return Integer(line.split.last) if line.start_with?("totals:", "summary:") }
      abort "no total in #{path}"
    end

    def budget(text = File.read(BUDGET))
      YAML.safe_load(text) || {}
    end

    # The budget file of the commit before HEAD, when git has it (a shallow clone may not).
    def previous_budget
      text, status = Open3.capture2("git", "-C", ROOT, "show", "HEAD^:bench/instructions.yml", err: File::NULL)
      status.success? ? budget(text) : {}
    end

    # @return [Array<String>] what is wrong
    def problems(counts, budget, previous)
      wrong = []
      counts.each do |row, count|
        entry = budget[row] or next wrong << "#{row}: #{count} instructions per record, no budget in bench/instructions.yml"
        next unless count > entry.fetch("instructions") * (1 + TOLERANCE)

        wrong << format("%s: %d instructions per record, %+.1f%% over its budget %d (more than %d%%)",
                        row, count, ((count.to_f / entry["instructions"]) - 1) * 100, entry["instructions"], TOLERANCE * 100)
      end
      budget.each do |row, entry|
        wrong << "#{row}: the budget has no reason" if entry["reason"].to_s.strip.empty?
        old = previous[row] or next
        if entry["instructions"] > old["instructions"] && entry["reason"] == old["reason"]
          wrong << "#{row}: budget raised from #{old['instructions']} to #{entry['instructions']} without a new reason"
        end
      end
      wrong
    end

    def print_table(counts, budget)
      puts format("%-22s %14s %14s %8s", "row", "instr/record", "budget", "ratio")
      counts.each do |row, count|
        limit = budget.dig(row, "instructions")
        puts format("%-22s %14d %14s %8s", row, count, limit || "-", limit ? format("%.3f", count.to_f / limit) : "-")
      end
    end

    def main(argv)
      rows = (i = argv.index("--rows")) && argv.slice!(i, 2).last.split(",")
      ref = (i = argv.index("--ref")) && argv.slice!(i, 2).last
      backends = (i = argv.index("--backends")) ? argv.slice!(i, 2).last.split(",") : BACKENDS
      counts = if ref
                 OtherCommit.with_lib(ref) { |lib| measure(lib, backends: backends, rows: rows) }
               else
                 measure(File.join(ROOT, "lib"), backends: backends, rows: rows)
               end
      print_table(counts, budget)
      return unless argv.first == "check"

      wrong = problems(counts, budget, previous_budget)
      abort "instruction budget exceeded:\n  #{wrong.join("\n  ")}" unless wrong.empty?
      puts "instruction counts within budget (+#{(TOLERANCE * 100).round}%)"
    end
  end
end

Bench::Instructions.main(ARGV.dup) if $PROGRAM_NAME == __FILE__

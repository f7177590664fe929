# frozen_string_literal: true

# `rake bench:compare[REF]`: this tree against another commit, row by row.
# REF is built in a temporary git worktree (its C extension compiled there,
# bench/other_commit.rb); then the rows of the instruction guard
# (bench/instructions/workload.rb: XML, JSON, serializer, SOAP read, HPACK)
# run in ROUNDS alternating processes, this tree and REF in turn, each timing
# its rows interleaved with the garbage collector counted (Clock.interleaved,
# RUNS runs). Printed per row: the mean CPU time per record of both, their
# ratio, allocations per record, and the instructions per record of both
# (callgrind, repeatable where the times on a loaded machine are not).
#
# Environment: COMPARE_BACKEND=native (or pure), COMPARE_ROUNDS=4, COMPARE_RUNS=10,
# COMPARE_INSTRUCTIONS=0 to skip the callgrind counts, COMPARE_BASE=REF2 to
# compare two other commits (REF2 in place of this tree), WORKLOAD_ISSUES=1000
# for a bigger document (100 by default).

require "json"
require "open3"
require "rbconfig"
require_relative "other_commit"
require_relative "instructions"

module Bench
  module Compare
    BACKEND = ENV.fetch("COMPARE_BACKEND", "native")
    ROUNDS = Integer(ENV.fetch("COMPARE_ROUNDS", "4"))
    RUNS = Integer(ENV.fetch("COMPARE_RUNS", "10"))
    INSTRUCTIONS = ENV.fetch("COMPARE_INSTRUCTIONS", "1") == "1"

    module_function

    def main(ref, base: ENV.fetch("COMPARE_BASE", nil))
      return OtherCommit.with_lib(base) { |base_lib| compare(base_lib, ref) } if base

      compare(File.join(Instructions::ROOT, "lib"), ref)
    end

    def compare(this_lib, ref)
      OtherCommit.with_lib(ref) do |ref_lib|
        libs = { "this" => this_lib, ref => ref_lib }
        runs = libs.transform_values { [] }
        ROUNDS.times do |round|
          libs.keys.rotate(round % 2).each { |name| runs[name] << cpu_run(libs[name]) }
        end
        counts = libs.transform_values { |lib| Instructions.measure(lib, backends: [BACKEND]) } if INSTRUCTIONS
        print_table(ref, runs, counts)
      end
    end

    def cpu_run(lib)
      output, status = Open3.capture2e({ "RUBYOPT" => nil, "BUNDLE_GEMFILE" => nil, "CPU_RUNS" => RUNS.to_s },
                                       RbConfig.ruby, "-I", lib, Instructions::WORKLOAD, BACKEND)
      abort "#{lib}: the workload failed:\n#{output}" unless status.success?
      JSON.parse(output.lines.last)
    end

    def mean(samples, row, key)
      values = samples.filter_map { |sample| sample.dig(row, key) }
      values.empty? ? nil : values.sum / values.size
    end

    def print_table(ref, runs, counts)
      puts format("%s backend, mean CPU per record over %d processes x %d interleaved runs each (GC counted); ratio = this / %s",
                  BACKEND, ROUNDS, RUNS, ref)
      puts format("%-14s %11s %11s %7s %9s %9s %12s %12s %7s", "row", "this us", "#{ref[0, 8]} us", "ratio",
                  "alloc", "alloc ref", "instr", "instr ref", "ratio")
      this, other = runs.values
      this.first.each_key do |row|
        mine = mean(this, row, "ns")
        theirs = mean(other, row, "ns")
        instr = counts&.values&.map { |c| c["#{BACKEND}/#{row}"] }
        puts format("%-14s %11.2f %11s %7s %9.1f %9s %12s %12s %7s", row, mine / 1e3, theirs ? format("%.2f", theirs / 1e3) : "-",
                    theirs ? format("%.3f", mine / theirs) : "-", mean(this, row, "allocations"),
                    theirs ? format("%.1f", mean(other, row, "allocations")) : "-",
                    instr&.first || "-", instr&.last || "-", instr&.all? ? format("%.3f", instr.first.fdiv(instr.last)) : "-")
      end
    end
  end
end

Bench::Compare.main(ARGV.fetch(0) { abort "usage: ruby bench/compare.rb REF" }) if $PROGRAM_NAME == __FILE__

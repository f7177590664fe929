# frozen_string_literal: true

# `wirebind convert` on a generated ~1 GB SOAP response (BENCH_CONVERT_MB, default
# 1024): the command runs in its own process, reading the file and writing JSON
# Lines; its records are checked against the generator's reference (first, last
# and a sample), then time, MB/s and peak RSS (VmHWM) are printed.
#
#   bundle exec rake bench:convert

lib = File.expand_path("../lib", __dir__)
$LOAD_PATH.unshift(lib) unless $LOAD_PATH.include?(lib)
require "json"
require "fileutils"
require "rbconfig"
require "wirebind"
require_relative "clock"
require_relative "generator"

module Bench
  module Convert
    MB = Integer(ENV.fetch("BENCH_CONVERT_MB", "1024"))
    DIR = File.expand_path("../tmp/bench/convert", __dir__)
    ISSUE_BYTES = 4400 # about, in the generator's documents

    module_function

    def main
      FileUtils.mkdir_p(DIR)
      input = File.join(DIR, "issues.xml")
      output = File.join(DIR, "issues.jsonl")
      count = MB * 1_000_000 / ISSUE_BYTES
      File.open(input, "wb") { |io| Generator.write(io, count: count, seed: 1) } unless File.exist?(input) && File.size(input) > (MB - 8) * 1_000_000
      count = Integer(File.read(input, 4096)[/arrayType="ns2:RemoteIssue\[(\d+)\]"/, 1])
      bytes = File.size(input)

      script = <<~RUBY
        require "wirebind/cli"
        require #{File.expand_path('models', __dir__).dump}
        status = Wirebind::CLI.run(ARGV)
        $stderr.puts "VmHWM " + File.read("/proc/self/status")[/^VmHWM:\\s+(\\d+) kB/, 1]
        exit status
      RUBY
      started = Clock.now
      reader, writer = IO.pipe
      pid = Process.spawn(RbConfig.ruby, "-I#{File.expand_path('../lib', __dir__)}", "-e", script, "--",
                          "convert", "--type", "Bench::Issue", "--at", ISSUES_PATH, "--to", "jsonl", input, output, err: writer)
      writer.close
      _, status = Process.wait2(pid)
      seconds = Clock.now - started
      report = reader.read
      abort "wirebind convert failed: #{report}" unless status.success?
      peak_kb = Integer(report[/VmHWM (\d+)/, 1])

      check(output, count)
      puts format("wirebind convert (%s backend): %d issues, %.0f MB of XML -> JSON Lines in %.1f s (%.0f MB/s, %.0f records/s); peak RSS %.0f MiB",
                  Wirebind.backend, count, bytes / 1e6, seconds, bytes / 1e6 / seconds, count / seconds, peak_kb / 1024.0)
    ensure
      FileUtils.rm_rf(DIR) unless ENV["BENCH_KEEP"]
    end

    # The first, last and every 1000th record equal the generator's reference.
    def check(output, count)
      seen = 0
      File.foreach(output) do |line|
        if seen.zero? || (seen % 1000).zero? || seen == count - 1
          expected = Generator.expected_issue(seen, seed: 1)
          abort "record #{seen} differs from the reference" unless Wirebind::JSON.decode(line, Issue) == expected
        end
        seen += 1
      end
      abort "#{seen} records written, expected #{count}" unless seen == count
    end
  end
end

Bench::Convert.main

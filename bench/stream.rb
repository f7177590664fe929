# frozen_string_literal: true

# One streaming run, in a process of its own so that its peak RSS is its own:
#   ruby bench/stream.rb FILE wirebind:pure|wirebind:native|ox COUNT SEED
# Prints one JSON line last. The records are counted, every 50th-or-so and
# the last are kept and compared with the generator's reference afterwards
# (untimed); nothing else is retained, so a streaming decoder should hold
# memory flat.

lib = File.expand_path("../lib", __dir__)
$LOAD_PATH.unshift(lib) unless $LOAD_PATH.include?(lib) # bundler already put it there

require "json"
require "wirebind"
require_relative "generator"
require_relative "check"
require_relative "clock"
require_relative "peers/ox_sax"

module Bench
  module Stream
    module_function

    def main(path, what, count, seed)
      every = [count / 50, 1].max
      samples = {}
      seen = 0
      last = nil
      on_issue = lambda do |issue|
        samples[seen] = issue if (seen % every).zero?
        last = issue
        seen += 1
      end

      # "wirebind:<backend>:string" reads the file into a String first (not timed).
      string = File.binread(path) if what.end_with?(":string")
      GC.start
      rss_before = status("VmRSS")
      hwm_before = status("VmHWM")
      t0 = Clock.now
      File.open(path, "rb") do |io|
        case what
        when /\Awirebind:(pure|native)(:string)?\z/
          Wirebind::XML.each(string || io, Issue, at: STREAM_PATH, backend: Regexp.last_match(1).to_sym, &on_issue)
        when "ox" then Peers::OxSax.new.each(io, &on_issue)
        else raise ArgumentError, "unknown contender #{what.inspect}"
        end
      end
      seconds = Clock.now - t0
      hwm_after = status("VmHWM")

      problem = verify(seen, count, samples, last, seed)
      bytes = File.size(path)
      puts JSON.generate(
        ok: problem.nil?, problem: problem, issues: seen, bytes: bytes, seconds: seconds,
        mb_per_s: bytes / 1e6 / seconds, records_per_s: seen / seconds,
        rss_before: rss_before, hwm_before: hwm_before, hwm_after: hwm_after,
        hwm_growth: hwm_after - hwm_before
      )
    end

    def verify(seen, count, samples, last, seed)
      return "#{seen} issues streamed, expected #{count}" unless seen == count

      samples.merge(count - 1 => last).each do |index, issue|
        found = Check.first_difference(Generator.expected_issue(index, seed: seed), issue, "[#{index}]")
        return found if found
      end
      nil
    end

    # Linux reports sizes in kB; this is where peak RSS (VmHWM) lives.
    def status(key)
      File.read("/proc/self/status")[/^#{key}:\s+(\d+) kB/, 1].to_i * 1024
    end
  end
end

if $PROGRAM_NAME == __FILE__
  path, what, count, seed = ARGV
  Bench::Stream.main(path, what, Integer(count), Integer(seed))
end

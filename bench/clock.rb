# frozen_string_literal: true

module Bench
  # The one clock of every benchmark: monotonic wall time. Wall time, not CPU
  # time, because the network benchmarks (SOAP, HTTP/2) spend part of each call
  # in another process or waiting on a socket, and every contender of a
  # benchmark is measured the same way in the same run.
  module Clock
    module_function

    # @return [Float] seconds on the monotonic clock
    def now
      Process.clock_gettime(Process::CLOCK_MONOTONIC)
    end

    # The exception: CPU nanoseconds of this process, for in-process
    # micro-benchmarks on one thread (bench/binary.rb's frame headers, framers,
    # HPACK, records), where the wall clock on a shared machine mostly counts
    # the time other processes held the CPU (4-8x the CPU time there).
    #
    # @return [Integer]
    def cpu_ns
      Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID, :nanosecond)
    end
  end
end

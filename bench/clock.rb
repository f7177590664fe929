# frozen_string_literal: true

module Bench
  # The clocks of every benchmark, and the one rule for choosing between them:
  #
  # Wall time (monotonic, {now}), except for in-process, single-thread work
  # measured on its own, which is reported as this process's CPU time
  # ({cpu_ns}): bench/binary.rb's micro-benchmarks (frame headers, framers,
  # HPACK, records, nanoseconds each) and bench/wsdl.rb's one-shot load,
  # generate and load-the-generated-code (seconds, printed beside the wall
  # time, {wall_and_cpu}). On a shared machine the wall clock of such work
  # mostly counts the time other processes held the CPU (4-8x the CPU time
  # there). Everything else is wall time: the network benchmarks (SOAP,
  # HTTP/2) spend part of each call in another process or waiting on a
  # socket, and the codec and serializer benchmarks compare every contender
  # in the same run, as ratios, so the load weighs on all of them alike.
  # README.md ("Development") states the same rule.
  module Clock
    module_function

    # @return [Float] seconds on the monotonic clock
    def now
      Process.clock_gettime(Process::CLOCK_MONOTONIC)
    end

    # CPU nanoseconds of this process (the exception above).
    #
    # @return [Integer]
    def cpu_ns
      Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID, :nanosecond)
    end

    # Runs the block; the wall and CPU seconds it took (the exception above,
    # with the wall time beside it).
    #
    # @return [Array(Float, Float)]
    def wall_and_cpu
      wall = now
      cpu = cpu_ns
      yield
      [now - wall, (cpu_ns - cpu) / 1e9]
    end
  end
end

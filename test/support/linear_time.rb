# frozen_string_literal: true

module Wirebind
  # Tests that work grows linearly with the input: the time at 4N against the
  # time at N, never an absolute time. Linear work gives about 4; quadratic
  # work 16. Each size is timed a few times and the fastest run kept (CPU time
  # of this process), so that another process on the machine does not decide.
  module LinearTime
    # Above this, 4N took too long against N: quadratic, or close to it.
    MAX_RATIO = 8.0

    # @param name [String] what is measured, for the failure message
    # @param small [Integer] N
    # @yieldparam n [Integer] the size to work on (N or 4N); the block builds its
    #   input first and returns a lambda that does the work to time
    def assert_linear_time(name, small, runs: 5, &build)
      times = fastest_times(small, runs, &build)
      ratio = times[1] / [times[0], 1e-6].max
      # A ratio over the bound is measured once more and the fastest runs of both
      # kept: a pause of the machine or the JVM (JRuby's JIT and GC run on threads
      # of their own) passes, quadratic work (about 16x) fails again.
      if ratio >= MAX_RATIO
        times = fastest_times(small, runs, &build).zip(times).map(&:min)
        ratio = times[1] / [times[0], 1e-6].max
      end
      assert_operator ratio, :<, MAX_RATIO,
                      format("%s: %.1f ms at N=%d, %.1f ms at 4N: %.1fx (linear is about 4x)", name, times[0] * 1000, small, times[1] * 1000, ratio)
      ratio
    end

    # @return [Array(Float, Float)] the fastest of +runs+ timings at N and at 4N
    def fastest_times(small, runs)
      [small, small * 4].map do |n|
        work = yield(n)
        work.call # warm-up: caches, plans, generated methods
        Array.new(runs) do
          GC.start # each run starts from the same heap, not from the last one's garbage
          cpu_time(&work)
        end.min
      end
    end

    # The CPU time of this process. JRuby has no CPU clock for
    # Process.clock_gettime, and its Process.times counts in 10 ms steps: there
    # the JVM counts this thread's CPU time, in nanoseconds (the JIT compiles on
    # threads of its own).
    if defined?(Process::CLOCK_PROCESS_CPUTIME_ID)
      def cpu_time
        start = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID)
        yield
        Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) - start
      end
    else
      require "java"
      THREADS = java.lang.management.ManagementFactory.getThreadMXBean

      def cpu_time
        start = THREADS.getCurrentThreadCpuTime
        yield
        (THREADS.getCurrentThreadCpuTime - start) / 1e9
      end
    end
  end
end

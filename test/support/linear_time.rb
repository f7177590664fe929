# frozen_string_literal: true

module Wirebind
  # Linear-time checks by ratio, never by absolute time: the work at size 4N must
  # cost less than +bound+ times the work at size N (4 when linear, 16 when
  # quadratic; the default 8 leaves room for a loaded machine). Work too quick to
  # time well is repeated (the same number of times at both sizes) until the
  # small size takes MIN_SECONDS; the sizes are timed in turn a few times, after a GC,
  # and the fastest run of each kept, which filters out pauses.
  module LinearTime
    MIN_SECONDS = 0.02

    def assert_linear_growth(what, small, large, bound: 8.0, runs: 5)
      repeat = 1
      repeat *= 2 while repeat < 1024 && timed(repeat, &small) < MIN_SECONDS
      # Interleaved, so that a burst of load elsewhere falls on both sizes alike.
      times = Array.new(runs) { [timed(repeat, &small), timed(repeat, &large)] }
      small_time = times.map(&:first).min
      large_time = times.map(&:last).min
      ratio = large_time / small_time
      puts format("\n%s: %.4fs at N, %.4fs at 4N (x%.1f, %d calls each)", what, small_time, large_time, ratio, repeat) if ENV["VERBOSE"]
      assert_operator ratio, :<, bound, format("%s: 4N took %.1fx the time of N (%.4fs, %.4fs): not linear", what, ratio, large_time, small_time)
    end

    private

    def fastest(runs)
      (1..runs).map { yield }.min
    end

    def timed(repeat, &work)
      GC.start # a collection owed by earlier work is not this run's cost
      start = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      repeat.times { work.call }
      Process.clock_gettime(Process::CLOCK_MONOTONIC) - start
    end
  end
end

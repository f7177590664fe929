# frozen_string_literal: true

module Wirebind
  # Linear-time checks by ratio, never by absolute time: the work at size 4N must
  # cost less than +bound+ times the work at size N (4 when linear, 16 when
  # quadratic; the default 8 leaves room for a loaded machine). Each size is timed
  # a few times and the fastest run kept, which filters out pauses.
  module LinearTime
    def assert_linear_growth(what, small, large, bound: 8.0, runs: 3)
      small_time = fastest(runs) { small.call }
      large_time = fastest(runs) { large.call }
      ratio = large_time / small_time
      puts format("\n%s: %.4fs at N, %.4fs at 4N (x%.1f)", what, small_time, large_time, ratio) if ENV["VERBOSE"]
      assert_operator ratio, :<, bound, format("%s: 4N took %.1fx the time of N (%.4fs, %.4fs): not linear", what, ratio, large_time, small_time)
    end

    private

    def fastest(runs)
      (1..runs).map do
        start = Process.clock_gettime(Process::CLOCK_MONOTONIC)
        yield
        Process.clock_gettime(Process::CLOCK_MONOTONIC) - start
      end.min
    end
  end
end

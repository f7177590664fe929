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
  end
end

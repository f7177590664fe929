# frozen_string_literal: true

module Wirebind
  module HTTP2
    # Closes the socket of a connection whose write has been blocked longer
    # than its write timeout (a peer that stops reading: unanswered PINGs and
    # SETTINGS pile up, or a body is never taken). Ruby 3.1 has no
    # +IO#timeout+, and a watch from outside covers +IO#write+ and
    # +IO.copy_stream+ alike at the cost of two assignments a write: one
    # thread per process, started with the first connection, looks at the
    # connections being served every {INTERVAL} seconds; the writer blocked on
    # the closed socket gets an IOError and its connection ends.
    #
    # @api private
    module WriteWatchdog
      INTERVAL = 0.1
      @watched = {} # Connection => true
      @lock = Mutex.new
      @thread = nil

      class << self
        # Watches connection while the block runs.
        def watch(connection)
          @lock.synchronize do
            @watched[connection] = true
            @thread = nil unless @thread&.alive?
            @thread ||= Thread.new { run }
          end
          yield
        ensure
          @lock.synchronize { @watched.delete(connection) }
        end

        private

        def run
          Thread.current.name = "wirebind-h2-write-watchdog"
          Thread.current.report_on_exception = false
          loop do
            sleep INTERVAL
            now = Process.clock_gettime(Process::CLOCK_MONOTONIC)
            @lock.synchronize { @watched.keys }.each { |connection| connection.abort_stalled_write(now) }
          end
        end
      end
    end
  end
end

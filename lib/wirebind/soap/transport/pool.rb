# frozen_string_literal: true

module Wirebind
  module SOAP
    module Transport
      # A bounded pool of connections that threads share, for the adapters: at
      # most +size+ open, an idle one reused first, a thread waiting when all
      # are in use, at most until the deadline it gives (then {PoolTimeoutError}).
      # Idle connections wait in a Thread::Queue, taken without waiting (the
      # common case costs no lock); a thread that must wait sleeps on a
      # ConditionVariable, signalled when a connection comes back or is closed
      # (Ruby 3.1's Queue#pop takes no timeout).
      #
      # A pool belongs to one process: the first checkout in a forked child
      # forgets every connection the parent had (they are the parent's sockets:
      # a child reading from one takes the parent's answers, and closing one
      # there could end the parent's TLS session), and opens its own.
      #
      # @api private
      class Pool
        # @param size [Integer] most connections open at once
        # @param open [#call] opens a connection
        # @param usable [#call] whether an idle connection may carry a request
        # @param close [#call] closes a connection (never raises)
        def initialize(size, open:, usable:, close:)
          raise ArgumentError, "pool_size must be a positive Integer, not #{size.inspect}" unless size.is_a?(Integer) && size.positive?

          @size = size
          @open_connection = open
          @usable = usable
          @close_connection = close
          @idle = Thread::Queue.new
          @open = 0
          @lock = Mutex.new
          @available = ConditionVariable.new
          @waiting = 0
          @closed = false
          @pid = Process.pid
        end

        # @param wait_until [Float, nil] the monotonic clock's time after which
        #   waiting for a connection fails; nil: no limit
        # @return [Object] a connection for this thread alone, until {#checkin}
        # @raise [ConnectionError] the pool is closed
        # @raise [PoolTimeoutError] every connection stayed in use until +wait_until+
        def checkout(wait_until = nil)
          forget_parents_connections unless @pid == Process.pid
          loop do
            raise ConnectionError, "the client is closed" if @closed

            connection = take_idle
            if connection.nil?
              break if reserve

              wait_for_room(wait_until)
              next
            end
            return connection if @usable.call(connection)

            discard(connection)
          end
          begin
            @open_connection.call
          rescue Exception # rubocop:disable Lint/RescueException -- the room is given back, whatever went wrong
            release
            raise
          end
        end

        # Gives a connection back: kept for the next request, or closed.
        def checkin(connection, keep)
          if keep && !@closed
            @idle << connection
            @lock.synchronize { @available.signal } if @waiting.positive? # a waiter counts itself before it looks
          else
            discard(connection)
          end
        end

        # Closes the idle connections; those in use close when given back.
        def close
          @closed = true
          while (connection = take_idle)
            discard(connection)
          end
          @lock.synchronize { @available.broadcast } # waiting threads see the pool closed
          nil
        end

        private

        # In a forked child: a fresh queue, count and lock (another thread of
        # the parent may have held the lock at the fork). The parent's
        # connections are left to the garbage collector, never closed here.
        def forget_parents_connections
          @idle = Thread::Queue.new
          @open = 0
          @lock = Mutex.new
          @available = ConditionVariable.new
          @waiting = 0
          @pid = Process.pid
        end

        # Sleeps until a connection may be had (one idle, room to open one, or
        # the pool closed).
        def wait_for_room(wait_until)
          @lock.synchronize do
            @waiting += 1
            begin
              until @closed || !@idle.empty? || @open < @size
                left = wait_until && (wait_until - Process.clock_gettime(Process::CLOCK_MONOTONIC))
                raise PoolTimeoutError, "all #{@size} connections of the pool stayed in use (pool_timeout)" if left && !left.positive?

                @available.wait(@lock, left)
              end
            ensure
              @waiting -= 1
            end
          end
        end

        def reserve
          @lock.synchronize do
            next false unless @open < @size

            @open += 1
            true
          end
        end

        def discard(connection)
          @close_connection.call(connection)
          release
        end

        def release
          @lock.synchronize do
            @open -= 1
            @available.signal
          end
        end

        def take_idle
          loop do
            return nil if @idle.empty?

            connection = @idle.pop(true)
            return connection if connection
          end
        rescue ThreadError # another thread took the last one meanwhile
          nil
        end
      end
    end
  end
end

# frozen_string_literal: true

module Wirebind
  module SOAP
    module Transport
      # A bounded pool of connections that threads share, for the adapters: at
      # most +size+ open, an idle one reused first, a thread waiting when all
      # are in use. Idle connections wait in a Thread::Queue, whose handoff to a
      # waiting thread costs much less than a Mutex and ConditionVariable's when
      # many threads share few connections; a nil in the queue says that one was
      # closed, so a waiting thread may open another.
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
          @closed = false
          @pid = Process.pid
        end

        # @return [Object] a connection for this thread alone, until {#checkin}
        # @raise [ConnectionError] the pool is closed
        def checkout
          forget_parents_connections unless @pid == Process.pid
          loop do
            raise ConnectionError, "the client is closed" if @closed

            connection = take_idle
            if connection.nil?
              break if reserve

              connection = @idle.pop
              next if connection.nil? # one was closed: there may be room now
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
          @idle << nil # wakes a waiting thread, which sees the pool closed
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
          @pid = Process.pid
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
          @lock.synchronize { @open -= 1 }
          @idle << nil
        end

        def take_idle
          loop do
            return nil if @idle.empty?

            connection = @idle.pop(true)
            return connection if connection # a nil marker found here is not a waiter's: skip it
          end
        rescue ThreadError # another thread took the last one meanwhile
          nil
        end
      end
    end
  end
end

# frozen_string_literal: true

require_relative "soap_test_support"

# The connection pool the adapters share.
class SOAPPoolTest < Minitest::Test
  Pool = Wirebind::SOAP::Transport::Pool

  Conn = Struct.new(:id, :usable, :closed)

  def pool(size, opened, closed)
    lock = Mutex.new
    Pool.new(size,
             open: -> { lock.synchronize { Conn.new(opened.size, true, false).tap { |c| opened << c } } },
             usable: lambda(&:usable),
             close: ->(c) { lock.synchronize { c.closed = true; closed << c } })
  end

  def test_one_thread_reuses_one_connection
    opened = []
    p = pool(5, opened, [])
    20.times { p.checkin(p.checkout, true) }
    assert_equal 1, opened.size
  end

  def test_never_more_than_size_open_among_sixteen_threads
    opened = []
    closed = []
    p = pool(3, opened, closed)
    in_use = 0
    peak = 0
    lock = Mutex.new
    threads = Array.new(16) do |n|
      Thread.new do
        50.times do |i|
          c = p.checkout
          lock.synchronize { peak = [peak, in_use += 1].max }
          Thread.pass
          lock.synchronize { in_use -= 1 }
          p.checkin(c, (n + i) % 7 != 0) # now and then a connection is dropped
        end
      end
    end
    threads.each { |t| t.join(10) }
    assert_operator peak, :<=, 3
    assert_operator opened.size - closed.size, :<=, 3
    refute_empty closed
  end

  def test_unusable_idle_connections_are_replaced
    opened = []
    closed = []
    p = pool(2, opened, closed)
    c = p.checkout
    p.checkin(c, true)
    c.usable = false
    d = p.checkout
    refute_same c, d
    assert_equal [c], closed
  end

  def test_close_wakes_a_waiting_thread
    p = pool(1, [], [])
    c = p.checkout
    waiter = Thread.new do
      Thread.current.report_on_exception = false # its exception is the one asserted below
      p.checkout
    end
    sleep 0.05
    p.close
    assert_raises(Wirebind::SOAP::ConnectionError) { waiter.value }
    p.checkin(c, true)
  end

  def test_a_failed_open_gives_its_room_back
    attempts = 0
    p = Pool.new(1, open: -> { (attempts += 1) == 1 ? raise(Wirebind::SOAP::ConnectionError, "refused") : :conn },
                    usable: ->(_) { true }, close: ->(_) {})
    assert_raises(Wirebind::SOAP::ConnectionError) { p.checkout }
    assert_equal :conn, p.checkout
  end
end

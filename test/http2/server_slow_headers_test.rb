# frozen_string_literal: true

require "test_helper"
require "socket"
require "timeout"
require "support/h2_peer"
require "wirebind/http2/server"

# Slowloris: a request head dripped a byte at a time keeps resetting the idle
# timeout, so it has a deadline of its own (+header_timeout+, 1 s here): an
# HTTP/2 header block (HEADERS without END_HEADERS then CONTINUATION, or one
# HEADERS frame's bytes) and an HTTP/1.1 request head.
class HTTP2ServerSlowHeadersTest < Minitest::Test
  Frame = Wirebind::HTTP2::Frame
  TIMEOUT = 1
  DRIP = 0.2 # seconds between two bytes
  BOUND = TIMEOUT + 2 # seconds the cut may take, however long the drip would go on

  def setup
    @server = Wirebind::HTTP2::Server.new(->(_env) { [200, {}, ["ok"]] }, port: 0, log: StringIO.new, header_timeout: TIMEOUT)
    @thread = Thread.new { @server.run }
    @sockets = []
  end

  def teardown
    @dripper&.kill&.join
    @sockets.each { |socket| socket.close unless socket.closed? }
    @server.stop
    @thread.join(10)
  end

  def connect
    TCPSocket.new("127.0.0.1", @server.port).tap { |socket| @sockets << socket }
  end

  def now = Process.clock_gettime(Process::CLOCK_MONOTONIC)

  # Writes one piece every DRIP seconds in a thread (until the server cuts it).
  def drip(pieces)
    @dripper = Thread.new do
      pieces.each do |piece|
        sleep DRIP
        yield piece
      end
    rescue IOError, SystemCallError
      nil
    end
  end

  def test_a_header_block_dripped_in_continuation_frames_is_cut
    peer = H2Peer.new(socket: connect)
    whole = peer.block("/drip", [["x-a", "1" * 60]]) # about 80 bytes: 16 s of drip
    peer.frame(Frame::HEADERS, Frame::END_STREAM, 1, whole.byteslice(0, 1))
    started = now
    drip((1...whole.bytesize).map { |i| whole.byteslice(i, 1) }) { |byte| peer.frame(Frame::CONTINUATION, 0, 1, byte) }
    assert_equal :ENHANCE_YOUR_CALM, peer.goaway_code
    assert_operator now - started, :<, BOUND
  end

  def test_one_headers_frame_dripped_a_byte_at_a_time_is_cut
    peer = H2Peer.new(socket: connect)
    whole = peer.block("/drip", [["x-a", "1" * 60]])
    bytes = [whole.bytesize >> 16, whole.bytesize & 0xffff, Frame::HEADERS, Frame::END_HEADERS | Frame::END_STREAM, 1].pack("CnCCN") + whole
    started = now
    drip(bytes.chars) { |byte| peer.socket.write(byte) }
    assert_equal :ENHANCE_YOUR_CALM, peer.goaway_code
    assert_operator now - started, :<, BOUND
  end

  def test_an_http1_request_head_dripped_a_byte_at_a_time_is_cut
    socket = connect
    socket.write("GET / HTTP/1.1\r\n")
    started = now
    drip(("x-a: #{'1' * 60}\r\n" * 2).chars) { |byte| socket.write(byte) }
    received = +""
    Timeout.timeout(BOUND + 5) do
      loop { received << socket.readpartial(4096) }
    rescue EOFError, Errno::ECONNRESET
      nil
    end
    assert_operator now - started, :<, BOUND
    assert_match(%r{\AHTTP/1.1 408 }, received)
  end

  def test_a_head_sent_at_a_normal_pace_is_served
    socket = connect
    socket.write("GET / HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n")
    assert_match(%r{\AHTTP/1.1 200 .*ok\z}m, Timeout.timeout(10) { socket.read })
  end

  # The preface and the first SETTINGS frame dripped: the same deadline from their first byte.
  def test_a_preface_and_settings_dripped_a_byte_at_a_time_are_cut
    [Wirebind::HTTP2::Connection::PREFACE.byteslice(0, 1), Wirebind::HTTP2::Connection::PREFACE].each do |sent|
      socket = connect
      socket.write(sent) # a first byte that makes it HTTP/2, or the whole preface
      rest = sent.bytesize == 1 ? Wirebind::HTTP2::Connection::PREFACE.byteslice(1..) : [6, 0, Frame::SETTINGS, 0, 0, 3, 100].pack("CnCCNnN")
      started = now
      drip(rest.chars) { |byte| socket.write(byte) }
      Timeout.timeout(BOUND + 5) do
        loop { socket.readpartial(4096) }
      rescue EOFError, Errno::ECONNRESET
        nil
      end
      assert_operator now - started, :<, BOUND, "#{sent.bytesize} byte(s) sent first"
      @dripper.kill.join
    end
  end
end

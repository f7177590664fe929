# frozen_string_literal: true

require "test_helper"
require "fileutils"
require "tmpdir"
require "support/h2_peer"

# Wirebind::HTTP2::Connection against hand-made frames over a socket pair:
# the HPACK state in step whatever happens to a stream, streams forgotten
# however they close, the limits, and RFC 9113 section 8's request rules.
class H2ConnectionTest < Minitest::Test
  Frame = Wirebind::HTTP2::Frame

  def setup
    @peers = []
  end

  def teardown
    @peers.each(&:close)
  end

  def peer(**options)
    H2Peer.new(**options).tap { |peer| @peers << peer }
  end

  # ---- HPACK in step ----

  # The reproduction of the mix-up: a HEADERS frame refused before its block
  # was decoded left the client's dynamic table one entry ahead of the server's.
  def test_a_self_dependent_headers_frame_is_decoded_before_its_stream_is_reset
    c = peer
    c.request(1, "/sub/nested.txt")
    assert_equal [:body, "/sub/nested.txt"], c.outcome(1)
    priority = [3, 15].pack("NC") # depends on itself
    c.frame(Frame::HEADERS, Frame::END_HEADERS | Frame::END_STREAM | Frame::PRIORITY_FLAG, 3, priority + c.block("/small.txt"))
    assert_equal %i[reset PROTOCOL_ERROR], c.outcome(3)
    c.request(5, "/small.txt")
    assert_equal [:body, "/small.txt"], c.outcome(5)
    c.request(7, "/sub/nested.txt")
    assert_equal [:body, "/sub/nested.txt"], c.outcome(7)
  end

  def test_headers_on_a_half_closed_stream_are_decoded_before_the_reset
    c = peer
    c.request(1, "/hold")
    c.frame(Frame::HEADERS, Frame::END_HEADERS | Frame::END_STREAM, 1, c.block("/small.txt", [%w[x-new entry]]))
    assert_equal %i[reset STREAM_CLOSED], c.outcome(1)
    c.request(3, "/small.txt", [%w[x-new entry]])
    assert_equal [:body, "/small.txt"], c.outcome(3)
    assert_equal [%w[x-new entry]], c.handler.requests.size.times.map { c.handler.requests.pop }.last[1].last(1)
  end

  def test_a_refused_stream_with_continuation_is_decoded_before_it_is_refused
    c = peer(max_concurrent_streams: 1)
    c.request(1, "/hold")
    whole = c.block("/refused", [["x-a", "1" * 100]])
    c.frame(Frame::HEADERS, Frame::END_STREAM, 3, whole.byteslice(0, 10))
    c.frame(Frame::CONTINUATION, Frame::END_HEADERS, 3, whole.byteslice(10..))
    assert_equal %i[reset REFUSED_STREAM], c.outcome(3)
    c.frame(Frame::RST_STREAM, 0, 1, [8].pack("N"))
    c.request(5, "/refused", [["x-a", "1" * 100]])
    assert_equal [:body, "/refused"], c.outcome(5)
  end

  def test_an_undecodable_block_is_a_compression_error_even_on_a_refused_stream
    c = peer(max_concurrent_streams: 1)
    c.request(1, "/hold")
    c.frame(Frame::HEADERS, Frame::END_HEADERS | Frame::END_STREAM, 3, "\xff\xff\xff\xff\x0f".b)
    assert_equal :COMPRESSION_ERROR, c.goaway_code
  end

  # ---- streams forgotten ----

  def test_streams_closed_by_data_trailers_or_reset_are_forgotten
    c = peer(max_concurrent_streams: 4)
    id = 1
    300.times do |i|
      c.request(id, "/p#{i}", body: true)
      case i % 3
      when 0 then c.frame(Frame::DATA, Frame::END_STREAM, id, "body")
      when 1 then c.frame(Frame::HEADERS, Frame::END_HEADERS | Frame::END_STREAM, id, c.encoder.encode([%w[x-trailer t]]))
      else c.frame(Frame::DATA, 0, id, "body")
           c.frame(Frame::DATA, Frame::END_STREAM, id, "")
      end
      assert_equal [:body, "/p#{i}"], c.outcome(id), "request #{i}"
      id += 2
    end
    10.times do
      c.request(id, "/hold")
      c.frame(Frame::RST_STREAM, 0, id, [8].pack("N"))
      id += 2
    end
    c.request(id, "/last")
    assert_equal [:body, "/last"], c.outcome(id)
  end

  # ---- request validation (RFC 9113 sections 8.1 to 8.3) ----

  def test_malformed_requests_are_stream_errors_and_the_connection_goes_on
    c = peer
    id = 1
    H2Peer::MALFORMED.each do |label, headers|
      c.frame(Frame::HEADERS, Frame::END_HEADERS | Frame::END_STREAM, id, c.encoder.encode(headers))
      assert_equal %i[reset PROTOCOL_ERROR], c.outcome(id), label
      id += 2
    end
    c.request(id, "/fine", [%w[te trailers]])
    assert_equal [:body, "/fine"], c.outcome(id)
    assert_equal 1, c.handler.requests.size, "no malformed request reached the handler"
  end

  def test_a_body_unlike_its_content_length_is_a_stream_error
    c = peer
    c.request(1, "/short", [%w[content-length 5]], body: true)
    c.frame(Frame::DATA, Frame::END_STREAM, 1, "abc")
    assert_equal :PROTOCOL_ERROR, c.reset_code(1)
    c.request(3, "/long", [%w[content-length 2]], body: true)
    c.frame(Frame::DATA, 0, 3, "abc")
    assert_equal :PROTOCOL_ERROR, c.reset_code(3)
    c.request(5, "/exact", [%w[content-length 3]], body: true)
    c.frame(Frame::DATA, Frame::END_STREAM, 5, "abc")
    assert_equal [:body, "/exact"], c.outcome(5)
  end

  def test_pseudo_headers_in_trailers_are_a_stream_error
    c = peer
    c.request(1, "/hold", body: true)
    c.frame(Frame::HEADERS, Frame::END_HEADERS | Frame::END_STREAM, 1, c.encoder.encode([[":path", "/x"]]))
    assert_equal %i[reset PROTOCOL_ERROR], c.outcome(1)
  end

  def test_the_first_frame_must_be_settings
    c = peer(preface: false)
    c.socket.write(H2Peer::PREFACE)
    c.frame(Frame::PING, 0, 0, "12345678")
    assert_equal :PROTOCOL_ERROR, c.goaway_code
  end

  # Section 5.1.1: a new stream's id is above every earlier one (5 then 3), and never reused (1 then 1).
  def test_a_decreasing_or_reused_stream_id_is_a_connection_protocol_error
    [[5, 3], [1, 1]].each do |first, second|
      c = peer
      c.request(first, "/a")
      assert_equal [:body, "/a"], c.outcome(first)
      c.request(second, "/b")
      assert_equal :PROTOCOL_ERROR, c.goaway_code, "#{first} then #{second}"
    end
  end

  def test_a_handler_that_raises_costs_its_stream_not_the_connection
    c = peer
    c.request(1, "/raise")
    assert_equal %i[reset INTERNAL_ERROR], c.outcome(1)
    c.request(3, "/after")
    assert_equal [:body, "/after"], c.outcome(3)
  end

  # Section 5.1: what the peer sent before it saw our reset is dropped, not
  # answered with more resets (each would spend the reset budget) or a
  # connection error; trailers on it are still decoded (HPACK in step).
  def test_frames_in_flight_on_a_stream_we_reset_are_dropped
    c = peer
    c.request(1, "/raise", body: true)
    assert_equal %i[reset INTERNAL_ERROR], c.outcome(1)
    300.times { c.frame(Frame::DATA, 0, 1, "x" * 100) }
    c.frame(Frame::HEADERS, Frame::END_HEADERS | Frame::END_STREAM, 1, c.encoder.encode([%w[x-trailer in-step]]))
    c.request(3, "/after", [%w[x-trailer in-step]])
    assert_equal [:body, "/after"], c.outcome(3), "no reset and no GOAWAY before the answer"
  end

  # ---- limits ----

  def test_the_limits_are_advertised
    settings = peer.server_settings
    assert_equal Wirebind::HTTP2::Connection::MAX_HEADER_LIST_SIZE, settings[Frame::SETTINGS_MAX_HEADER_LIST_SIZE]
    assert_equal Wirebind::HTTP2::Connection::MAX_CONCURRENT_STREAMS, settings[Frame::SETTINGS_MAX_CONCURRENT_STREAMS]
  end

  # CVE-2024-27316: CONTINUATION frames without END_HEADERS, for ever. The
  # server stops at its header block cap (GOAWAY, then the socket closes), so
  # the client's writes fail long before 64 MiB.
  def test_a_continuation_flood_ends_at_the_header_block_cap
    c = peer
    c.frame(Frame::HEADERS, 0, 1, c.block("/flood"))
    piece = "\x00".b * 16_384 # literal-without-indexing prefixes: would decode, never ends
    sent = 0
    assert_raises(Errno::EPIPE, Errno::ECONNRESET) do
      Timeout.timeout(20) do
        while sent < 64 << 20
          c.frame(Frame::CONTINUATION, 0, 1, piece)
          sent += piece.bytesize
        end
      end
    end
    assert_operator sent, :<, 4 << 20, "bytes the server took before it closed"
    assert_equal :ENHANCE_YOUR_CALM, c.thread.value
  end

  # 64 KiB of one-byte references to a 4 KiB entry would decode to 256 MiB:
  # the list is cut at SETTINGS_MAX_HEADER_LIST_SIZE (431), the table stays
  # in step and the connection goes on; so does a list of many small fields.
  def test_a_header_list_above_the_limit_is_refused_with_header_fields_too_large
    c = peer
    c.request(1, "/big", [["x-big", "v" * 4000]])
    assert_equal [:body, "/big"], c.outcome(1)
    # :method GET, :scheme http, :path / from the static table, then x-big (index 62, the newest entry)
    bomb = [0x82, 0x86, 0x84].pack("C*") + ([0x80 | 62].pack("C") * 60_000)
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    c.frame(Frame::HEADERS, Frame::END_STREAM, 3, bomb.byteslice(0, 16_000))
    c.frame(Frame::CONTINUATION, 0, 3, bomb.byteslice(16_000, 16_000))
    c.frame(Frame::CONTINUATION, 0, 3, bomb.byteslice(32_000, 16_000))
    c.frame(Frame::CONTINUATION, Frame::END_HEADERS, 3, bomb.byteslice(48_000..))
    assert_equal "431", c.response_status(3)
    assert_operator Process.clock_gettime(Process::CLOCK_MONOTONIC) - started, :<, 5
    c.request(5, "/many", (1..3000).map { |i| ["x-#{i}", "v"] })
    assert_equal "431", c.response_status(5)
    c.request(7, "/after", [["x-big", "v" * 4000]])
    assert_equal [:body, "/after"], c.outcome(7)
  end

  # CVE-2023-44487: HEADERS then RST_STREAM, again and again.
  def test_rapid_reset_ends_with_enhance_your_calm
    c = peer
    id = 1
    Timeout.timeout(20) do
      1000.times do
        c.request(id, "/hold")
        c.frame(Frame::RST_STREAM, 0, id, [8].pack("N"))
        id += 2
      end
    rescue Errno::EPIPE, Errno::ECONNRESET
      nil
    end
    assert_equal :ENHANCE_YOUR_CALM, c.goaway_code
    assert_operator c.handler.requests.size, :<=, Wirebind::HTTP2::Connection::RESET_BUDGET + 1
  end

  # Each stream whose window is zero holds its open file: no more than the
  # concurrent-stream limit of them on one connection.
  def test_zero_window_streams_hold_at_most_the_stream_limit_of_files
    dir = Dir.mktmpdir("wirebind-h2")
    path = File.join(dir, "f.bin")
    File.binwrite(path, "f" * 1000)
    handler = lambda do |connection, stream|
      connection.respond(stream, 200, [%w[content-length 1000]], body: File.open(path, "rb"), length: 1000)
    end
    baseline = Dir.children("/proc/self/fd").size
    c = peer(preface: false, handler: handler, max_concurrent_streams: 20)
    c.socket.write(H2Peer::PREFACE)
    c.frame(Frame::SETTINGS, 0, 0, [Frame::SETTINGS_INITIAL_WINDOW_SIZE, 0].pack("nN"))
    refused = 0
    (1..60).each { |i| c.request(2 * i - 1, "/f") }
    while refused < 40 && (frame = c.read_frame)
      refused += 1 if frame.type == Frame::RST_STREAM
    end
    assert_equal 40, refused, "streams above the limit refused"
    assert_operator Dir.children("/proc/self/fd").size - baseline, :<=, 20 + 4, "open files"
    c.close
    assert_operator Dir.children("/proc/self/fd").size, :<=, baseline, "files closed with the connection"
  ensure
    FileUtils.rm_rf(dir)
  end

  # A peer that sends PINGs and never reads: the ACKs fill the socket, the
  # write blocks, and the write timeout ends the connection.
  def test_a_peer_that_does_not_read_is_cut_off_by_the_write_timeout
    c = peer(write_timeout: 0.3)
    ping = [0, 8, Frame::PING, 0, 0].pack("CnCCN") + "12345678"
    Timeout.timeout(20) do
      loop do
        written = c.socket.write_nonblock(ping * 512, exception: false)
        break if written == :wait_writable
      end
    rescue Errno::EPIPE, Errno::ECONNRESET
      nil
    end
    assert c.thread.join(10), "the connection's thread is still blocked in a write"
  end

  def test_an_idle_connection_gets_goaway
    c = peer(idle_timeout: 0.2)
    assert_equal :NO_ERROR, c.goaway_code
  end

  # Silent before the preface, in its middle, or before the first SETTINGS:
  # the idle timeout ends the connection all the same.
  def test_a_silent_client_is_let_go_before_and_after_the_preface
    [nil, H2Peer::PREFACE.byteslice(0, 10), H2Peer::PREFACE].each do |sent|
      c = peer(preface: false, idle_timeout: 0.2)
      c.socket.write(sent) if sent
      assert c.thread.join(10), "still waiting after #{sent.inspect}"
    end
  end
end

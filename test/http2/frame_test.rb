# frozen_string_literal: true

require "test_helper"
require "stringio"
require "wirebind/http2"

# Frames, the incremental reader and the writer.
class HTTP2FrameTest < Minitest::Test
  Frame = Wirebind::HTTP2::Frame

  def frame_bytes(type, flags, stream_id, payload)
    [payload.bytesize >> 16, payload.bytesize & 0xffff, type, flags, stream_id].pack("CnCCN") + payload.b
  end

  def test_writer_writes_header_and_payload_and_the_reader_reads_them_back
    io = StringIO.new("".b)
    writer = Wirebind::HTTP2::Writer.new(io)
    writer.write_frame(Frame::DATA, Frame::END_STREAM, 3, "hello")
    writer.write_frame(Frame::PING, 0, 0, Wirebind::Buffer.read_only("12345678"))
    writer.write_frame(Frame::SETTINGS, Frame::ACK, 0)
    assert_equal frame_bytes(0, 1, 3, "hello") + frame_bytes(6, 0, 0, "12345678") + frame_bytes(4, 1, 0, ""), io.string
    reader = Wirebind::HTTP2::Reader.new(StringIO.new(io.string))
    frames = Array.new(3) { reader.read_frame }
    assert_nil reader.read_frame
    assert_equal([[5, 0, 1, 3, "hello"], [8, 6, 0, 0, "12345678"], [0, 4, 1, 0, ""]],
                 frames.map { |f| [f.length, f.type, f.flags, f.stream_id, f.payload.to_s] })
    assert_equal :DATA, frames[0].type_name
  end

  def test_cork_writes_the_same_bytes_in_one_write
    writes = []
    io = StringIO.new("".b)
    io.define_singleton_method(:write) { |*parts| writes << parts.size; super(*parts) }
    writer = Wirebind::HTTP2::Writer.new(io)
    payloads = Array.new(300) { |i| "p#{i}" }
    result = writer.cork do
      writer.write_frame(Frame::SETTINGS, Frame::ACK, 0)
      writer.cork { payloads.each { |p| writer.write_frame(Frame::DATA, 0, 1, p) } } # nested: the outer one writes
      assert_empty writes.drop(1), "nothing written before the block ends but at MAX_CORKED"
      :done
    end
    assert_equal :done, result
    assert_equal frame_bytes(4, 1, 0, "") + payloads.map { |p| frame_bytes(0, 0, 1, p) }.join, io.string
    max = Wirebind::HTTP2::Writer::MAX_CORKED # the ACK (one part), then two parts per DATA frame
    assert_equal [1 + 2 * max, 2 * (payloads.size - max)], writes
    writer.write_frame(Frame::PING, 0, 0, "12345678") # not corked any more: written at once
    assert_equal 2, writes.last
    assert_raises(RuntimeError) { writer.cork { writer.write_frame(Frame::PING, 0, 0, "abcdefgh"); raise "boom" } }
    assert_equal 3, writes.size, "a block that raises writes nothing"
    writer.write_frame(Frame::PING, 0, 0, "ABCDEFGH")
    assert io.string.end_with?(frame_bytes(6, 0, 0, "12345678") + frame_bytes(6, 0, 0, "ABCDEFGH"))
  end

  def test_partial_frames_across_pushes
    bytes = frame_bytes(0, 0, 1, "a" * 100) + frame_bytes(1, 4, 1, "hdrs") + frame_bytes(0, 1, 1, "z")
    random = Random.new(random_seed)
    reader = Wirebind::HTTP2::Reader.new
    frames = []
    position = 0
    while position < bytes.bytesize
      step = random.rand(1..12)
      reader.push(bytes.byteslice(position, step))
      position += step
      while (frame = reader.next_frame)
        frames << frame
      end
    end
    assert_equal(["a" * 100, "hdrs", "z"], frames.map { |f| f.payload.to_s })
    assert_equal 0, reader.buffered
  end

  def test_data_payloads_are_read_only_views
    reader = Wirebind::HTTP2::Reader.new
    reader.push(frame_bytes(0, 0, 1, "x" * 1000) + frame_bytes(0, 0, 1, "y" * 1000))
    first = reader.next_frame
    assert first.payload.view?
    assert first.payload.read_only?
    assert_raises(Wirebind::Buffer::ReadOnlyError) { first.payload.set_u8(0, 1) }
    assert_equal "y" * 1000, reader.next_frame.payload.to_s
  end

  def test_frame_size_and_padding_rules
    reader = Wirebind::HTTP2::Reader.new(max_frame_size: 16_384)
    reader.push(frame_bytes(0, 0, 1, "x" * 16_385))
    error = assert_raises(Wirebind::HTTP2::ProtocolError) { reader.next_frame }
    assert_equal :FRAME_SIZE_ERROR, error.code
    assert_equal 6, error.code_number

    padded = Wirebind::Binary.decode(frame_bytes(0, Frame::PADDED, 1, "\x03abcPPP"), Frame)
    assert_equal "abc", padded.content.to_s
    bad = Wirebind::Binary.decode(frame_bytes(0, Frame::PADDED, 1, "\x07abc"), Frame)
    assert_equal :PROTOCOL_ERROR, assert_raises(Wirebind::HTTP2::ProtocolError) { bad.content }.code
  end

  def test_truncated_stream_is_connection_closed
    reader = Wirebind::HTTP2::Reader.new(StringIO.new(frame_bytes(0, 0, 1, "abcdef").byteslice(0, 12)))
    assert_raises(Wirebind::HTTP2::ConnectionClosed) { reader.read_frame }
  end

  def test_stream_state_machine
    stream = Wirebind::HTTP2::Stream.new(1, 65_535)
    assert_equal :idle, stream.state
    stream.receive_headers(false)
    assert_equal :open, stream.state
    stream.receive_data(0, true)
    assert_equal :half_closed_remote, stream.state
    error = assert_raises(Wirebind::HTTP2::StreamError) { stream.receive_data(0, false) }
    assert_equal :STREAM_CLOSED, error.code
    stream.send_end_stream
    assert stream.closed?
    idle = Wirebind::HTTP2::Stream.new(3, 0)
    assert_equal :PROTOCOL_ERROR, assert_raises(Wirebind::HTTP2::ProtocolError) { idle.receive_data(0, false) }.code
  end

  # Section 8.1.1, on the stream: DATA counted against the request's content-length.
  def test_stream_content_length
    stream = Wirebind::HTTP2::Stream.new(1, 65_535)
    stream.receive_headers(false)
    stream.declare_content_length("5", false)
    assert_raises(Wirebind::HTTP2::StreamError) { stream.declare_content_length("5", false) } # twice
    stream.receive_data(3, false)
    error = assert_raises(Wirebind::HTTP2::StreamError) { stream.finish_request }
    assert_match(/content-length 5 but 3 bytes/, error.message)
    assert_raises(Wirebind::HTTP2::StreamError) { stream.receive_data(3, true) }
    other = Wirebind::HTTP2::Stream.new(3, 65_535)
    assert_raises(Wirebind::HTTP2::StreamError) { other.declare_content_length("-1", false) }
    assert_raises(Wirebind::HTTP2::StreamError) { other.declare_content_length("2", true) }
  end

  def test_control_frame_payloads_are_binary_records
    f = Wirebind::HTTP2::Frame
    assert_equal [4, 65_535].pack("nN"), Wirebind::Binary.encode(f::Setting.new(id: 4, value: 65_535)).to_s
    assert_equal [8].pack("N"), Wirebind::Binary.encode(f::RstStream.new(error_code: 8)).to_s
    goaway = Wirebind::Binary.encode(f::GoAway.new(reserved: 0, last_stream_id: 7, error_code: 1, debug: "why")).to_s
    assert_equal [7, 1].pack("NN") + "why", goaway
    read = Wirebind::Binary.decode([0x8000_0007, 11].pack("NN") + "x", f::GoAway)
    assert_equal [7, 11, "x"], [read.last_stream_id, read.error_code, read.debug.to_s]
    assert_equal 0x7fff_ffff, Wirebind::Binary.decode([0xffff_ffff].pack("N"), f::WindowUpdate).increment
    priority = Wirebind::Binary.decode([0x8000_0003, 16].pack("NC"), f::Priority)
    assert_equal [1, 3, 16], [priority.exclusive, priority.dependency, priority.weight]
  end

  def test_a_window_grows_to_the_limit_and_no_further
    window = Wirebind::HTTP2::Window.new(10)
    window.consume(10)
    refute window.positive?
    assert window.grow(Wirebind::HTTP2::Frame::MAX_WINDOW)
    refute window.grow(1), "2^31 is a FLOW_CONTROL_ERROR"
    window = Wirebind::HTTP2::Window.new(5)
    assert_equal 95, window.refill(100)
    assert_equal 100, window.size
    assert window.grow(-200)
    assert_equal(-100, window.size, "SETTINGS_INITIAL_WINDOW_SIZE may shrink it below zero")
  end
end

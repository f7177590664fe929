# frozen_string_literal: true

require "test_helper"
require "wirebind/http2"

# The stream state machine on its own, without a socket: the state an id
# implies (Streams), HEADERS opening a stream or carrying trailers, and the
# header lists a Stream takes as a request or as trailers.
class HTTP2StreamsTest < Minitest::Test
  HTTP2 = Wirebind::HTTP2

  def streams(max_concurrent: 2)
    HTTP2::Streams.new(max_concurrent: max_concurrent, initial_window: 100)
  end

  def headers(table, id, end_stream: false, dependency: nil, accepting: true)
    table.receive_headers(id, end_stream: end_stream, dependency: dependency, accepting: accepting)
  end

  # Section 5.1.1: idle above the last stream opened, closed at or below it.
  def test_an_id_implies_idle_or_closed
    table = streams
    assert_equal :idle, table.named(5).state
    assert table.idle?(5)
    block = headers(table, 5)
    assert_same block.stream, table[5]
    assert_equal :open, table[5].state
    assert_equal 5, table.last_stream_id
    assert_equal :closed, table.named(3).state, "skipped below the last id: closed"
    refute table.idle?(3)
    assert_equal :idle, table.named(7).state
    assert_equal 100, table.named(7).send_window.size
  end

  def test_a_new_stream_id_must_be_odd_and_above_the_last
    table = streams
    headers(table, 5)
    assert_match(/not above the last stream opened \(5\)/, assert_raises(HTTP2::ProtocolError) { headers(table, 3) }.message)
    assert_match(/odd-numbered/, assert_raises(HTTP2::ProtocolError) { headers(table, 8) }.message)
  end

  # Every refusal is kept on the block, raised only after it is decoded
  # (HPACK stays in step), and the id still counts as opened.
  def test_refusals_wait_for_the_block_to_be_decoded
    table = streams(max_concurrent: 1)
    itself = headers(table, 1, dependency: 1)
    assert_nil itself.stream
    assert_equal [:PROTOCOL_ERROR, 1], [itself.error.code, itself.error.stream_id]
    assert_equal 1, table.last_stream_id
    headers(table, 3)
    full = headers(table, 5)
    assert_equal :REFUSED_STREAM, full.error.code
    stopping = headers(table, 7, accepting: false)
    assert_equal :REFUSED_STREAM, stopping.error.code
    assert_match(/after GOAWAY/, stopping.error.message)
    assert_equal 7, table.last_stream_id
  end

  def test_headers_on_an_open_stream_are_trailers_on_it
    table = streams
    request = headers(table, 1)
    trailers = headers(table, 1, end_stream: true)
    assert_same request.stream, trailers.stream
    assert_nil trailers.error
    assert_equal :half_closed_remote, trailers.stream.state
    again = headers(table, 1, end_stream: true)
    assert_equal :STREAM_CLOSED, again.error.code
    assert_nil again.stream
  end

  # A stream we reset and forgot: what the peer sent before it saw the reset is dropped.
  def test_a_stream_reset_lately_drops_its_frames
    table = streams
    stream = headers(table, 1).stream
    table.remember_reset(1)
    stream.reset
    table.forget(stream)
    assert table.dropped?(1)
    block = headers(table, 1, end_stream: true)
    assert_nil block.stream
    assert_nil block.error, "decoded and dropped, not answered with another reset"
    refute table.dropped?(3)
  end

  def test_the_initial_window_moves_every_open_window
    table = streams
    stream = headers(table, 1).stream
    stream.send_window.consume(30)
    table.initial_window = 150
    assert_equal 120, stream.send_window.size
    assert_equal 150, table.named(3).send_window.size
    table.initial_window = 10
    assert_equal(-20, stream.send_window.size)
    error = assert_raises(HTTP2::ProtocolError) { table.initial_window = HTTP2::Frame::MAX_WINDOW + 1 }
    assert_equal :FLOW_CONTROL_ERROR, error.code
    stream.send_window.grow(HTTP2::Frame::MAX_WINDOW - 10)
    assert_equal :FLOW_CONTROL_ERROR, assert_raises(HTTP2::ProtocolError) { table.initial_window = 100 }.code
  end

  def test_a_stream_takes_its_first_list_as_the_request_then_trailers
    table = streams
    stream = headers(table, 1).stream
    request = [[":method", "POST"], [":scheme", "http"], [":path", "/"], ["content-length", "2"]]
    assert_equal :request, stream.receive_header_list(request, false)
    assert_equal request, stream.headers
    stream.receive_data(2, false)
    trailers = headers(table, 1, end_stream: true)
    assert_equal :trailers, trailers.stream.receive_header_list([%w[x-sum 3]], trailers.end_stream)
    assert_equal :half_closed_remote, stream.state
    stream.finish_request
  end

  def test_a_malformed_list_is_a_stream_error_on_its_stream
    stream = headers(streams, 1).stream
    error = assert_raises(HTTP2::StreamError) { stream.receive_header_list([[":method", "GET"], [":path", "/"]], true) }
    assert_equal [:PROTOCOL_ERROR, 1], [error.code, error.stream_id]
    assert_match(/without :scheme/, error.message)
    assert_nil stream.headers
    stream.receive_header_list([[":method", "GET"], [":scheme", "http"], [":path", "/"]], false)
    error = assert_raises(HTTP2::StreamError) { stream.receive_header_list([[":status", "200"]], true) }
    assert_match(/pseudo-header :status in trailers/, error.message)
  end

  # A list above SETTINGS_MAX_HEADER_LIST_SIZE (nil from the decoder): a
  # request is answered (431), trailers reset the stream.
  def test_a_list_too_large
    stream = headers(streams, 1).stream
    assert_equal :too_large, stream.receive_header_list(nil, false)
    stream.headers = [[":method", "GET"]]
    assert_raises(HTTP2::StreamError) { stream.receive_header_list(nil, true) }
  end

  def test_a_self_dependency
    assert_nil HTTP2::Stream.dependency_error(3, 1)
    error = HTTP2::Stream.dependency_error(3, 3)
    assert_equal [:PROTOCOL_ERROR, 3], [error.code, error.stream_id]
  end

  def test_a_window_takes_what_it_has_and_no_more
    window = HTTP2::Window.new(10)
    refute window.take(11)
    assert_equal 10, window.size
    assert window.take(10)
    assert_equal 0, window.size
  end
end

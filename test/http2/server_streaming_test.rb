# frozen_string_literal: true

require "test_helper"
require "digest"
require "open3"
require "socket"
require "timeout"
require "rack"
require "rack/lint"
require "wirebind/http2/server"
require "support/h2_clients"

# Response bodies of Wirebind::HTTP2::Server sent as the application produces
# them: +each+ and +call(stream)+ bodies over HTTP/2 (DATA as the windows
# allow) and HTTP/1.1 (chunked), with back-pressure: a 100 MiB generated body
# read slowly must not grow the server's memory by its size.
class HTTP2ServerStreamingTest < Minitest::Test
  include H2Clients

  CHUNK = 64 * 1024
  BIG_CHUNKS = 1600 # 100 MiB
  # The bound asserted on RSS growth while a slow reader holds a 100 MiB body
  RSS_BOUND = 16 * 1024 * 1024

  # Chunk i of the generated body: 64 KiB, one of 16 made once, so that the
  # RSS measured is the server's buffering, not the garbage of an application
  # that makes 100 MiB of Strings (which the GC frees at its own pace: about
  # 60-70 MiB of growth with fresh 64 KiB chunks and Ruby's default GC limits).
  PIECES = Array.new(16) { |i| ([i].pack("N") * (CHUNK / 4)).freeze }.freeze

  def self.chunk(index)
    PIECES[index % PIECES.size]
  end

  def self.expected_md5(chunks)
    digest = Digest::MD5.new
    chunks.times { |i| digest << chunk(i) }
    digest.hexdigest
  end

  # /gen?n=N yields N generated chunks (each); /pause writes "a", waits, writes "b" (call(stream)).
  class App
    def call(env)
      case env["PATH_INFO"]
      when "/gen"
        count = Integer(env["QUERY_STRING"][/n=(\d+)/, 1])
        [200, { "content-type" => "application/octet-stream" }, Generated.new(count)]
      when "/finished"
        env["rack.response_finished"] << ->(*args) { FINISHED << [args[0]["SERVER_PROTOCOL"], args[1], args[3]] }
        [200, { "content-type" => "text/plain" }, Generated.new(2)]
      when "/pause"
        body = proc do |stream|
          stream.write("a")
          sleep 1.5
          stream << "b"
          stream.close
        end
        [200, { "content-type" => "text/plain" }, body]
      else
        [404, { "content-type" => "text/plain" }, ["none"]]
      end
    end
  end

  # What rack.response_finished callbacks were told: [protocol, status, error]
  FINISHED = Queue.new

  # An each body (no to_ary: it cannot be buffered by middleware either).
  class Generated
    def initialize(count)
      @count = count
    end

    def each
      @count.times { |i| yield HTTP2ServerStreamingTest.chunk(i) }
    end
  end

  # A body with Rack 3 trailers (Rack::Lint does not pass #trailers through: it goes around it).
  class WithTrailers
    def each
      yield "data"
    end

    def trailers
      { "x-checksum" => "abc", "grpc-status" => "0" }
    end
  end

  def setup
    linted = Rack::Lint.new(App.new)
    app = ->(env) { env["PATH_INFO"] == "/trailers" ? [200, { "trailer" => "x-checksum, grpc-status" }, WithTrailers.new] : linted.call(env) }
    @server = Wirebind::HTTP2::Server.new(app, port: 0, log: (@log = StringIO.new), drain_timeout: 2)
    @thread = Thread.new { @server.run }
  end

  def teardown
    @server.stop
    @thread.join(10)
    @clients&.each { |client| client.close unless client.closed? }
  end

  def rss
    File.read("/proc/self/status")[/VmRSS:\s+(\d+)/, 1].to_i * 1024
  end

  # Runs the block while sampling RSS; returns [block's value, largest growth].
  def max_rss_growth
    GC.start
    base = rss
    peak = base
    sampling = true
    sampler = Thread.new do
      while sampling
        peak = [peak, rss].max
        sleep 0.05
      end
    end
    value = yield
    [value, peak - base]
  ensure
    sampling = false
    sampler&.join
  end

  def test_each_body_over_h2_and_http1_is_the_bytes_generated
    require_tool("curl")
    md5 = self.class.expected_md5(40)
    url = "http://127.0.0.1:#{@server.port}/gen?n=40"
    out, err, status = Open3.capture3("curl", "-sS", "--max-time", "60", "--http2-prior-knowledge", url)
    assert status.success?, err
    assert_equal [40 * CHUNK, md5], [out.bytesize, Digest::MD5.hexdigest(out)]
    out, err, status = Open3.capture3("curl", "-sS", "--max-time", "60", "--http1.1", "-D", "/dev/stderr", url)
    assert status.success?, err
    assert_equal [40 * CHUNK, md5], [out.bytesize, Digest::MD5.hexdigest(out)]
    assert_match(/^transfer-encoding: chunked\r$/i, err)
    refute_match(/^content-length/i, err)
  end

  # The first piece of a call(stream) body leaves before the body ends.
  def test_stream_body_pieces_leave_as_they_are_written
    socket = TCPSocket.new("127.0.0.1", @server.port)
    (@clients ||= []) << socket
    socket.write("GET /pause HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n")
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    received = +""
    Timeout.timeout(10) { received << socket.readpartial(4096) until received.include?("\r\n1\r\na\r\n") }
    assert_operator Process.clock_gettime(Process::CLOCK_MONOTONIC) - started, :<, 1.2, "the first piece waited for the whole body"
    Timeout.timeout(10) { received << socket.readpartial(4096) until received.end_with?("0\r\n\r\n") }
    assert_match(/\r\n1\r\na\r\n1\r\nb\r\n0\r\n\r\n\z/, received)
  end

  # A slow HTTP/2 reader (Python's h2, which grants a 16 MiB window and then
  # stops reading for 2 s): the server waits for the socket, it does not buffer.
  def test_slow_h2_reader_of_a_100_mib_body_bounds_the_server_memory
    require_python_h2
    window = "conn.local_settings = h2.settings.Settings(client=True, initial_values={h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 16 << 20})"
    script = python_h2_get("/gen?n=#{BIG_CHUNKS}", setup: window, after_preface: "conn.increment_flow_control_window(16 << 20)") + <<~PY
      digest, size, paused, done = hashlib.md5(), 0, False, False
      while not done:
          data = sock.recv(1 << 16)
          if not data:
              break
          for event in conn.receive_data(data):
              if isinstance(event, h2.events.DataReceived):
                  digest.update(event.data)
                  size += len(event.data)
                  conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
              if isinstance(event, h2.events.StreamEnded):
                  done = True
          sock.sendall(conn.data_to_send())
          if size > (8 << 20) and not paused:
              paused = True
              time.sleep(2)
      print(size, digest.hexdigest())
    PY
    (out, status), growth = max_rss_growth { Open3.capture2e("/usr/bin/python3", "-c", script, @server.port.to_s) }
    assert status.success?, out
    assert_equal "#{BIG_CHUNKS * CHUNK} #{self.class.expected_md5(BIG_CHUNKS)}", out.strip
    assert_operator growth, :<, RSS_BOUND, "RSS grew by #{growth >> 20} MiB for a 100 MiB body"
    puts "\n  h2 slow reader, 100 MiB each body: server RSS growth #{growth >> 20} MiB" if ENV["VERBOSE"]
  end

  # The same over HTTP/1.1: a reader that takes 8 MiB, then nothing for 2 s.
  def test_slow_http1_reader_of_a_100_mib_body_bounds_the_server_memory
    socket = TCPSocket.new("127.0.0.1", @server.port)
    (@clients ||= []) << socket
    socket.write("GET /gen?n=#{BIG_CHUNKS} HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n")
    size, growth = max_rss_growth do
      got = nil
      buffer = String.new(capacity: 1 << 16)
      tail = +""
      Timeout.timeout(120) do
        head = +""
        head << socket.readpartial(1 << 16) until head.include?("\r\n\r\n")
        assert_match(/^transfer-encoding: chunked\r$/i, head[0, head.index("\r\n\r\n") + 2])
        got = head.bytesize
        got += socket.readpartial(1 << 16, buffer).bytesize while got < (8 << 20)
        sleep 2
        loop do
          got += socket.readpartial(1 << 16, buffer).bytesize
          tail = (tail + buffer.byteslice(-[5, buffer.bytesize].min..)).byteslice(-[5, tail.bytesize + buffer.bytesize].min..)
          break if tail == "0\r\n\r\n"
        end
      end
      got
    end
    assert_operator size, :>, BIG_CHUNKS * CHUNK
    assert_operator growth, :<, RSS_BOUND, "RSS grew by #{growth >> 20} MiB for a 100 MiB body"
    puts "\n  HTTP/1.1 slow reader, 100 MiB each body: server RSS growth #{growth >> 20} MiB" if ENV["VERBOSE"]
  end

  # Python's h2 reads the trailing HEADERS frame (END_STREAM) as trailers.
  def test_trailers_over_h2_in_a_trailing_headers_frame
    require_python_h2
    script = python_h2_get("/trailers", headers: ', ("te", "trailers")') + <<~PY
      body, trailers, ended, done = b"", None, False, False
      while not done:
          data = sock.recv(65535)
          if not data:
              break
          for event in conn.receive_data(data):
              if isinstance(event, h2.events.DataReceived):
                  body += event.data
              if isinstance(event, h2.events.TrailersReceived):
                  trailers = [(n.decode(), v.decode()) for n, v in event.headers]
                  ended = event.stream_ended is not None
              if isinstance(event, h2.events.StreamEnded):
                  done = True
      print(body.decode(), trailers, ended)
    PY
    out, status = Open3.capture2e("/usr/bin/python3", "-c", script, @server.port.to_s)
    assert status.success?, out
    assert_equal "data [('x-checksum', 'abc'), ('grpc-status', '0')] True", out.strip
  end

  def http1_exchange(request)
    socket = TCPSocket.new("127.0.0.1", @server.port)
    (@clients ||= []) << socket
    socket.write(request)
    received = +""
    Timeout.timeout(10) { received << socket.readpartial(4096) until received.match?(/\r\n0\r\n(.*\r\n)*\r\n\z/) }
    received
  end

  # HTTP/1.1: the trailers follow the last chunk when the request said TE: trailers, else they are left out.
  def test_trailers_over_http1_when_the_request_accepts_them
    with = http1_exchange("GET /trailers HTTP/1.1\r\nhost: 127.0.0.1\r\nte: trailers\r\n\r\n")
    assert_match(/\r\n4\r\ndata\r\n0\r\nx-checksum: abc\r\ngrpc-status: 0\r\n\r\n\z/, with)
    without = http1_exchange("GET /trailers HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n")
    assert_match(/\r\n4\r\ndata\r\n0\r\n\r\n\z/, without)
  end

  # rack.response_finished callbacks run once the response is sent, with no error.
  def test_response_finished_callbacks_run_after_the_response
    require_tool("curl")
    url = "http://127.0.0.1:#{@server.port}/finished"
    %w[--http2-prior-knowledge --http1.1].each do |flag|
      out, err, status = Open3.capture3("curl", "-sS", "--max-time", "30", flag, url)
      assert status.success?, err
      assert_equal 2 * CHUNK, out.bytesize
      Timeout.timeout(5) { sleep 0.01 while FINISHED.empty? }
      assert_equal [flag == "--http1.1" ? "HTTP/1.1" : "HTTP/2", 200, nil], FINISHED.pop
    end
  end

  # A client that asks for a 100 MiB body and never reads: the write timeout
  # (1 s here) closes the connection instead of holding its thread for ever.
  def test_a_http1_client_that_never_reads_is_cut_by_the_write_timeout
    server = Wirebind::HTTP2::Server.new(Rack::Lint.new(App.new), port: 0, log: StringIO.new, write_timeout: 1)
    thread = Thread.new { server.run }
    socket = TCPSocket.new("127.0.0.1", server.port)
    (@clients ||= []) << socket
    socket.setsockopt(Socket::SOL_SOCKET, Socket::SO_RCVBUF, 64 * 1024)
    socket.write("GET /gen?n=#{BIG_CHUNKS} HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n")
    sleep 3 # the server's write blocks, then its watchdog closes the socket
    got = bytes_until_closed(socket, 10)
    assert_operator got, :<, BIG_CHUNKS * CHUNK, "the whole body was sent: nothing was cut"
  ensure
    server&.stop
    thread&.join(10)
  end
end

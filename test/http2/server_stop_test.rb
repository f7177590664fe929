# frozen_string_literal: true

require "test_helper"
require "open3"
require "timeout"
require "wirebind/http2/server"
require "support/h2_clients"

# Wirebind::HTTP2::Server#stop with HTTP/2 connections open (Python's h2 as
# the client): an idle connection is told GOAWAY (NO_ERROR, the last stream
# id) at once, not cut when the drain time is up; a request in flight is
# finished after its GOAWAY.
class HTTP2ServerStopTest < Minitest::Test
  include H2Clients

  DRAIN = 4

  # An idle client (Python's h2): prints "ready" once the server's SETTINGS
  # have come, then reads until the server ends the connection and prints
  # the GOAWAY it saw (error code, last stream id, seconds after "ready").
  # (Python's h2 refuses frames after a GOAWAY, so the busy case uses nghttp.)
  CLIENT = <<~PY
    import socket, sys, time, h2.connection, h2.events
    sock = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
    sock.settimeout(#{DRAIN * 3})
    conn = h2.connection.H2Connection()
    conn.initiate_connection()
    sock.sendall(conn.data_to_send())
    ready, goaway = None, None
    while goaway is None:
        data = sock.recv(65535)
        if not data:
            break
        for event in conn.receive_data(data):
            if isinstance(event, h2.events.RemoteSettingsChanged) and ready is None:
                ready = time.monotonic()
                print("ready", flush=True)
            if isinstance(event, h2.events.ConnectionTerminated):
                goaway = (int(event.error_code), event.last_stream_id, round(time.monotonic() - ready, 1))
        out = conn.data_to_send()
        if out:
            sock.sendall(out)
    print(goaway, flush=True)
  PY

  def setup
    require_python_h2
    @started = Queue.new
    app = lambda do |env|
      if env["PATH_INFO"] == "/slow"
        @started << true
        sleep 1.5
      end
      [200, { "content-type" => "text/plain" }, ["done"]]
    end
    @server = Wirebind::HTTP2::Server.new(app, port: 0, log: StringIO.new, drain_timeout: DRAIN)
    @thread = Thread.new { @server.run }
  end

  def teardown
    @server&.stop
    @thread&.join(DRAIN + 5)
  end

  # Runs the client; calls the block once it printed "ready"; returns its last line.
  def client
    Open3.popen2e("/usr/bin/python3", "-c", CLIENT, @server.port.to_s) do |_stdin, out, wait|
      Timeout.timeout(DRAIN * 4) do
        line = out.gets
        assert_equal "ready\n", line
        yield
        result = out.read
        assert wait.value.success?, result
        result.strip
      end
    end
  end

  def test_an_idle_connection_is_sent_goaway_at_once_on_stop
    started = nil
    result = client do
      started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      @server.stop
    end
    # (NO_ERROR, last stream id 0, seconds after ready): well before the drain time is up
    match = result.match(/\A\(0, 0, ([\d.]+)\)/)
    assert match, "no GOAWAY before the connection closed: #{result}"
    @thread.join(DRAIN + 5)
    refute @thread.alive?
    assert_operator Process.clock_gettime(Process::CLOCK_MONOTONIC) - started, :<, DRAIN - 1, "the drain waited for an idle connection"
  end

  # nghttp -v prints the frames it receives: the GOAWAY naming its request's
  # stream, then the rest of the response.
  def test_a_busy_connection_is_sent_goaway_and_its_stream_finishes
    require_tool("nghttp", "nghttp2-client")
    Open3.popen2e("nghttp", "-v", "http://127.0.0.1:#{@server.port}/slow") do |_stdin, out, wait|
      Timeout.timeout(DRAIN * 4) do
        @started.pop
        @server.stop
        result = out.read
        assert wait.value.success?, result
        stream = result[/send HEADERS frame <[^>]*stream_id=(\d+)>/, 1]
        assert_match(/recv GOAWAY frame.*\n.*last_stream_id=#{stream}, error_code=NO_ERROR/, result)
        assert_match(/recv DATA frame <length=4, flags=0x01, stream_id=#{stream}>/, result)
        assert_includes result, "done"
      end
    end
  end
end

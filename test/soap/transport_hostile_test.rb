# frozen_string_literal: true

require_relative "soap_test_support"
require_relative "loopback_server"
require "socket"

# A raw server on 127.0.0.1 writing exactly the bytes each case needs.
module RawServer
  # A raw server on 127.0.0.1: for each connection, +script+ gets the socket and
  # a reader of the next request's body (nil once the client closed).
  def raw_server(script)
    server = TCPServer.new("127.0.0.1", 0)
    sockets = Queue.new
    threads = Queue.new
    acceptor = Thread.new do
      loop do
        socket = server.accept
        sockets << socket
        threads << Thread.new(socket) do |s|
          script.call(s, -> { read_request(s) })
        rescue IOError, SystemCallError
          nil
        ensure
          s.close unless s.closed?
        end
      end
    rescue IOError, SystemCallError
      nil
    end
    yield "http://127.0.0.1:#{server.addr[1]}/soap"
  ensure
    server&.close
    acceptor&.kill&.join(2)
    threads&.size&.times { threads.pop.kill.join(2) }
    sockets&.size&.times do
      socket = sockets.pop
      socket.close unless socket.closed?
    end
  end

  def read_request(socket)
    socket.gets("\r\n") or return nil # the request line
    length = 0
    while (header = socket.gets("\r\n")) && header != "\r\n"
      name, value = header.split(":", 2)
      length = Integer(value.strip) if name.casecmp?("content-length")
    end
    socket.read(length)
  end
end

# The transports against forks and hostile servers: a response is only ever
# read by the call that sent its request, connections are never shared across
# processes, bad heads are Wirebind errors. Each case runs on every adapter.
class SOAPTransportHostileTest < Minitest::Test
  include RawServer
  Envelope = Wirebind::SOAP::Envelope
  Client = Wirebind::SOAP::Client
  NS = "urn:echo"
  ADAPTER = :socket

  def echo_xml(value)
    Envelope.write(+"", operation: "echoResponse", namespace: NS, parts: { r: value }, style: :rpc, multi_ref: false)
  end

  def echo_response(value)
    body = echo_xml(value).b
    "HTTP/1.1 200 OK\r\nContent-Type: text/xml\r\nContent-Length: #{body.bytesize}\r\n\r\n#{body}".b
  end

  def sent_value(body)
    body.dup.force_encoding(Encoding::UTF_8)[%r{<v[^>]*>([^<]*)</v>}, 1]
  end

  def new_client(url, **options)
    Client.new(endpoint: url, namespace: NS, style: :rpc, adapter: self.class::ADAPTER, read_timeout: 3, open_timeout: 2, **options)
  end

  def echo(client, value)
    client.call(:echo, { v: value }, returns: :string, at: "*/r")
  end

  # What each call answered: never another call's value; a ConnectionError
  # only where the adapter cannot read past the hostile bytes (httpx's parser).
  def assert_own_answers(client, values, pause: 0)
    answers = values.map do |value|
      sleep pause
      echo(client, value)
    rescue Wirebind::SOAP::ConnectionError
      raise unless self.class::ADAPTER == :httpx

      value
    end
    assert_equal values, answers
  end

  # Item 8: bytes after a Content-Length body (here a whole second response)
  # never become the next call's answer.
  def test_bytes_after_the_body_are_not_the_next_answer
    script = lambda do |socket, next_request|
      while (body = next_request.call)
        socket.write(echo_response(sent_value(body)) + echo_response("INJECTED"))
      end
    end
    raw_server(script) do |url|
      client = new_client(url)
      assert_own_answers(client, %w[a b c])
      client.close
    end
  end

  # Item 8: bytes arriving on an idle connection (a response to no request)
  # make it unusable; the next call opens another.
  def test_a_response_to_no_request_is_not_the_next_answer
    script = lambda do |socket, next_request|
      while (body = next_request.call)
        socket.write(echo_response(sent_value(body)))
        sleep 0.05
        socket.write(echo_response("UNASKED"))
      end
    end
    raw_server(script) do |url|
      client = new_client(url)
      assert_own_answers(client, %w[a b c], pause: 0.2) # the unasked response arrives while the connection is idle
      client.close
    end
  end

  # An error status with an empty body (a 401 or 503 with Content-Length: 0)
  # is an HTTPError with its status on every adapter (httpx's stream raised
  # its own HTTPError for it).
  def test_an_error_status_with_an_empty_body_is_an_http_error
    script = lambda do |socket, next_request|
      socket.write("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n") while next_request.call
    end
    raw_server(script) do |url|
      client = new_client(url)
      2.times do
        error = assert_raises(Wirebind::SOAP::HTTPError) { echo(client, "a") }
        assert_equal 503, error.status
      end
      client.close
    end
  end

  # Item 8: 100 Continue and 103 Early Hints are not the final answer.
  def test_interim_responses_are_skipped
    script = lambda do |socket, next_request|
      while (body = next_request.call)
        socket.write("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n")
        socket.write(echo_response(sent_value(body)))
      end
    end
    raw_server(script) do |url|
      client = new_client(url)
      assert_own_answers(client, %w[a b])
      client.close
    end
  end

  # Item 11: a bad head is a Wirebind::Error, whatever the adapter.
  BAD_HEADS = {
    "negative Content-Length" => "HTTP/1.1 200 OK\r\nContent-Length: -5\r\n\r\nabcde",
    "hexadecimal Content-Length" => "HTTP/1.1 200 OK\r\nContent-Length: 0xb4\r\n\r\n",
    "two different Content-Lengths" => "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nabcdef",
    "bad chunk size" => "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5zz\r\nabcde\r\n0\r\n\r\n",
    "negative chunk size" => "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-5\r\nabcde\r\n0\r\n\r\n"
  }.freeze

  # Yields a client of a server that answers one request with +response+ and closes.
  def answered_once_with(response)
    script = lambda do |socket, next_request|
      next_request.call
      socket.write(response)
      socket.close
    end
    raw_server(script) do |url|
      client = new_client(url)
      yield client
      client.close
    end
  end

  def test_bad_heads_are_wirebind_errors
    BAD_HEADS.each do |name, response|
      answered_once_with(response) do |client|
        error = assert_raises(Wirebind::Error, name) { echo(client, "a") }
        # httpx reads a chunk size line's leading hex digits ("5zz" as 5): there the body,
        # not the head, is what is refused (README: what each adapter guarantees).
        lenient = self.class::ADAPTER == :httpx && name.include?("chunk")
        refute_kind_of Wirebind::ParseError, error, name unless lenient
      end
    end
  end

  # Chunk framing a lenient reader takes: a chunk size line that is not all hex
  # digits ("5zz", "-5", both read as 5 by net/http, which also skips the two
  # bytes after a chunk's data unread), around a whole, valid response body.
  def bad_chunk_framings(body)
    size = body.bytesize.to_s(16)
    head = "HTTP/1.1 200 OK\r\nContent-Type: text/xml\r\nTransfer-Encoding: chunked\r\n\r\n"
    { "size with trailing junk" => "#{head}#{size}zz\r\n#{body}\r\n0\r\n\r\n",
      "negative size" => "#{head}-#{size}\r\n#{body}\r\n0\r\n\r\n",
      "no CRLF after the data" => "#{head}#{size}\r\n#{body}XY0\r\n\r\n" }
  end

  # A chunked body framed wrongly is a ConnectionError naming the framing, on every
  # adapter that can be told (httpx's parser cannot: README, what each adapter guarantees).
  def test_bad_chunk_framing_is_a_connection_error
    bad_chunk_framings(echo_xml("framed").b).each do |name, response|
      answered_once_with(response) do |client|
        outcome = begin
          echo(client, "a")
        rescue Wirebind::Error => e
          e
        end
        assert_chunk_framing_refused(name, outcome)
      end
    end
  end

  def assert_chunk_framing_refused(name, outcome)
    assert_kind_of Wirebind::SOAP::ConnectionError, outcome, name
    assert_match(/chunk/, outcome.message, name)
  end

  # Item 11: a body cut short is a ConnectionError, not a ParseError.
  # Item 9: and the request, written once, is not sent again.
  def test_a_body_cut_short_is_a_connection_error
    requests = Queue.new
    script = lambda do |socket, next_request|
      body = next_request.call or next
      requests << body
      whole = echo_response(sent_value(body))
      socket.write(whole.byteslice(0, whole.bytesize - 20))
      socket.close
    end
    raw_server(script) do |url|
      client = new_client(url)
      assert_raises(Wirebind::SOAP::ConnectionError) { echo(client, "a") }
      client.close
      assert_equal 1, requests.size, "the request was sent #{requests.size} times"
    end
  end

  # Item 9: a server trickling the body one byte every 0.2 s (each read well
  # within read_timeout) fails the call by its deadline.
  def test_a_trickling_server_fails_the_call_by_its_deadline
    script = lambda do |socket, next_request|
      body = next_request.call
      whole = echo_response(sent_value(body))
      head, rest = whole.split("\r\n\r\n", 2)
      socket.write("#{head}\r\n\r\n")
      rest.each_char do |char|
        socket.write(char)
        sleep 0.2
      end
    end
    raw_server(script) do |url|
      client = new_client(url, deadline: 1, read_timeout: 2)
      started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      error = assert_raises(Wirebind::SOAP::TimeoutError) { echo(client, "a") }
      elapsed = Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
      assert_match(/deadline/, error.message)
      assert_operator elapsed, :<, 2.5 # 1 s and the last wait (0.2 s), with room for a loaded machine
      client.close
    end
  end

  # Item 9: waiting for a connection of a full pool ends with PoolTimeoutError.
  def test_pool_checkout_times_out
    release = Queue.new
    script = lambda do |socket, next_request|
      body = next_request.call
      release.pop
      socket.write(echo_response(sent_value(body)))
    end
    raw_server(script) do |url|
      client = new_client(url, pool_size: 1, pool_timeout: 0.3)
      holder = Thread.new { echo(client, "held") }
      Thread.pass until client.transport.connections_opened == 1
      error = assert_raises(Wirebind::SOAP::PoolTimeoutError) { echo(client, "waits") }
      assert_match(/pool/, error.message)
      release << true
      assert_equal "held", holder.value
      client.close
    end
  end

  def test_bad_deadlines
    assert_raises(ArgumentError) { new_client("http://127.0.0.1:1/x", deadline: 0) }
    assert_raises(ArgumentError) { new_client("http://127.0.0.1:1/x", pool_timeout: "5") }
  end

  # Item 10: a small gzip body inflating to 128 MiB of text fails the call with a
  # LimitError (max_token_size) within a bounded memory, measured in a child
  # process (its peak RSS against its RSS when forked).
  def test_a_gzip_bomb_fails_within_bounded_memory
    skip "no fork here" unless Process.respond_to?(:fork)

    bomb = self.class.gzip_bomb
    LoopbackServer.open(proc { [200, { "Content-Encoding" => "gzip" }, bomb] }) do |server|
      reader, writer = IO.pipe
      pid = fork do
        reader.close
        client = new_client(server.url, max_token_size: 1024 * 1024)
        before = SOAPTransportHostileTest.peak_rss_kib
        outcome = begin
          echo(client, "a")
          "no error"
        rescue Wirebind::Error => e
          e.class.name
        end
        writer.write(Marshal.dump([outcome, SOAPTransportHostileTest.peak_rss_kib - before]))
        writer.close
        exit!(0)
      end
      writer.close
      outcome, growth_kib = Marshal.load(reader.read) # rubocop:disable Security/MarshalLoad -- our own child's
      reader.close
      Process.wait(pid)
      assert_equal "Wirebind::LimitError", outcome
      assert_operator growth_kib, :<, 48 * 1024, "peak RSS grew by #{growth_kib / 1024} MiB"
    end
  end

  def self.peak_rss_kib
    File.read("/proc/self/status")[/^VmHWM:\s+(\d+)/, 1].to_i
  end

  # The envelope of an echo response whose value is 128 MiB of "x", gzipped (made once).
  def self.gzip_bomb
    @gzip_bomb ||= begin
      head, tail = Envelope.write(+"", operation: "echoResponse", namespace: NS, parts: { r: "@" }, style: :rpc, multi_ref: false).split("@")
      out = StringIO.new(+"".b)
      gzip = Zlib::GzipWriter.new(out, Zlib::BEST_COMPRESSION)
      gzip.write(head)
      mib = "x" * (1024 * 1024)
      128.times { gzip.write(mib) }
      gzip.write(tail)
      gzip.finish
      out.string.freeze
    end
  end

  # Item 7: a client warmed in the parent, then used by forked children and the
  # parent at once: every answer is the caller's own.
  def test_forked_processes_never_share_a_connection
    skip "no fork here" unless Process.respond_to?(:fork)

    handler = proc { |request| [200, {}, echo_xml(sent_value(request.body))] }
    LoopbackServer.open(handler) do |server|
      client = new_client(server.url, pool_size: 1)
      assert_equal "warm", echo(client, "warm")
      children = Array.new(3) do |n|
        reader, writer = IO.pipe
        pid = fork do
          reader.close
          writer.write(Marshal.dump(check_answers(client, "child#{n}")))
          writer.close
          exit!(0)
        end
        writer.close
        [pid, reader]
      end
      outcomes = { "parent" => check_answers(client, "parent") }
      children.each_with_index do |(pid, reader), n|
        outcomes["child#{n}"] = Marshal.load(reader.read) # rubocop:disable Security/MarshalLoad -- our own child's
        reader.close
        Process.wait(pid)
      end
      outcomes.each { |who, outcome| assert_equal({ wrong: 0, errors: [] }, outcome, who) }
      client.close
    end
  end

  def check_answers(client, who)
    wrong = 0
    errors = []
    40.times do |i|
      value = "#{who}-#{i}"
      wrong += 1 unless echo(client, value) == value
    rescue Wirebind::Error => e
      errors << "#{e.class}: #{e.message}"
    end
    { wrong: wrong, errors: errors.uniq }
  end
end

# The same cases on net/http.
class SOAPTransportHostileNetHTTPTest < SOAPTransportHostileTest
  ADAPTER = :net_http
end

# The same cases on httpx, where it installs.
class SOAPTransportHostileHTTPXTest < SOAPTransportHostileTest
  ADAPTER = :httpx

  def setup
    Wirebind::SOAP::Transport::HTTPX
  rescue LoadError, NameError => e
    skip "httpx is not installed: #{e.message}"
  end

  # httpx's parser reads a chunk size line's leading hex digits and cannot be told
  # otherwise (README: what each adapter guarantees): "5zz" around a whole body
  # frames exactly the bytes the server sent as this response, which is read as
  # its answer. A negative size (a TypeError inside httpx's parser) and data
  # without its CRLF are ConnectionErrors.
  def assert_chunk_framing_refused(name, outcome)
    case name
    when "size with trailing junk" then assert_equal "framed", outcome, name
    when "negative size" then assert_kind_of Wirebind::SOAP::ConnectionError, outcome, name
    else super
    end
  end
end

# Item 9: fetch: true imports have a deadline too.
class WSDLFetchDeadlineTest < Minitest::Test
  include RawServer

  def test_a_trickling_import_fails_by_the_fetch_deadline
    script = lambda do |socket, next_request|
      next_request.call
      socket.write("HTTP/1.1 200 OK\r\nContent-Type: text/xml\r\nContent-Length: 1000\r\n\r\n")
      50.times do
        socket.write("<")
        sleep 0.2
      end
    end
    raw_server(script) do |url|
      wsdl = %(<definitions xmlns="http://schemas.xmlsoap.org/wsdl/"><import namespace="urn:x" location="#{url}"/></definitions>)
      started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      error = assert_raises(Wirebind::WSDL::InvalidError) { Wirebind::WSDL.load(StringIO.new(wsdl), fetch: true, fetch_deadline: 1) }
      assert_match(/took longer than 1 s/, error.message)
      assert_operator Process.clock_gettime(Process::CLOCK_MONOTONIC) - started, :<, 2.5
    end
  end
end

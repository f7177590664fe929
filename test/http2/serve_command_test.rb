# frozen_string_literal: true

require "test_helper"
require "fileutils"
require "open3"
require "support/h2_clients"
require "support/h2_peer"
require "rbconfig"
require "socket"
require "timeout"
require "tmpdir"

# `wirebind serve` and `rackup -s wirebind` as processes: serving a config.ru,
# a graceful stop on TERM with a request in flight, and accept running out of
# descriptors (RLIMIT_NOFILE lowered in the child) without the server exiting,
# and the timeout flags taking effect.
class ServeCommandTest < Minitest::Test
  include H2Clients

  EXE = File.expand_path("../../exe/wirebind", __dir__)
  LIB = File.expand_path("../../lib", __dir__)
  CONFIG = <<~RUBY
    run lambda { |env|
      sleep 1.5 if env["PATH_INFO"] == "/slow"
      # 64 MiB produced as it is sent: more than the socket buffers hold
      return [200, {}, Enumerator.new { |out| 1024.times { out << ("x" * 65_536) } }] if env["PATH_INFO"] == "/big"
      [200, { "content-type" => "text/plain" }, ["served \#{env['PATH_INFO']} over \#{env['SERVER_PROTOCOL']}\\n"]]
    }
  RUBY

  def setup
    require_ruby_subprocess
    skip "curl is not installed (apt-get install curl)" unless ENV["CI"] || system("command -v curl > /dev/null 2>&1")
    @dir = Dir.mktmpdir("wirebind-serve")
    @config = File.join(@dir, "config.ru")
    File.write(@config, CONFIG)
  end

  def teardown
    if @pid
      Process.kill("KILL", @pid)
      Process.wait(@pid)
    end
  rescue Errno::ESRCH, Errno::ECHILD
    nil
  ensure
    @out&.close
    FileUtils.rm_rf(@dir)
  end

  # Starts a server process; returns its URL (from the line it prints).
  def spawn_server(*command, **options)
    @out, writer = IO.pipe
    @pid = Process.spawn(RbConfig.ruby, "-I", LIB, *command, out: writer, err: File.join(@dir, "stderr.log"), **options)
    writer.close
    line = Timeout.timeout(30) { @out.gets }
    assert line, "the server printed nothing: #{File.read(File.join(@dir, 'stderr.log'))}"
    line[%r{https?://[\d.]+:\d+}]
  end

  def curl(*args)
    out, status = Open3.capture2("curl", "-sS", "--max-time", "20", *args)
    assert status.success?, "curl #{args.join(' ')} failed"
    out
  end

  def stop(signal)
    Process.kill(signal, @pid)
    _, status = Timeout.timeout(20) { Process.wait2(@pid) }
    @pid = nil
    status
  end

  def test_serve_finishes_a_request_in_flight_on_term
    url = spawn_server(EXE, "serve", @config, "--port", "0", "--threads", "4")
    assert_equal "served /x over HTTP/2\n", curl("--http2-prior-knowledge", "#{url}/x")
    assert_equal "served /y over HTTP/1.1\n", curl("--http1.1", "#{url}/y")
    slow = Thread.new { Open3.capture2("curl", "-sS", "--max-time", "20", "--http2-prior-knowledge", "#{url}/slow") }
    sleep 0.5 # the request is in the application
    status = stop("TERM")
    out, curl_status = slow.value
    assert curl_status.success?
    assert_equal "served /slow over HTTP/2\n", out
    assert status.success?, "exit status #{status.inspect}"
    assert_equal "wirebind serve: stopped\n", @out.read
  end

  def test_accept_out_of_descriptors_backs_off_and_keeps_serving
    url = spawn_server(EXE, "serve", @config, "--port", "0", rlimit_nofile: [40, 40])
    port = Integer(url[/\d+\z/])
    # idle connections hold a descriptor each until the limit is reached
    held = Array.new(60) { Socket.tcp("127.0.0.1", port) }
    sleep 1
    held.each(&:close)
    assert_equal "served /after over HTTP/2\n", Timeout.timeout(30) {
      loop do
        out, status = Open3.capture2("curl", "-sS", "--max-time", "5", "--http2-prior-knowledge", "#{url}/after")
        break out if status.success?

        sleep 0.2
      end
    }
    assert_match(/accept: Errno::EMFILE/, File.read(File.join(@dir, "stderr.log")))
    assert stop("INT").success?
  end

  def now = Process.clock_gettime(Process::CLOCK_MONOTONIC)

  def test_help_names_the_timeouts
    out, status = Open3.capture2(RbConfig.ruby, "-I", LIB, EXE, "serve", "--help")
    assert status.success?
    %w[--header-timeout --write-timeout --idle-timeout].each { |flag| assert_match(/#{flag} SECONDS/, out) }
  end

  # Each timeout flag reaches the connections: every one of them is far
  # below its default (10, 30 and 60 s), which the bounds here would miss.
  def test_the_timeout_flags_take_effect
    url = spawn_server(EXE, "serve", @config, "--port", "0", "--header-timeout", "1", "--idle-timeout", "1.5", "--write-timeout", "1")
    port = Integer(url[/\d+\z/])

    # a request head that stops halfway: 408 once the header timeout is up
    head = Socket.tcp("127.0.0.1", port)
    head.write("GET /x HTTP/1.1\r\nhost: a\r\nx-drip: ")
    started = now
    answer = Timeout.timeout(5) { head.read }
    assert_match(%r{\AHTTP/1.1 408}, answer)
    assert_operator now - started, :<, 3, "cut after --header-timeout 1"
    head.close

    # an HTTP/2 connection with nothing to say: GOAWAY NO_ERROR after the idle timeout
    peer = H2Peer.new(socket: Socket.tcp("127.0.0.1", port))
    started = now
    assert_equal :NO_ERROR, peer.goaway_code
    assert_operator now - started, :<, 3.5, "let go after --idle-timeout 1.5"
    peer.close

    # a client that stops reading a 64 MiB body: its connection is closed after the write timeout
    reader = Socket.tcp("127.0.0.1", port)
    reader.write("GET /big HTTP/1.1\r\nhost: a\r\n\r\n")
    sleep 3.5 # the socket buffers fill, then the write stays blocked for --write-timeout 1 (the watchdog looks every second)
    received = bytes_until_closed(reader, 20)
    reader.close
    assert_operator received, :<, 64 << 20, "the body was cut, not sent whole to a client that had stopped reading"
    assert stop("TERM").success?
  end

  def test_a_timeout_must_be_a_positive_number
    require "wirebind/http2/server"
    error = assert_raises(Wirebind::HTTP2::Server::Error) { Wirebind::HTTP2::Server.new(->(_env) {}, port: 0, write_timeout: 0) }
    assert_match(/--write-timeout must be a number of seconds above 0 \(got 0\)/, error.message)
  end

  def test_rackup_handler
    rackup = Gem.bin_path("rackup", "rackup")
    url = spawn_server(rackup, "-s", "wirebind", "-o", "127.0.0.1", "-p", "0", "-E", "none", @config)
    assert_equal "served /r over HTTP/2\n", curl("--http2-prior-knowledge", "#{url}/r")
    stop("INT")
  end
end

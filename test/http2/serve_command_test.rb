# frozen_string_literal: true

require "test_helper"
require "fileutils"
require "open3"
require "rbconfig"
require "socket"
require "timeout"
require "tmpdir"

# `wirebind serve` and `rackup -s wirebind` as processes: serving a config.ru,
# a graceful stop on TERM with a request in flight, and accept running out of
# descriptors (RLIMIT_NOFILE lowered in the child) without the server exiting.
class ServeCommandTest < Minitest::Test
  EXE = File.expand_path("../../exe/wirebind", __dir__)
  LIB = File.expand_path("../../lib", __dir__)
  CONFIG = <<~RUBY
    run lambda { |env|
      sleep 1.5 if env["PATH_INFO"] == "/slow"
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

  def test_rackup_handler
    rackup = Gem.bin_path("rackup", "rackup")
    url = spawn_server(rackup, "-s", "wirebind", "-o", "127.0.0.1", "-p", "0", "-E", "none", @config)
    assert_equal "served /r over HTTP/2\n", curl("--http2-prior-knowledge", "#{url}/r")
    stop("INT")
  end
end

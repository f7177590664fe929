# frozen_string_literal: true

# `bundle exec rake bench:http2_server` (also part of `rake bench`):
# Wirebind::HTTP2::Server (`wirebind serve`) beside Falcon and Puma on the same
# Rack app, and beside nghttpd for a large file, all on loopback, wall-clock.
#
#   hello, json 4 KiB   h2load, 10 connections x 10 streams: wirebind vs Falcon (h2c);
#                       h2load --h1, 10 connections: wirebind vs Puma (HTTP/1.1)
#   256 MiB to_path     one curl download (h2c): wirebind (Rack::Files) vs nghttpd, the
#                       same file in tmp/ (the issue asks 1 GiB: 256 MiB keeps the disk and
#                       the run time down on a shared machine; the rate is what is compared)
#   allocations         objects allocated per request, the server run in this process
#
# Each server's answer is checked (status and body) before it is timed. One
# run, servers interleaved per row: on a shared machine the ratios are what
# to read, not the absolute figures.

lib = File.expand_path("../lib", __dir__)
$LOAD_PATH.unshift(lib) unless $LOAD_PATH.include?(lib)
$stdout.sync = true

require "fileutils"
require "json"
require "open3"
require "rbconfig"
require "socket"
require "rack"
require "rack/files"
require "wirebind/http2/server"
require_relative "loopback"

REQUESTS = Integer(ENV.fetch("BENCH_H2_REQUESTS", "20000"))
BIG_MIB = 256
dir = File.expand_path("../tmp/bench-h2server", __dir__)
FileUtils.mkdir_p(dir)
JSON_BODY = JSON.generate({ "items" => Array.new(60) { |i| { "id" => i, "name" => "item #{i}", "ok" => true } } })
                .then { |json| json + (" " * (4096 - json.bytesize)) }
abort "bench/http2_server.rb: the JSON body is #{JSON_BODY.bytesize} bytes, not 4096" unless JSON_BODY.bytesize == 4096
File.write(File.join(dir, "body.json"), JSON_BODY)
config = File.join(dir, "config.ru")
File.write(config, <<~RUBY)
  require "rack/files"
  json = File.read(#{File.join(dir, 'body.json').dump})
  files = Rack::Files.new(#{dir.dump})
  run lambda { |env|
    case env["PATH_INFO"]
    when "/hello" then [200, { "content-type" => "text/plain" }, ["hello world"]]
    when "/json" then [200, { "content-type" => "application/json" }, [json]]
    else files.call(env)
    end
  }
RUBY

def start(name, command)
  # production: no development middleware (Lint, logger) under Puma or Falcon
  pid = Process.spawn({ "RACK_ENV" => "production", "APP_ENV" => "production" }, *command, out: File::NULL, err: File::NULL, pgroup: true)
  [name, pid]
end

def check(url, expected, *flags)
  body, status = Open3.capture2("curl", "-sS", "--max-time", "30", *flags, url)
  abort "bench/http2_server.rb: #{url} answered #{body.bytesize} bytes, not the expected #{expected.bytesize}" unless status.success? && body == expected
end

def h2load(url, h1:)
  args = ["h2load", "-n", REQUESTS.to_s, "-c", "10", "-T", "60"]
  args += h1 ? ["--h1"] : ["-m", "10"]
  out, = Open3.capture2(*args, url)
  abort "bench/http2_server.rb: h2load #{url} failed:\n#{out}" unless out.include?("#{REQUESTS} succeeded")
  out[%r{finished in [^,]+, ([\d.]+) req/s}, 1].to_f
end

pids = []
begin
  ports = { "wirebind" => free_port, "falcon" => free_port, "puma" => free_port, "nghttpd" => free_port }
  pids << start("wirebind", [RbConfig.ruby, "-I", lib, File.expand_path("../exe/wirebind", __dir__), "serve", config, "--port", ports["wirebind"].to_s])
  pids << start("falcon", [Gem.bin_path("falcon", "falcon"), "serve", "--bind", "http://127.0.0.1:#{ports['falcon']}", "--count", "1", "--config", config])
  pids << start("puma", [Gem.bin_path("puma", "puma"), "-b", "tcp://127.0.0.1:#{ports['puma']}", "-t", "4:4", "-w", "0", "-e", "production", config])
  big = File.join(dir, "big.bin")
  File.open(big, "wb") do |file|
    chunk = Random.new(1).bytes(1 << 20)
    BIG_MIB.times { file.write(chunk) }
  end
  pids << start("nghttpd", ["nghttpd", "--no-tls", "-d", dir, ports["nghttpd"].to_s])
  ports.each { |name, port| abort "bench/http2_server.rb: #{name} did not start" unless wait_for_port(port) }

  puts "Wirebind::HTTP2::Server (wirebind serve, one process) beside falcon #{Gem.loaded_specs['falcon']&.version} (--count 1), " \
       "puma #{Gem.loaded_specs['puma']&.version} (-t 4:4, no workers, -e production) and nghttpd; loopback, wall-clock, one interleaved run"
  %w[hello json].each do |path|
    expected = path == "hello" ? "hello world" : JSON_BODY
    { "falcon" => false, "puma" => true }.each do |peer, h1|
      check("http://127.0.0.1:#{ports['wirebind']}/#{path}", expected, h1 ? "--http1.1" : "--http2-prior-knowledge")
      check("http://127.0.0.1:#{ports[peer]}/#{path}", expected, h1 ? "--http1.1" : "--http2-prior-knowledge")
      mine = h2load("http://127.0.0.1:#{ports['wirebind']}/#{path}", h1: h1)
      theirs = h2load("http://127.0.0.1:#{ports[peer]}/#{path}", h1: h1)
      puts format("  %-5s %-8s %6d requests, 10 connections%s: wirebind %9.1f req/s, %-6s %9.1f req/s: %.2fx",
                  path, h1 ? "HTTP/1.1" : "h2c", REQUESTS, h1 ? "" : " x 10 streams", mine, peer, theirs, mine / theirs)
    end
  end

  # the bytes first, compared with the file as they arrive (cmp reads curl's output: nothing kept)
  %w[wirebind nghttpd].each do |name|
    same = Open3.pipeline(["curl", "-sS", "--http2-prior-knowledge", "http://127.0.0.1:#{ports[name]}/big.bin"], ["cmp", "-s", "-", big])
                .all?(&:success?)
    abort "bench/http2_server.rb: #{name}'s big.bin differs from the file" unless same
  end
  speeds = %w[wirebind nghttpd].to_h do |name|
    out, = Open3.capture2("curl", "-sS", "--http2-prior-knowledge", "-o", File::NULL, "-w", "%{size_download} %{speed_download}",
                          "http://127.0.0.1:#{ports[name]}/big.bin")
    size, speed = out.split.map(&:to_f)
    abort "bench/http2_server.rb: #{name} sent #{size} bytes of #{BIG_MIB} MiB" unless size == BIG_MIB << 20
    [name, speed]
  end
  puts format("  to_path %d MiB, curl h2c: wirebind %.1f MB/s, nghttpd %.1f MB/s: %.2fx",
              BIG_MIB, speeds["wirebind"] / 1e6, speeds["nghttpd"] / 1e6, speeds["wirebind"] / speeds["nghttpd"])

  # allocations per request: the server in this process, h2load outside it
  app = Rack::Builder.parse_file(config)
  app = app.first if app.is_a?(Array)
  server = Wirebind::HTTP2::Server.new(app, port: 0)
  thread = Thread.new { server.run }
  { "hello h2c" => [false, "hello"], "hello HTTP/1.1" => [true, "hello"], "json h2c" => [false, "json"] }.each do |label, (h1, path)|
    h2load("#{server.url}/#{path}", h1: h1) # warm up
    before = GC.stat(:total_allocated_objects)
    h2load("#{server.url}/#{path}", h1: h1)
    per = (GC.stat(:total_allocated_objects) - before).fdiv(REQUESTS)
    puts format("  allocations per request, %-15s %.1f objects (the benchmark's own few included)", label, per)
  end
  server.stop
  thread.join
ensure
  pids.each do |_, pid|
    Process.kill("TERM", -pid)
    Process.wait(pid)
  rescue Errno::ESRCH, Errno::ECHILD
    nil
  end
  FileUtils.rm_rf(dir)
end

# frozen_string_literal: true

require "test_helper"
require "fileutils"
require "json"
require "open3"
require "rbconfig"
require "timeout"
require "tmpdir"
require "rack"
require "rack/lint"
require "rack/files"
require "wirebind/http2/server"
require "support/h2_clients"

# Wirebind::HTTP2::Server with clients nobody here wrote: curl (h2c, TLS,
# HTTP/1.1), nghttp, h2load, Node's http2, Python's h2 and headless Chromium,
# all on 127.0.0.1; the application behind Rack::Lint, so that every env and
# response is checked against the Rack 3 spec.
class HTTP2ServerTest < Minitest::Test
  include H2Clients

  # A Rack app: echoes the request, serves files under /files, streams, hijacks.
  class App
    def initialize(root)
      @files = Rack::Files.new(root)
    end

    def call(env)
      case env["PATH_INFO"]
      when %r{\A/files/} then @files.call(env.merge("PATH_INFO" => env["PATH_INFO"].delete_prefix("/files")))
      when "/stream" then [200, { "content-type" => "text/plain" }, proc { |stream| stream.write("streamed "); stream.write("body"); stream.close }]
      when "/page" then [200, { "content-type" => "text/html" }, [PAGE]]
      else
        body = env["rack.input"].read
        echo = { "method" => env["REQUEST_METHOD"], "path" => env["PATH_INFO"], "query" => env["QUERY_STRING"],
                 "protocol" => env["SERVER_PROTOCOL"], "scheme" => env["rack.url_scheme"], "body_size" => body.bytesize,
                 "body_md5" => Digest::MD5.hexdigest(body), "te" => env["HTTP_TRANSFER_ENCODING"] }
        [200, { "content-type" => "application/json", "x-multi" => %w[a b] }, [JSON.generate(echo)]]
      end
    end
  end

  PAGE = <<~HTML
    <!DOCTYPE html><html><body><p id="proto">none</p>
    <script>document.getElementById("proto").textContent = "proto=" + performance.getEntriesByType("navigation")[0].nextHopProtocol;</script>
    </body></html>
  HTML

  class << self
    attr_accessor :servers, :dir

    # One plain and one TLS server for the class, stopped at exit.
    def start
      return servers if servers

      require "digest"
      self.dir = Dir.mktmpdir("wirebind-h2server")
      File.binwrite(File.join(dir, "big.bin"), Random.new(2).bytes(3 * 1024 * 1024 + 17))
      cert = File.join(dir, "cert.pem")
      key = File.join(dir, "key.pem")
      system("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "1",
             "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", out: File::NULL, err: File::NULL) or raise "openssl req failed"
      linted = Rack::Lint.new(App.new(dir))
      # Lint refuses a rack.hijack response header itself: that one goes around it
      app = ->(env) { env["PATH_INFO"] == "/hijack" ? [200, { "rack.hijack" => proc {} }, []] : linted.call(env) }
      log = File.open(File.join(dir, "server.log"), "w")
      log.sync = true
      plain = Wirebind::HTTP2::Server.new(app, port: 0, log: log, drain_timeout: 2)
      tls = Wirebind::HTTP2::Server.new(app, port: 0, tls_cert: cert, tls_key: key, log: log, drain_timeout: 2)
      threads = [plain, tls].map { |server| Thread.new { server.run } }
      self.servers = { plain: plain, tls: tls, threads: threads, log: log }
      Minitest.after_run { stop }
      servers
    end

    def stop
      servers[:plain].stop
      servers[:tls].stop
      servers[:threads].each { |thread| thread.join(10) }
      servers[:log].close
      FileUtils.rm_rf(dir)
    end
  end

  def setup
    require_ruby_subprocess
    %w[curl nghttp h2load openssl].each { |tool| require_tool(tool) }
    @servers = self.class.start
    @plain = @servers[:plain].url
    @tls = @servers[:tls].url
  end

  def curl(*args)
    out, err, status = Open3.capture3("curl", "-sS", "--max-time", "30", *args)
    assert status.success?, "curl #{args.join(' ')} failed: #{err}"
    out
  end

  def test_curl_h2c_prior_knowledge_get_and_post
    out = curl("--http2-prior-knowledge", "-w", "\n%{http_version}", "#{@plain}/echo?x=1")
    json, version = out.split("\n")
    assert_equal "2", version
    assert_equal({ "method" => "GET", "path" => "/echo", "query" => "x=1", "protocol" => "HTTP/2", "scheme" => "http",
                   "body_size" => 0, "body_md5" => Digest::MD5.hexdigest(""), "te" => nil }, JSON.parse(json))
    body = Random.new(3).bytes(200_000) # above the 65,535-byte stream window: WINDOW_UPDATEs needed
    out = curl_with_input(body, "--http2-prior-knowledge", "--data-binary", "@-", "#{@plain}/upload")
    echo = JSON.parse(out)
    assert_equal [200_000, Digest::MD5.hexdigest(body)], [echo["body_size"], echo["body_md5"]]
  end

  def curl_with_input(input, *args)
    out, err, status = Open3.capture3("curl", "-sS", "--max-time", "30", *args, stdin_data: input)
    assert status.success?, "curl failed: #{err}"
    out
  end

  def test_curl_http1_keep_alive_chunked_and_expect_continue
    out = curl("--http1.1", "-w", "\n%{http_version} %{num_connects}\n", "#{@plain}/a", "#{@plain}/b")
    lines = out.split("\n")
    assert_equal "HTTP/1.1", JSON.parse(lines[0])["protocol"]
    assert_equal "1.1 1", lines[1]
    assert_equal "1.1 0", lines[3], "the second request reuses the connection (keep-alive)"
    body = "chunked body " * 1000
    out = curl_with_input(body, "--http1.1", "-H", "Transfer-Encoding: chunked", "--data-binary", "@-", "#{@plain}/chunked")
    echo = JSON.parse(out)
    assert_equal [body.bytesize, "chunked"], [echo["body_size"], echo["te"]]
    out = curl_with_input(body, "--http1.1", "-v", "-H", "Expect: 100-continue", "--data-binary", "@-", "#{@plain}/expect")
    assert_equal body.bytesize, JSON.parse(out)["body_size"]
    headers = curl("--http1.1", "-D", "-", "-o", File::NULL, "#{@plain}/h")
    assert_match(/^x-multi: a\r\nx-multi: b\r\n/, headers)
  end

  def test_expect_continue_answered_before_the_body
    Socket.tcp("127.0.0.1", @servers[:plain].port) do |socket|
      socket.write("POST /e HTTP/1.1\r\nhost: x\r\ncontent-length: 3\r\nexpect: 100-continue\r\n\r\n")
      assert_equal "HTTP/1.1 100 Continue\r\n\r\n", Timeout.timeout(10) { socket.readpartial(100) }
      socket.write("abc")
      assert_match(%r{\AHTTP/1.1 200 OK\r\n.*"body_size":3}m, Timeout.timeout(10) { socket.readpartial(1000) })
    end
  end

  def test_tls_alpn_h2_and_http1
    out = curl("-k", "-w", "\n%{http_version}", "#{@tls}/tls")
    json, version = out.split("\n")
    assert_equal ["2", "HTTP/2", "https"], [version, JSON.parse(json)["protocol"], JSON.parse(json)["scheme"]]
    out = curl("-k", "--http1.1", "-w", "\n%{http_version}", "#{@tls}/tls1")
    json, version = out.split("\n")
    assert_equal ["1.1", "HTTP/1.1"], [version, JSON.parse(json)["protocol"]]
  end

  def test_to_path_bodies_whole_over_every_protocol
    expected = Digest::MD5.file(File.join(self.class.dir, "big.bin")).hexdigest
    [["--http2-prior-knowledge", @plain], ["--http1.1", @plain], ["-k", @tls], ["-k --http1.1", @tls]].each do |flags, base|
      out = curl(*flags.split, "-o", "-", "#{base}/files/big.bin")
      assert_equal expected, Digest::MD5.hexdigest(out), "#{flags} #{base}"
    end
    assert_match(/content-length: 3145745/i, curl("--http2-prior-knowledge", "-I", "#{@plain}/files/big.bin"))
    assert_equal "404", curl("--http2-prior-knowledge", "-o", File::NULL, "-w", "%{http_code}", "#{@plain}/files/none")
  end

  def test_streaming_body_and_hijack_refused
    assert_equal "streamed body", curl("--http2-prior-knowledge", "#{@plain}/stream")
    assert_equal "streamed body", curl("--http1.1", "#{@plain}/stream")
    assert_equal "500", curl("--http2-prior-knowledge", "-o", File::NULL, "-w", "%{http_code}", "#{@plain}/hijack")
    assert_match(/rack\.hijack is not supported/, File.read(File.join(self.class.dir, "server.log")))
  end

  def test_nghttp_and_h2load
    out, status = Open3.capture2e("nghttp", "-n", "-s", "#{@plain}/n1", "#{@plain}/n2", "#{@plain}/files/big.bin")
    assert status.success?, out
    assert_equal 3, out.scan(/200/).size, out
    out, status = Open3.capture2e("h2load", "-n", "200", "-c", "4", "-m", "10", "#{@plain}/load")
    assert status.success?, out
    assert_match(/200 succeeded, 0 failed, 0 errored/, out)
    out, status = Open3.capture2e("h2load", "--h1", "-n", "100", "-c", "2", "#{@plain}/load")
    assert status.success?, out
    assert_match(/100 succeeded, 0 failed, 0 errored/, out)
  end

  def test_node_http2_client
    require_tool("node", "nodejs")
    script = <<~JS
      const http2 = require("http2");
      const client = http2.connect(process.argv[1], { rejectUnauthorized: false });
      const req = client.request({ ":method": "POST", ":path": "/node" });
      let data = "";
      req.on("data", (chunk) => { data += chunk; });
      req.on("end", () => { console.log(data); client.close(); });
      req.end("from node");
    JS
    [@plain, @tls].each do |base|
      out, status = Open3.capture2e("node", "-e", script, base)
      assert status.success?, out
      assert_equal [9, "HTTP/2"], JSON.parse(out).values_at("body_size", "protocol")
    end
  end

  def test_python_h2_client
    require_python_h2
    script = python_h2_get("/py") + <<~PY
      body, done = b"", False
      while not done:
          data = sock.recv(65535)
          if not data:
              break
          for event in conn.receive_data(data):
              if isinstance(event, h2.events.DataReceived):
                  body += event.data
                  conn.acknowledge_received_data(len(event.data), event.stream_id)
              if isinstance(event, h2.events.StreamEnded):
                  done = True
          sock.sendall(conn.data_to_send())
      print(body.decode())
    PY
    out, status = Open3.capture2e("/usr/bin/python3", "-c", script, @servers[:plain].port.to_s)
    assert status.success?, out
    assert_equal "/py", JSON.parse(out)["path"]
  end

  def test_headless_chromium_loads_a_page_over_h2
    require_tool("chromium")
    profile = Dir.mktmpdir("wirebind-chromium")
    out, = Open3.capture2e("timeout", "90", "chromium", "--headless", "--no-sandbox", "--disable-gpu", "--ignore-certificate-errors",
                           "--user-data-dir=#{profile}", "--virtual-time-budget=2000", "--dump-dom", "#{@tls}/page")
    assert_match(/proto=h2</, out)
  ensure
    FileUtils.rm_rf(profile) if profile
  end
end

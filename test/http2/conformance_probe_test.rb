# frozen_string_literal: true

require "test_helper"
require "socket"
require "tmpdir"
require "support/h2_peer"

# Probes of RFC 9113 and RFC 7541 MUST rules, as raw frames over TCP, sent
# to wirebind's connection (behind a tiny TCP server) and to nghttpd
# (nghttp2-server) in the same run: wherever nghttpd answers with an error
# (GOAWAY, RST_STREAM or a closed connection), wirebind must too.
class H2ConformanceProbeTest < Minitest::Test
  Frame = Wirebind::HTTP2::Frame
  NGHTTPD = "/usr/sbin/nghttpd"

  def self.settings(*pairs)
    pairs.each_slice(2).map { |id, value| [id, value].pack("nN") }.join
  end

  def self.request_headers(path = "/")
    [[":method", "GET"], [":scheme", "http"], [":path", path], [":authority", "127.0.0.1"]]
  end

  # name => the frames (after the preface and an empty SETTINGS) given an H2Peer
  PROBES = {
    "DATA on stream 0" => ->(c) { c.frame(Frame::DATA, 0, 0, "x") },
    "HEADERS on stream 0" => ->(c) { c.frame(Frame::HEADERS, 5, 0, c.encoder.encode(request_headers)) },
    "HEADERS on an even stream" => ->(c) { c.frame(Frame::HEADERS, 5, 2, c.encoder.encode(request_headers)) },
    "SETTINGS ACK with a payload" => ->(c) { c.frame(Frame::SETTINGS, Frame::ACK, 0, "\0" * 6) },
    "SETTINGS of 5 bytes" => ->(c) { c.frame(Frame::SETTINGS, 0, 0, "\0" * 5) },
    "SETTINGS on stream 1" => ->(c) { c.frame(Frame::SETTINGS, 0, 1) },
    "SETTINGS_ENABLE_PUSH 2" => ->(c) { c.frame(Frame::SETTINGS, 0, 0, settings(Frame::SETTINGS_ENABLE_PUSH, 2)) },
    "SETTINGS_INITIAL_WINDOW_SIZE 2^31" => ->(c) { c.frame(Frame::SETTINGS, 0, 0, settings(Frame::SETTINGS_INITIAL_WINDOW_SIZE, 2**31)) },
    "SETTINGS_MAX_FRAME_SIZE 16383" => ->(c) { c.frame(Frame::SETTINGS, 0, 0, settings(Frame::SETTINGS_MAX_FRAME_SIZE, 16_383)) },
    "SETTINGS_MAX_FRAME_SIZE 2^24" => ->(c) { c.frame(Frame::SETTINGS, 0, 0, settings(Frame::SETTINGS_MAX_FRAME_SIZE, 2**24)) },
    "PING of 7 bytes" => ->(c) { c.frame(Frame::PING, 0, 0, "1234567") },
    "PING on stream 1" => ->(c) { c.frame(Frame::PING, 0, 1, "12345678") },
    "GOAWAY on stream 1" => ->(c) { c.frame(Frame::GOAWAY, 0, 1, [0, 0].pack("NN")) },
    "WINDOW_UPDATE of 0 on the connection" => ->(c) { c.frame(Frame::WINDOW_UPDATE, 0, 0, [0].pack("N")) },
    "WINDOW_UPDATE of 3 bytes" => ->(c) { c.frame(Frame::WINDOW_UPDATE, 0, 0, "\0\0\1") },
    "the connection window above 2^31-1" => lambda { |c|
      c.frame(Frame::WINDOW_UPDATE, 0, 0, [2**31 - 1].pack("N"))
    },
    "RST_STREAM on an idle stream" => ->(c) { c.frame(Frame::RST_STREAM, 0, 1, [8].pack("N")) },
    "RST_STREAM on stream 0" => ->(c) { c.frame(Frame::RST_STREAM, 0, 0, [8].pack("N")) },
    "RST_STREAM of 3 bytes" => lambda { |c|
      c.frame(Frame::HEADERS, 4, 1, c.encoder.encode(request_headers))
      c.frame(Frame::RST_STREAM, 0, 1, "\0\0\0")
    },
    "PRIORITY of 4 bytes" => ->(c) { c.frame(Frame::PRIORITY, 0, 1, "\0\0\0\0") },
    "PRIORITY on stream 0" => ->(c) { c.frame(Frame::PRIORITY, 0, 0, [1, 15].pack("NC")) },
    "HEADERS depending on itself" => lambda { |c|
      c.frame(Frame::HEADERS, 5 | Frame::PRIORITY_FLAG, 1, [1, 15].pack("NC") + c.encoder.encode(request_headers))
    },
    "CONTINUATION without HEADERS" => ->(c) { c.frame(Frame::CONTINUATION, 4, 1, c.encoder.encode(request_headers)) },
    "a PING inside a header block" => lambda { |c|
      c.frame(Frame::HEADERS, 1, 1, c.encoder.encode(request_headers))
      c.frame(Frame::PING, 0, 0, "12345678")
    },
    "CONTINUATION on another stream" => lambda { |c|
      c.frame(Frame::HEADERS, 1, 1, c.encoder.encode(request_headers))
      c.frame(Frame::CONTINUATION, 4, 3, "")
    },
    "DATA on an idle stream" => ->(c) { c.frame(Frame::DATA, 1, 1, "x") },
    "DATA on a half-closed stream" => lambda { |c|
      c.frame(Frame::HEADERS, 5, 1, c.encoder.encode(request_headers))
      c.frame(Frame::DATA, 1, 1, "x")
    },
    "PUSH_PROMISE from a client" => ->(c) { c.frame(Frame::PUSH_PROMISE, 4, 1, [2].pack("N") + c.encoder.encode(request_headers)) },
    "a frame above SETTINGS_MAX_FRAME_SIZE" => ->(c) { c.frame(Frame::DATA, 0, 1, "x" * 16_385) },
    "HEADERS padding longer than the payload" => lambda { |c|
      c.frame(Frame::HEADERS, 5 | Frame::PADDED, 1, [200].pack("C") + c.encoder.encode(request_headers))
    },
    "a decreasing stream id" => lambda { |c|
      c.frame(Frame::HEADERS, 5, 5, c.encoder.encode(request_headers))
      c.frame(Frame::HEADERS, 5, 3, c.encoder.encode(request_headers))
    },
    "HPACK index 0" => ->(c) { c.frame(Frame::HEADERS, 5, 1, "\x80".b) },
    "HPACK index past the tables" => ->(c) { c.frame(Frame::HEADERS, 5, 1, "\xff\x10".b) },
    "HPACK table size update above the limit" => ->(c) { c.frame(Frame::HEADERS, 5, 1, "\x3f\xe2\x1f".b + c.encoder.encode(request_headers)) },
    "HPACK table size update after a field" => ->(c) { c.frame(Frame::HEADERS, 5, 1, "\x82\x20".b) },
    "HPACK integer overflow" => ->(c) { c.frame(Frame::HEADERS, 5, 1, "\xff\xff\xff\xff\xff\xff\x0f".b) },
    "HPACK string past the block" => ->(c) { c.frame(Frame::HEADERS, 5, 1, "\x40\x0a\x61".b) },
    "HPACK Huffman EOS" => ->(c) { c.frame(Frame::HEADERS, 5, 1, "\x40\x84\xff\xff\xff\xff\x01\x61".b) },
    "HPACK Huffman padding of zeros" => ->(c) { c.frame(Frame::HEADERS, 5, 1, "\x40\x81\x00\x01\x61".b) },
    "content-length above the DATA" => lambda { |c|
      c.frame(Frame::HEADERS, 4, 1, c.encoder.encode([%w[:method POST], %w[:scheme http], %w[:path /], %w[content-length 10]]))
      c.frame(Frame::DATA, 1, 1, "abc")
    },
    "an unknown frame type (ignored)" => ->(c) { c.frame(0x42, 0, 0, "whatever") }
  }.merge(
    H2Peer::MALFORMED.to_h do |label, headers|
      ["malformed request: #{label}", ->(c) { c.frame(Frame::HEADERS, 5, 1, c.encoder.encode(headers)) }]
    end
  ).freeze

  def setup
    return if File.executable?(NGHTTPD)

    message = "#{NGHTTPD} is not installed (apt-get install nghttp2-server)"
    flunk message if ENV["CI"]
    skip message
  end

  def test_wirebind_answers_at_least_as_strictly_as_nghttpd
    Dir.mktmpdir("wirebind-probe") do |root|
      File.write(File.join(root, "index.html"), "hi\n")
      with_nghttpd(root) do |nghttpd_port|
        H2Peer.tcp_server do |wirebind_port|
          weaker = []
          errors = 0
          PROBES.each do |name, probe|
            theirs = run_probe(nghttpd_port, probe)
            ours = run_probe(wirebind_port, probe)
            $stderr.print "#{name}: nghttpd #{theirs.inspect}, wirebind #{ours.inspect}\n" if ENV["PROBE_TABLE"] # the table, on demand
            errors += 1 if error?(theirs)
            weaker << "#{name}: nghttpd #{theirs.inspect}, wirebind #{ours.inspect}" if error?(theirs) && !error?(ours)
          end
          assert_empty weaker, "probes where wirebind is less strict than nghttpd"
          assert_operator errors, :>=, PROBES.size / 2, "nghttpd answered most probes with an error (the probes are live)"
        end
      end
    end
  end

  private

  def error?(outcome)
    %i[goaway reset closed].include?(outcome.first)
  end

  # @return [Array] [:goaway, code] / [:reset, code] / [:closed] / [:ok]
  def run_probe(port, probe)
    socket = TCPSocket.new("127.0.0.1", port)
    c = H2Peer.new(socket: socket)
    begin
      probe.call(c)
      c.frame(Frame::PING, 0, 0, "probe-ok")
    rescue Errno::EPIPE, Errno::ECONNRESET
      return [:closed]
    end
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 3
    pinged = false
    loop do
      left = deadline - Process.clock_gettime(Process::CLOCK_MONOTONIC)
      return [:ok] if left <= 0 # silence is not an error

      frame = begin
        c.read_frame(left)
      rescue Timeout::Error, Wirebind::HTTP2::Error
        return pinged ? [:ok] : [:timeout]
      end
      return [:closed] if frame.nil?

      case frame.type
      when Frame::GOAWAY then return [:goaway, c.code(frame.payload.get_u32(4))]
      when Frame::RST_STREAM then return [:reset, c.code(frame.payload.get_u32(0))]
      when Frame::PING
        # the requests' answers may follow the PING's: wait a little for a reset
        pinged = true if frame.flag?(Frame::ACK)
        deadline = [deadline, Process.clock_gettime(Process::CLOCK_MONOTONIC) + 0.3].min if pinged
      end
    end
  ensure
    c&.close
    socket&.close
  end

  def with_nghttpd(root)
    port = TCPServer.open("127.0.0.1", 0) { |probe| probe.local_address.ip_port }
    pid = Process.spawn(NGHTTPD, "--no-tls", "-a", "127.0.0.1", "-d", root, port.to_s, out: File::NULL, err: File::NULL)
    Timeout.timeout(10) do
      TCPSocket.new("127.0.0.1", port).close
    rescue Errno::ECONNREFUSED
      sleep 0.05
      retry
    end
    yield port
  ensure
    if pid
      Process.kill("TERM", pid)
      Process.wait(pid)
    end
  end
end

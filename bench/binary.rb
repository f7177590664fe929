# frozen_string_literal: true

# `bundle exec rake bench:binary` (also part of `rake bench`):
# Wirebind::Buffer, binary records and HTTP/2 against the gems people use for
# the same work, and the example HTTP/2 file server against nghttpd.
#
#   frame header decode      one 9-byte HTTP/2 frame header: Buffer accessors,
#                            Binary.decode into a record, String#unpack1 x4, unpack
#   64 DATA frames x 16 KiB  parsed from one buffer: Wirebind::HTTP2::Reader,
#                            protocol-http2's Framer#read_frame, http-2's Framer#parse;
#                            written to /dev/null: Wirebind::HTTP2::Writer, both Framers
#   HPACK                    a realistic request + response header set, fresh
#                            tables per block: decode and encode against
#                            protocol-hpack and http-2's compressor
#   binary record            the frame layout, decode and encode, against BinData
#   example server           a 1 GB download with curl, and h2load req/s on a
#                            small file, beside nghttpd serving the same directory
#
# Every contender's output is checked equal to wirebind's (or, for encoders,
# decoded back to the same headers) before anything is timed; then each runs
# BENCH_ROUNDS rounds and the median is kept. In-process figures are CPU time
# (Bench::Clock.cpu_ns), not wall-clock time: on a shared machine the
# wall clock also counts the time other processes hold the CPU, which says
# nothing about the code measured (run nice'd, the gap is large). The server
# part is wall-clock (what curl and h2load see), with the server's own CPU
# time beside it. Goals from issue 10 are printed with the measured ratios.
# BENCH_SERVER=0 skips the server part.

lib = File.expand_path("../lib", __dir__)
$LOAD_PATH.unshift(lib) unless $LOAD_PATH.include?(lib)
$stdout.sync = true

require "wirebind"
require "wirebind/http2"
require_relative "clock"
require_relative "hpack_headers"
require_relative "loopback"
require "stringio"
require "bindata"
require "protocol/http2"
require "protocol/hpack"
require "http/2"
require "fileutils"
require "open3"
require "socket"
require "rbconfig"
require "etc"
require "arraybuffer"

ROUNDS = Integer(ENV.fetch("BENCH_ROUNDS", "7"))
Frame = Wirebind::HTTP2::Frame

def check(what, expected, actual)
  return if expected == actual

  abort "bench/binary.rb: #{what}: the output differs from wirebind's; nothing timed"
end

# Median CPU ns per op over ROUNDS rounds of n ops, and allocations per op.
def measure(n)
  yield # warm
  times = Array.new(ROUNDS) do
    start = Bench::Clock.cpu_ns
    yield
    Bench::Clock.cpu_ns - start
  end
  before = GC.stat(:total_allocated_objects)
  yield
  allocations = (GC.stat(:total_allocated_objects) - before).fdiv(n)
  [times.sort[ROUNDS / 2].fdiv(n), allocations]
end

def row(name, ns, allocations, base = nil, unit: "ns/op")
  ratio = base ? format("%7.2fx", ns / base) : "        "
  puts format("  %-44s %12.1f %s %8.2f alloc/op %s", name, ns, unit, allocations, ratio)
end

def goal(text, ratio, target)
  puts format("  goal: %-58s measured %.2fx  %s", text, ratio, ratio >= target ? "met" : "NOT met")
end

puts "wirebind binary benchmarks (#{RUBY_DESCRIPTION}); backend: #{Wirebind.backend}"
puts "peers: protocol-http2 #{Protocol::HTTP2::VERSION}, http-2 #{HTTP2::VERSION}, protocol-hpack #{Protocol::HPACK::VERSION}, " \
     "bindata #{BinData::VERSION}, arraybuffer #{Gem.loaded_specs['arraybuffer']&.version}; times are CPU time"

# ---- frame header ----
header_bytes = [0, 16_384, Frame::DATA, 1, 0x8000_0003].pack("CnCCN").freeze
view = Wirebind::Buffer.read_only(header_bytes)
expected = [16_384, 0, 1, 3]
check("Buffer accessors", expected, [view.get_u24(0), view.get_u8(3), view.get_u8(4), view.get_u32(5) & 0x7fff_ffff])
record = Wirebind::Binary.decode(view, Frame::Header)
check("Binary.decode", expected, [record.length, record.type, record.flags, record.stream_id])
reused = Frame::Header.new
Wirebind::Binary.decode(view, Frame::Header, into: reused)
check("Binary.decode into:", expected, [reused.length, reused.type, reused.flags, reused.stream_id])
data_view = DataView.new(ArrayBuffer.new(9).tap { |b| header_bytes.each_byte.with_index { |byte, i| b[i] = byte } }, 0, 9)
check("arraybuffer DataView", expected, [data_view.getU24(0), data_view.getU8(3), data_view.getU8(4), data_view.getU32(5) & 0x7fff_ffff])
check("unpack1", expected, [(header_bytes.unpack1("n") << 8) | header_bytes.getbyte(2), header_bytes.unpack1("C", offset: 3),
                            header_bytes.unpack1("C", offset: 4), header_bytes.unpack1("N", offset: 5) & 0x7fff_ffff])

n = 1_000_000
puts "\nframe header decode (#{n} headers per round; each figure includes the loop's own cost, first row)"
loop_ns, loop_alloc = measure(n) do
  i = 0
  i += 1 while i < n
end
accessors, accessors_alloc = measure(n) do
  i = 0
  while i < n
    view.get_u24(0)
    view.get_u8(3)
    view.get_u8(4)
    view.get_u32(5) & 0x7fff_ffff
    i += 1
  end
end
record_ns, record_alloc = measure(n) do
  i = 0
  while i < n
    Wirebind::Binary.decode(view, Frame::Header)
    i += 1
  end
end
into_ns, into_alloc = measure(n) do
  i = 0
  while i < n
    Wirebind::Binary.decode(view, Frame::Header, into: reused)
    i += 1
  end
end
data_view_ns, data_view_alloc = measure(n) do
  i = 0
  while i < n
    data_view.getU24(0)
    data_view.getU8(3)
    data_view.getU8(4)
    data_view.getU32(5) & 0x7fff_ffff
    i += 1
  end
end
unpack1_ns, unpack1_alloc = measure(n) do
  i = 0
  while i < n
    (header_bytes.unpack1("n") << 8) | header_bytes.getbyte(2)
    header_bytes.unpack1("C", offset: 3)
    header_bytes.unpack1("C", offset: 4)
    header_bytes.unpack1("N", offset: 5) & 0x7fff_ffff
    i += 1
  end
end
unpack_ns, unpack_alloc = measure(n) do
  i = 0
  while i < n
    header_bytes.unpack("CnCCN")
    i += 1
  end
end
row("the loop alone (while i < n; i += 1)", loop_ns, loop_alloc)
row("Buffer#get_u24/get_u8/get_u8/get_u32", accessors, accessors_alloc)
row("Binary.decode(buffer, Frame::Header) (a record)", record_ns, record_alloc)
row("Binary.decode(..., into: record) (reused)", into_ns, into_alloc)
row("arraybuffer DataView#getU24/getU8/getU8/getU32", data_view_ns, data_view_alloc, accessors)
row("String#unpack1 x4", unpack1_ns, unpack1_alloc, accessors)
row("String#unpack(\"CnCCN\") (an Array)", unpack_ns, unpack_alloc)
best = [accessors, into_ns].min
puts format("  goal: at most 60 ns and 0 allocations per header: best %.1f ns (%s), %.2f alloc/op  %s",
            best, best == accessors ? "accessors" : "into:", best == accessors ? accessors_alloc : into_alloc,
            best <= 60 && accessors_alloc.zero? ? "met" : "NOT met")
puts format("  vs unpack1 x4: %.2fx faster; vs arraybuffer's DataView: %.2fx faster", unpack1_ns / best, data_view_ns / best)

# ---- 64 DATA frames ----
payloads = Array.new(64) { |i| (i.chr * 16_384).b.freeze }
wire = payloads.map { |p| [0, p.bytesize, Frame::DATA, 0, 1].pack("CnCCN") + p }.join.freeze
puts "\n64 DATA frames of 16 KiB (#{wire.bytesize} bytes) per op"

parse_wirebind = lambda do
  reader = Wirebind::HTTP2::Reader.new
  reader.push(wire)
  Array.new(64) { reader.next_frame }
end
parse_protocol = lambda do
  framer = Protocol::HTTP2::Framer.new(StringIO.new(wire))
  Array.new(64) { framer.read_frame(16_384) }
end
parse_http2 = lambda do
  framer = HTTP2::Framer.new
  buffer = wire.dup
  Array.new(64) { framer.parse(buffer) }
end
check("Reader", payloads, parse_wirebind.call.map { |f| f.payload.to_s })
check("protocol-http2 Framer#read_frame", payloads, parse_protocol.call.map(&:unpack))
check("http-2 Framer#parse", payloads, parse_http2.call.map { |f| f[:payload] })

reps = 200
w_parse, w_parse_alloc = measure(reps) { reps.times { parse_wirebind.call } }
p_parse, p_parse_alloc = measure(reps) { reps.times { parse_protocol.call } }
h_parse, h_parse_alloc = measure(reps) { reps.times { parse_http2.call } }
row("parse: Wirebind::HTTP2::Reader", w_parse / 1000, w_parse_alloc, unit: "us/op")
row("parse: protocol-http2 Framer#read_frame", p_parse / 1000, p_parse_alloc, w_parse / 1000, unit: "us/op")
row("parse: http-2 Framer#parse", h_parse / 1000, h_parse_alloc, w_parse / 1000, unit: "us/op")

sink = File.open(File::NULL, "wb")
write_wirebind = ->(io) { writer = Wirebind::HTTP2::Writer.new(io); payloads.each { |p| writer.write_frame(Frame::DATA, 0, 1, p) } }
write_corked = lambda do |io|
  writer = Wirebind::HTTP2::Writer.new(io)
  writer.cork { payloads.each { |p| writer.write_frame(Frame::DATA, 0, 1, p) } }
end
write_protocol = lambda do |io|
  framer = Protocol::HTTP2::Framer.new(io)
  payloads.each do |p|
    frame = Protocol::HTTP2::DataFrame.new(1)
    frame.pack(p, maximum_size: 16_384)
    framer.write_frame(frame)
  end
end
write_http2 = lambda do |io|
  framer = HTTP2::Framer.new
  payloads.each { |p| io.write(framer.generate({ type: :data, stream: 1, flags: 0, payload: p.dup })) }
end
[["Writer", write_wirebind], ["Writer#cork", write_corked], ["protocol-http2 Framer#write_frame", write_protocol], ["http-2 Framer#generate", write_http2]].each do |name, writer|
  io = StringIO.new("".b)
  writer.call(io)
  check(name, wire, io.string)
end
w_write, w_write_alloc = measure(reps) { reps.times { write_wirebind.call(sink) } }
c_write, c_write_alloc = measure(reps) { reps.times { write_corked.call(sink) } }
# the floor: the same headers and payloads, already packed, in one IO#write (one writev)
parts = payloads.flat_map { |p| [[0, p.bytesize, Frame::DATA, 0, 1].pack("CnCCN"), p] }
check("one IO#write of the parts", wire, parts.join)
floor_write, floor_alloc = measure(reps) { reps.times { sink.write(*parts) } }
p_write, p_write_alloc = measure(reps) { reps.times { write_protocol.call(sink) } }
h_write, h_write_alloc = measure(reps) { reps.times { write_http2.call(sink) } }
row("write: Wirebind::HTTP2::Writer (a writev per frame)", w_write / 1000, w_write_alloc, unit: "us/op")
row("write: Writer#cork (one writev for the 64)", c_write / 1000, c_write_alloc, unit: "us/op")
row("write: the floor, one IO#write of the packed parts", floor_write / 1000, floor_alloc, unit: "us/op")
row("write: protocol-http2 Framer#write_frame", p_write / 1000, p_write_alloc, c_write / 1000, unit: "us/op")
row("write: http-2 Framer#generate + IO#write", h_write / 1000, h_write_alloc, c_write / 1000, unit: "us/op")
goal("parse at least 3x protocol-http2", p_parse / w_parse, 3)
goal("parse at least 3x http-2", h_parse / w_parse, 3)
goal("write at least 3x protocol-http2 (Writer#cork)", p_write / c_write, 3)
goal("write at least 3x http-2 (Writer#cork)", h_write / c_write, 3)
goal("write at least 3x protocol-http2 (a write per frame)", p_write / w_write, 3)
goal("write at least 3x http-2 (a write per frame)", h_write / w_write, 3)

# ---- HPACK ----
headers = Bench::HPACK_HEADERS
block = Wirebind::HTTP2::HPACK::Encoder.new.encode(headers).freeze
puts "\nHPACK: #{headers.size} request headers (#{block.bytesize}-byte block), fresh tables per block"
decode_w = -> { Wirebind::HTTP2::HPACK::Decoder.new.decode(block) }
decode_p = -> { Protocol::HPACK::Decompressor.new(block.dup, Protocol::HPACK::Context.new).decode }
decode_h = -> { HTTP2::Header::Decompressor.new.decode(block.dup) }
check("HPACK decode", headers, decode_w.call)
check("protocol-hpack decode", headers, decode_p.call)
check("http-2 decode", headers, decode_h.call.map { |n, v| [n, v] })
encode_w = -> { Wirebind::HTTP2::HPACK::Encoder.new.encode(headers) }
encode_p = -> { Protocol::HPACK::Compressor.new(String.new.b, Protocol::HPACK::Context.new).encode(headers) }
encode_h = -> { HTTP2::Header::Compressor.new.encode(headers.map(&:dup)) }
check("HPACK encode round trip", headers, Wirebind::HTTP2::HPACK::Decoder.new.decode(encode_w.call))
check("protocol-hpack encode", headers, Wirebind::HTTP2::HPACK::Decoder.new.decode(encode_p.call))
check("http-2 encode", headers, Wirebind::HTTP2::HPACK::Decoder.new.decode(encode_h.call))
reps = 2000
results = {}
{ decode: [decode_w, decode_p, decode_h], encode: [encode_w, encode_p, encode_h] }.each do |kind, (w, p, h)|
  wn, wa = measure(reps) { reps.times { w.call } }
  pn, pa = measure(reps) { reps.times { p.call } }
  hn, ha = measure(reps) { reps.times { h.call } }
  row("#{kind}: wirebind", wn / 1000, wa, unit: "us/op")
  row("#{kind}: protocol-hpack", pn / 1000, pa, wn / 1000, unit: "us/op")
  row("#{kind}: http-2", hn / 1000, ha, wn / 1000, unit: "us/op")
  results[kind] = [pn / wn, hn / wn]
end
goal("HPACK decode at least 5x protocol-hpack", results[:decode][0], 5)
goal("HPACK decode at least 5x http-2", results[:decode][1], 5)
goal("HPACK encode at least 5x protocol-hpack", results[:encode][0], 5)
goal("HPACK encode at least 5x http-2", results[:encode][1], 5)

# ---- binary record vs BinData ----
class BinDataFrame < BinData::Record
  endian :big
  uint24 :len
  uint8 :frame_type
  uint8 :flags
  bit1 :reserved
  bit31 :stream_id
  string :data, read_length: :len
end
frame_bytes = ([0, 5, 0, 1, 3].pack("CnCCN") + "hello").freeze
mine = Wirebind::Binary.decode(frame_bytes, Frame)
theirs = BinDataFrame.read(frame_bytes)
check("BinData decode", [mine.length, mine.type, mine.flags, mine.stream_id, mine.payload.to_s],
      [theirs.len.to_i, theirs.frame_type.to_i, theirs.flags.to_i, theirs.stream_id.to_i, theirs.data.to_s])
check("BinData encode", Wirebind::Binary.encode(mine).to_s, theirs.to_binary_s)
puts "\nbinary record (the HTTP/2 frame layout, 5-byte payload)"
reps = 20_000
wd, wda = measure(reps) { reps.times { Wirebind::Binary.decode(frame_bytes, Frame) } }
bd, bda = measure(reps / 20) { (reps / 20).times { BinDataFrame.read(frame_bytes) } }
we, wea = measure(reps) { reps.times { Wirebind::Binary.encode(mine) } }
be, bea = measure(reps / 20) { (reps / 20).times { theirs.to_binary_s } }
row("decode: Wirebind::Binary.decode", wd, wda)
row("decode: BinData::Record.read", bd, bda, wd)
row("encode: Wirebind::Binary.encode", we, wea)
row("encode: BinData#to_binary_s", be, bea, we)
goal("record decode more than 100x BinData", bd / wd, 100)
goal("record encode more than 100x BinData", be / we, 100)

# ---- the example server ----
exit 0 if ENV["BENCH_SERVER"] == "0"

def start(command, **options)
  stdin, stdout, wait = Open3.popen2(*command, err: File::NULL, **options)
  stdin.close
  [stdout, wait]
end

def stop(wait, group: false)
  Process.kill("TERM", group ? -wait.pid : wait.pid)
  wait.join(10) || Process.kill("KILL", group ? -wait.pid : wait.pid)
rescue Errno::ESRCH
  nil
end

# CPU seconds (user + system) a process has used so far, from /proc.
def cpu_seconds(pid)
  fields = File.read("/proc/#{pid}/stat").split(") ", 2).last.split
  (fields[11].to_i + fields[12].to_i).fdiv(Etc.sysconf(Etc::SC_CLK_TCK))
rescue Errno::ENOENT, NotImplementedError
  nil
end

root = File.expand_path("../tmp/bench-h2", __dir__)
falcon_config = File.expand_path("../tmp/bench-h2-falcon.ru", __dir__)
FileUtils.mkdir_p(root)
big = File.join(root, "1g.bin")
small = File.join(root, "small.txt")
begin
  File.binwrite(small, "x" * 1024)
  File.open(big, "wb") do |file|
    chunk = Random.new(1).bytes(1 << 20)
    1024.times { file.write(chunk) }
  end
  File.write(falcon_config, "require \"rack/files\"\nrun Rack::Files.new(#{root.dump})\n")
  puts "\nexample server (examples/h2_file_server.rb), nghttpd #{`nghttpd --version 2>&1`[/\d+\.\d+\.\d+/]} " \
       "and falcon #{Gem.loaded_specs['falcon']&.version} (one process, rack's Rack::Files) on loopback; wall-clock"
  servers = {}
  stdout, wait = start([RbConfig.ruby, File.expand_path("../examples/h2_file_server.rb", __dir__), "--port", "0", "--root", root])
  servers["wirebind"] = [Integer(stdout.gets[/:(\d+)$/, 1]), wait]
  port = free_port
  _, wait = start(["nghttpd", "--no-tls", "-d", root, port.to_s])
  servers["nghttpd"] = [port, wait]
  port = free_port
  _, wait = start([Gem.bin_path("falcon", "falcon"), "serve", "--bind", "http://127.0.0.1:#{port}", "--count", "1",
                   "--config", falcon_config], pgroup: true)
  servers["falcon"] = [port, wait]
  servers.each { |name, (server_port, _)| abort "bench/binary.rb: #{name} did not start" unless wait_for_port(server_port) }
  figures = {}
  servers.each do |name, (server_port, wait)|
    before = cpu_seconds(wait.pid)
    output, = Open3.capture2("curl", "-sS", "--http2-prior-knowledge", "-o", File::NULL, "-w", "%{size_download} %{speed_download}",
                             "http://127.0.0.1:#{server_port}/1g.bin")
    cpu = before && name != "falcon" && (cpu_seconds(wait.pid) - before) # falcon serves from a child process
    size, speed = output.split.map(&:to_f)
    abort "bench/binary.rb: #{name} sent #{size} bytes of 1 GiB" unless size == 1 << 30
    h2load, = Open3.capture2("h2load", "-n", "20000", "-c", "4", "-m", "10", "-T", "60", "http://127.0.0.1:#{server_port}/small.txt")
    abort "bench/binary.rb: h2load against #{name} failed:\n#{h2load}" unless h2load.include?("20000 succeeded")
    rps = h2load[%r{finished in [^,]+, ([\d.]+) req/s}, 1].to_f
    figures[name] = [speed, rps]
    puts format("  %-10s 1 GiB with curl: %8.1f MB/s (server CPU %s)   h2load 20000 x 1 KiB (4 connections, 10 streams each): %9.1f req/s",
                name, speed / 1e6, cpu ? format("%.2f s, %.0f MB per CPU second", cpu, size / 1e6 / cpu) : "not measured", rps)
  end
  w_speed, w_rps = figures["wirebind"]
  n_speed, n_rps = figures["nghttpd"]
  _, f_rps = figures["falcon"]
  puts format("  goal: 1 GB download at 10^9 bytes/s or more: %.2e bytes/s  %s", w_speed, w_speed >= 1e9 ? "met" : "NOT met")
  goal("h2load req/s at least 2x falcon", w_rps / f_rps, 2)
  puts format("  wirebind / nghttpd (the C limit): download %.2fx, req/s %.2fx", w_speed / n_speed, w_rps / n_rps)
ensure
  servers&.each { |name, (_, wait)| stop(wait, group: name == "falcon") }
  FileUtils.rm_rf(root)
  FileUtils.rm_f(falcon_config)
end

# frozen_string_literal: true

require "rbconfig"

BENCH_ROOT = File.expand_path("..", __dir__)
# Every benchmark writes its report here; `rake bench:record` writes to the
# tracked bench/results/ instead (the README's figures come from there).
BENCH_TMP_RESULTS = File.join(BENCH_ROOT, "tmp/bench")
BENCH_RECORDED_RESULTS = File.join(BENCH_ROOT, "bench/results")

# Each section of `rake bench`: a script under bench/ and the report it leaves.
# The XML script writes its own files (xml.md, xml.json, xml_decode.svg);
# the others' printed output is kept as <name>.txt.
BENCH_SECTIONS = {
  xml: "bench/run.rb",
  json: "bench/json.rb",
  shapes: "bench/shapes.rb", # typed decode on string-, number-, attribute-heavy and deep documents, XML and JSON
  serializer: "bench/serializer.rb",
  parallel: "bench/parallel.rb",
  convert: "bench/convert.rb", # wirebind convert on ~1 GB
  soap: "bench/soap_client.rb", # the SOAP client against Savon over loopback
  binary: "bench/binary.rb", # Buffer, records, HTTP/2, HPACK, the h2c example server
  http2_server: "bench/http2_server.rb", # Wirebind::HTTP2::Server vs Falcon, Puma, nghttpd
  soap_service: "bench/soap_service.rb", # SOAP::Service against a Builder handler, under Puma
  wsdl: "bench/wsdl.rb" # WSDL load + generate and the generated code's load, beside Wasabi
}.freeze

# Runs a benchmark script, echoing what it prints, and keeps that report in
# +dir+/<name>.txt.
def bench_script(name, script, dir)
  $stdout.sync = true # its lines, then any abort message, in order
  output = +""
  IO.popen({ "BENCH_RESULTS" => dir }, [RbConfig.ruby, File.join(BENCH_ROOT, script)], err: %i[child out]) do |io|
    io.each_line do |line|
      print line
      output << line
    end
  end
  abort "#{script} failed" unless $?.success?
  mkdir_p dir, verbose: false
  File.write(File.join(dir, "#{name}.txt"), output)
end

def bench_all(dir)
  BENCH_SECTIONS.each { |name, script| bench_script(name, script, dir) }
  puts "\nreports in #{dir}"
end

desc "Run every benchmark against the peers (outputs checked equal first); reports in tmp/bench/"
task bench: :compile do
  bench_all(BENCH_TMP_RESULTS)
end

namespace :bench do
  desc "Run every benchmark and record the reports in bench/results/ (tracked: the README's figures)"
  task record: :compile do
    bench_all(BENCH_RECORDED_RESULTS)
  end

  { decode: "decode", encode: "encode", stream: "stream" }.each do |name, section|
    desc "Run only the #{name} section of the XML benchmark (prints)"
    task name => :compile do
      ENV["BENCH_SECTIONS"] = section
      ruby "bench/run.rb"
    end
  end

  desc "Instructions per record of the hot paths (callgrind) beside the budget in bench/instructions.yml"
  task instructions: :compile do
    ruby "bench/instructions.rb"
  end

  namespace :instructions do
    desc "Fail when a hot path's instructions per record exceed its budget by more than 5% (CI)"
    task check: :compile do
      ruby "bench/instructions.rb", "check"
    end
  end

  desc "Run the hot-path rows interleaved against another commit (built in a temporary worktree); ratio per row"
  task :compare, [:ref] => :compile do |_task, args|
    abort "usage: rake bench:compare[REF]" unless args[:ref]
    ruby "bench/compare.rb", args[:ref]
  end

  BENCH_SECTIONS.each do |name, script|
    next if name == :xml

    desc "Run only the #{name} benchmark (prints)"
    task name => :compile do
      ruby script
    end
  end
end

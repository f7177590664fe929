# frozen_string_literal: true

# Checks of the native extension: sanitizers, GC stress, fuzzing (ext/wirebind/README.md).

ASAN_DIR = File.expand_path("../tmp/asan", __dir__)

namespace :asan do
  # A separate build, so lib/wirebind/wirebind_ext.so (the normal one) is never
  # replaced by a sanitized one that only loads with libasan preloaded.
  task :build do
    require "rbconfig"
    build = File.join(ASAN_DIR, "build")
    lib = File.join(ASAN_DIR, "lib", "wirebind")
    rm_rf build # a clean build: make does not rebuild objects when only flags change
    mkdir_p [build, lib]
    # Ruby raises with __builtin_longjmp, which ASan cannot see: frames it skips
    # would leave their stack redzones poisoned and later frames would trip on
    # them. So no stack instrumentation (asan-stack=0); heap, globals and UBSan stay.
    cflags = "#{RbConfig::CONFIG['CFLAGS']} --param=asan-stack=0"
    Dir.chdir(build) do
      sh({ "WIREBIND_SANITIZE" => "1" }, RbConfig.ruby, File.expand_path("../ext/wirebind/extconf.rb", __dir__), "--with-cflags=#{cflags}")
      sh "make", "-j2"
    end
    cp File.join(build, "wirebind_ext.so"), lib
  end
end

# What CI runs on the sanitized build on every submission (about a minute of
# CPU besides the build): the differential tests, which push generated, broken,
# trickled and W3C documents through every C engine (XML tokenizer, decoder and
# encoder, JSON, serializer, binary records, HPACK) against the pure reference,
# plus the XML error tests (hostile names, the new limits).
ASAN_CI_TESTS = %w[
  test/xml/native_differential_test.rb test/xml/native_test.rb test/xml/errors_test.rb test/xml/native_encoder_test.rb
  test/json/native_differential_test.rb test/serializer/native_differential_test.rb
  test/binary/record_differential_test.rb test/binary/buffer_differential_test.rb test/http2/hpack_test.rb test/http2/frame_test.rb
].freeze

namespace :test do
  desc "Build the extension with ASan+UBSan (WIREBIND_SANITIZE=1, in tmp/asan) and run the native suite on it"
  task asan: "asan:build" do
    libasan = `#{RbConfig::CONFIG.fetch("CC", "gcc").split.first} -print-file-name=libasan.so`.strip
    abort "libasan.so not found (gcc -print-file-name=libasan.so said #{libasan.inspect})" unless File.exist?(libasan)

    env = {
      "WIREBIND_BACKEND" => "native",
      "LD_PRELOAD" => libasan,
      # Ruby frees little at exit by design: leaks are not what this run looks for.
      # use_sigaltstack=0: Ruby gives a Ractor's thread its own signal stack, on which
      # ASan's handler crashes when the thread exits.
      "ASAN_OPTIONS" => "detect_leaks=0:abort_on_error=1:halt_on_error=1:use_sigaltstack=0",
      "UBSAN_OPTIONS" => "print_stacktrace=1:halt_on_error=1"
    }
    # tmp/asan/lib comes first on the load path, so `require "wirebind/wirebind_ext"`
    # finds the sanitized build; asan_check.rb fails the run if it did not.
    check = File.join(ASAN_DIR, "asan_check.rb")
    File.write(check, <<~RUBY)
      require "wirebind"
      loaded = $LOADED_FEATURES.grep(/wirebind_ext/)
      abort "test:asan: the sanitized extension is not the one loaded: \#{loaded}" unless loaded.all? { |f| f.start_with?(#{ASAN_DIR.dump}) }
    RUBY
    files = ENV["TEST"] ? FileList[ENV["TEST"]] : TEST_FILES
    sh env, RbConfig.ruby, "-w", "-I#{ASAN_DIR}/lib", "-Ilib", "-Itest", "-r#{check}",
       "-e", "ARGV.each { |f| require File.expand_path(f) }", *files
  end

  desc "The CI subset of test:asan (#{ASAN_CI_TESTS.size} files, a few minutes with the build)"
  task :asan_ci do
    ENV["TEST"] = "{#{ASAN_CI_TESTS.join(',')}}"
    Rake::Task["test:asan"].invoke
  end

  desc "Run the GC stress tests (GC.stress, GC.compact) of the XML and JSON codecs and the serializer on the native backend; slow"
  task gc_stress: :compile do
    files = %w[test/xml/gc_stress_test.rb test/xml/references_gc_stress_test.rb test/json/gc_stress_test.rb test/serializer/gc_stress_test.rb
               test/binary/gc_stress_test.rb]
    sh({ "WIREBIND_GC_STRESS" => "1", "WIREBIND_BACKEND" => "native" },
       RbConfig.ruby, "-w", "-Ilib", "-Itest", "-e", "ARGV.each { |f| require File.expand_path(f) }", *files)
  end
end

FUZZ_DIR = File.expand_path("../fuzz", __dir__)

# Builds fuzz/<harness>.c with the one engine it links (plain C: no Ruby), seeds
# its corpus once, and runs libFuzzer (ASan+UBSan) for +seconds+.
def run_fuzzer(harness:, engine:, corpus_name:, seed_args:, dict:, crash_prefix:, seconds:)
  clang = ENV.fetch("CLANG", "clang")
  abort "fuzz: #{clang} not found (apt-get install -y clang libclang-rt-14-dev)" unless system("#{clang} --version > /dev/null 2>&1")

  build = File.join(FUZZ_DIR, "build")
  corpus = File.join(FUZZ_DIR, corpus_name)
  crashes = File.join(FUZZ_DIR, "crashes")
  mkdir_p [build, corpus, crashes]
  binary = File.join(build, harness)
  sh clang, "-g", "-O1", "-fno-omit-frame-pointer", "-fsanitize=fuzzer,address,undefined",
     "-fno-sanitize-recover=undefined", "-Iext/wirebind", "-o", binary,
     File.join(FUZZ_DIR, "#{harness}.c"), "ext/wirebind/#{engine}"
  ruby File.join(FUZZ_DIR, "seed_corpus.rb"), *seed_args, corpus if Dir.empty?(corpus)
  sh({ "ASAN_OPTIONS" => "detect_leaks=1", "UBSAN_OPTIONS" => "print_stacktrace=1" },
     binary, "-max_total_time=#{seconds}", "-max_len=65536", "-timeout=10", "-rss_limit_mb=2048",
     "-dict=#{File.join(FUZZ_DIR, dict)}", "-artifact_prefix=#{crashes}/#{crash_prefix}", corpus)
end

def fuzz_seconds(args)
  Integer(args[:seconds] || ENV.fetch("FUZZ_SECONDS", "60"))
end

desc "Fuzz the C XML tokenizer with libFuzzer (clang; ASan+UBSan) for [seconds] (default 60); crashes land in fuzz/crashes/"
task :fuzz, [:seconds] do |_, args|
  run_fuzzer(harness: "xml_tokenizer_fuzz", engine: "xml_tokenizer.c", corpus_name: "corpus", seed_args: [],
             dict: "xml.dict", crash_prefix: "", seconds: fuzz_seconds(args))
end

namespace :fuzz do
  desc "Fuzz the C JSON scanner with libFuzzer (clang; ASan+UBSan) for [seconds] (default 60), seeded from JSONTestSuite"
  task :json, [:seconds] do |_, args|
    run_fuzzer(harness: "json_scanner_fuzz", engine: "json_scanner.c", corpus_name: "json_corpus", seed_args: ["json"],
               dict: "json.dict", crash_prefix: "json-", seconds: fuzz_seconds(args))
  end

  desc "Fuzz the C HPACK primitives (Huffman, integers, string literals) with libFuzzer for [seconds] (default 60)"
  task :hpack, [:seconds] do |_, args|
    run_fuzzer(harness: "hpack_fuzz", engine: "hpack.c", corpus_name: "hpack_corpus", seed_args: ["hpack"],
               dict: "hpack.dict", crash_prefix: "hpack-", seconds: fuzz_seconds(args))
  end
end

desc "Validate the public API's signatures in sig/ (RBS)"
task :rbs do
  sh "rbs", "-r", "openssl", "-I", "sig", "validate" # OpenSSL: the TLS and WS-Security options
end

desc "Type-check a user program (test/typecheck) against sig/ with Steep (gems of gemfiles/steep, installed if missing)"
task :steep do
  gemfile = File.expand_path("../gemfiles/steep/Gemfile", __dir__)
  Bundler.with_unbundled_env do
    env = { "BUNDLE_GEMFILE" => gemfile }
    sh env, "bundle check >/dev/null || bundle install --jobs 2 --retry 3 --quiet"
    sh env, "bundle", "exec", "steep", "check", "--severity-level=warning"
  end
end

namespace :rbs do
  desc "Run the suite (native backend) with every call of the public API checked against sig/ (rbs test)"
  task test: :compile do
    env = { "RBS_TEST_TARGET" => "Wirebind::*", "RBS_TEST_OPT" => "-r openssl -I sig", "RBS_TEST_LOGLEVEL" => "error",
            "WIREBIND_BACKEND" => "native" }
    files = Rake::FileList["test/**/*_test.rb"].map { |file| "./#{file}" }
    sh env, RbConfig.ruby, "-Itest", "-Ilib", "-rrbs/test/setup", "-r./test/support/rbs_signatures",
       "-e", "files = ARGV.dup; ARGV.clear; files.each { |file| require file }", *files
  end
end

desc "Regenerate ext/wirebind/depend (which headers each object is built from) with gcc -MM"
task :depend do
  require "rbconfig"
  dir = File.expand_path("../ext/wirebind", __dir__)
  headers = %w[rubyhdrdir rubyarchhdrdir].flat_map { |key| ["-isystem", RbConfig::CONFIG.fetch(key)] }
  rules = Dir.chdir(dir) { IO.popen(["gcc", "-MM", *headers, "-I.", *Dir["*.c"].sort], &:read) }
  abort "gcc -MM failed" unless $?.success?
  File.write(File.join(dir, "depend"), <<~DEPEND + rules.gsub(/ ([a-z_0-9]+\.[ch])/, ' $(srcdir)/\1'))
    # Which headers (and included sources) each object is built from, so that make rebuilds
    # what a changed header touches. Regenerate: rake depend.
  DEPEND
end

desc "Build the API documentation (YARD) into tmp/yard; any warning fails"
task :yard do
  sh "yard", "doc", "--output-dir", "tmp/yard", "--fail-on-warning", "--no-progress"
end

desc "Check the Ruby style (.rubocop.yml: the project's rules, each exception with its reason)"
task :rubocop do
  sh "rubocop", "--format", "quiet"
end

# The C files clang-format owns (.clang-format at the root).
C_SOURCES = FileList["ext/wirebind/*.{c,h}", "fuzz/*.{c,h}"]

desc "Format the C sources (ext/wirebind, fuzz) in place with clang-format (.clang-format)"
task "format:c" do
  sh "clang-format", "-i", *C_SOURCES
end

namespace :format do
  namespace :c do
    desc "Check that the C sources are formatted as .clang-format says (rake format:c fixes them)"
    task :check do
      sh "clang-format", "--dry-run", "--Werror", *C_SOURCES
    end
  end
end

namespace :yard do
  desc "Fail when an object of the public API (not @api private) has no documentation, " \
       "or a method the C extension defines is unknown to YARD"
  task undocumented: :compile do
    output = `yard stats --list-undoc --hide-api private --no-save 2>&1`
    abort "yard stats failed:\n#{output}" unless $?.success?
    listed = output.split("Undocumented Objects:", 2)[1].to_s.lines.map(&:strip).grep(/\A[A-Z]/)
    abort "undocumented public API (#{listed.size}):\n#{listed.join("\n")}" unless listed.empty?
    # YARD reads no C: the methods ext/wirebind defines are described by @!method
    # directives in Ruby (ext/wirebind/README.md). Every one of them, as the loaded
    # extension has them, must be a documented object.
    ruby "-Ilib", "rakelib/yard_native_methods.rb"
    puts "yard:undocumented: every public object is documented"
  end
end

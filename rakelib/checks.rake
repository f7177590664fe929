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

namespace :test do
  desc "Build the extension with ASan+UBSan (WIREBIND_SANITIZE=1, in tmp/asan) and run the native suite on it"
  task asan: "asan:build" do
    libasan = `#{RbConfig::CONFIG.fetch('CC', 'gcc').split.first} -print-file-name=libasan.so`.strip
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

  desc "Run the GC stress tests (GC.stress, GC.compact) of the XML and JSON codecs and the serializer on the native backend; slow"
  task gc_stress: :compile do
    files = %w[test/xml/gc_stress_test.rb test/xml/references_gc_stress_test.rb test/json/gc_stress_test.rb test/serializer/gc_stress_test.rb]
    sh({ "WIREBIND_GC_STRESS" => "1", "WIREBIND_BACKEND" => "native" },
       RbConfig.ruby, "-w", "-Ilib", "-Itest", "-e", "ARGV.each { |f| require File.expand_path(f) }", *files)
  end
end

FUZZ_DIR = File.expand_path("../fuzz", __dir__)

desc "Fuzz the C tokenizer with libFuzzer (clang; ASan+UBSan) for [seconds] (default 60); crashes land in fuzz/crashes/"
task :fuzz, [:seconds] do |_, args|
  seconds = Integer(args[:seconds] || ENV.fetch("FUZZ_SECONDS", "60"))
  clang = ENV.fetch("CLANG", "clang")
  abort "fuzz: #{clang} not found (apt-get install -y clang libclang-rt-14-dev)" unless system("#{clang} --version > /dev/null 2>&1")

  build = File.join(FUZZ_DIR, "build")
  corpus = File.join(FUZZ_DIR, "corpus")
  crashes = File.join(FUZZ_DIR, "crashes")
  mkdir_p [build, corpus, crashes]
  binary = File.join(build, "xml_tokenizer_fuzz")
  # The tokenizer engine is plain C: the harness links it alone, without Ruby.
  sh clang, "-g", "-O1", "-fno-omit-frame-pointer", "-fsanitize=fuzzer,address,undefined",
     "-fno-sanitize-recover=undefined", "-Iext/wirebind", "-o", binary,
     File.join(FUZZ_DIR, "xml_tokenizer_fuzz.c"), "ext/wirebind/xml_tokenizer.c"
  ruby File.join(FUZZ_DIR, "seed_corpus.rb"), corpus if Dir.empty?(corpus)
  sh({ "ASAN_OPTIONS" => "detect_leaks=1", "UBSAN_OPTIONS" => "print_stacktrace=1" },
     binary, "-max_total_time=#{seconds}", "-max_len=65536", "-timeout=10", "-rss_limit_mb=2048",
     "-dict=#{File.join(FUZZ_DIR, 'xml.dict')}", "-artifact_prefix=#{crashes}/", corpus)
end

namespace :fuzz do
  desc "Fuzz the C JSON scanner with libFuzzer (clang; ASan+UBSan) for [seconds] (default 60), seeded from JSONTestSuite"
  task :json, [:seconds] do |_, args|
    seconds = Integer(args[:seconds] || ENV.fetch("FUZZ_SECONDS", "60"))
    clang = ENV.fetch("CLANG", "clang")
    abort "fuzz: #{clang} not found (apt-get install -y clang libclang-rt-14-dev)" unless system("#{clang} --version > /dev/null 2>&1")

    build = File.join(FUZZ_DIR, "build")
    corpus = File.join(FUZZ_DIR, "json_corpus")
    crashes = File.join(FUZZ_DIR, "crashes")
    mkdir_p [build, corpus, crashes]
    binary = File.join(build, "json_scanner_fuzz")
    # The scanner engine is plain C: the harness links it alone, without Ruby.
    sh clang, "-g", "-O1", "-fno-omit-frame-pointer", "-fsanitize=fuzzer,address,undefined",
       "-fno-sanitize-recover=undefined", "-Iext/wirebind", "-o", binary,
       File.join(FUZZ_DIR, "json_scanner_fuzz.c"), "ext/wirebind/json_scanner.c"
    ruby File.join(FUZZ_DIR, "seed_corpus.rb"), "json", corpus if Dir.empty?(corpus)
    sh({ "ASAN_OPTIONS" => "detect_leaks=1", "UBSAN_OPTIONS" => "print_stacktrace=1" },
       binary, "-max_total_time=#{seconds}", "-max_len=65536", "-timeout=10", "-rss_limit_mb=2048",
       "-dict=#{File.join(FUZZ_DIR, 'json.dict')}", "-artifact_prefix=#{crashes}/json-", corpus)
  end
end

desc "Validate the public API's signatures in sig/ (RBS)"
task :rbs do
  sh "rbs", "-I", "sig", "validate"
end

# frozen_string_literal: true

require "rake/testtask"

TEST_FILES = FileList["test/**/*_test.rb"]

# One suite, run once per backend: each run is a fresh process, because the
# backend is chosen once, at load time (lib/wirebind/backend.rb).
namespace :test do
  { native: "native", pure: "pure" }.each do |name, backend|
    Rake::TestTask.new(name) do |t|
      t.libs << "test" << "lib"
      t.test_files = TEST_FILES
      t.warning = true
      t.options = "--verbose" if ENV["VERBOSE"]
    end
    task(name).enhance([:compile]) if name == :native
    task(name).prerequisites.unshift("test:env_#{name}")
    task("env_#{name}") { ENV["WIREBIND_BACKEND"] = backend }
  end
end

desc "Compile the extension, then run the whole suite on the native and on the pure backend"
task test: %w[compile test:native test:pure]

# The suite as an unpacked gem or a lone checkout runs it: without ../shared
# (WIREBIND_SHARED points at a folder that does not exist). Each test that needs
# the shared data skips, naming what is absent; the reasons are summed up at the end.
namespace :test do
  Rake::TestTask.new(:without_shared) do |t|
    t.description = "Run the suite (native) without ../shared: what needs it skips, saying so"
    t.libs << "test" << "lib"
    t.test_files = TEST_FILES
    t.warning = true
  end
  task(:without_shared).enhance([:compile])
  task(:without_shared).prerequisites.unshift("test:env_without_shared")
  task(:env_without_shared) { ENV["WIREBIND_SHARED"] = File.expand_path("../tmp/no-shared-data", __dir__) }
end

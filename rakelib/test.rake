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

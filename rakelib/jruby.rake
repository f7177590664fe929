# frozen_string_literal: true

# The pure backend on JRuby 9.4, from the jruby-jars gem (RubyGems) run with
# `java -cp`: no JRuby installation needed, only Java. Everything lands in tmp/jruby.
JRUBY_VERSION_USED = "9.4.14.0"
JRUBY_DIR = File.expand_path("../tmp/jruby", __dir__)
JRUBY_TEST_GEMS = %w[minitest:5.27.0 rexml oat].freeze

def jruby_command(*args)
  lib = File.join(JRUBY_DIR, "jruby-jars-#{JRUBY_VERSION_USED}", "lib")
  classpath = Dir[File.join(lib, "*.jar")].sort.join(File::PATH_SEPARATOR)
  ["java", "-Xss4m", "-cp", classpath, "org.jruby.Main", *args]
end

namespace :jruby do
  task :setup do
    mkdir_p JRUBY_DIR
    Dir.chdir(JRUBY_DIR) do
      unless File.directory?("jruby-jars-#{JRUBY_VERSION_USED}")
        sh "gem", "fetch", "jruby-jars", "-v", JRUBY_VERSION_USED, "--silent"
        sh "gem", "unpack", "jruby-jars-#{JRUBY_VERSION_USED}.gem", "--silent"
        rm_f "jruby-jars-#{JRUBY_VERSION_USED}.gem"
      end
    end
    gem_home = File.join(JRUBY_DIR, "gems")
    unless File.directory?(File.join(gem_home, "gems")) && Dir[File.join(gem_home, "gems", "oat-*")].any?
      sh({ "GEM_HOME" => gem_home, "GEM_PATH" => gem_home }, *jruby_command("-S", "gem", "install", "--no-document", *JRUBY_TEST_GEMS))
    end
  end
end

namespace :test do
  desc "Run the suite on JRuby #{JRUBY_VERSION_USED} (pure backend; java from the machine, JRuby from the jruby-jars gem)"
  task jruby: "jruby:setup" do
    gem_home = File.join(JRUBY_DIR, "gems")
    env = { "GEM_HOME" => gem_home, "GEM_PATH" => gem_home, "WIREBIND_BACKEND" => "pure" }
    run = -> { sh env, *jruby_command("-Ilib", "-Itest", "test/jruby_runner.rb") }
    defined?(Bundler) ? Bundler.with_unbundled_env(&run) : run.call
  end
end

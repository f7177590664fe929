# frozen_string_literal: true

# The pure backend on JRuby 9.4, from the jruby-jars gem (RubyGems) run with
# `java -cp`: no JRuby installation needed, only Java. Everything lands in tmp/jruby.
JRUBY_VERSION_USED = "9.4.14.0"
JRUBY_DIR = File.expand_path("../tmp/jruby", __dir__)
# The gems the tests load, pure Ruby (or, for puma and nokogiri, with their
# JRuby builds on RubyGems), at the versions of Gemfile.lock where it pins them.
# savon and httpx are left out: their tests skip with the reason.
JRUBY_TEST_GEMS = %w[minitest:5.27.0 rexml oat rack:3.2.8 webrick:1.9.2 puma:8.0.2 nokogiri:1.18.10].freeze

# Runs JRuby outside Bundler's environment: the RUBYOPT=-rbundler/setup that
# `bundle exec` sets would make JRuby look for MRI's bundle.
def jruby_sh(env, *args)
  run = -> { sh env, *jruby_command(*args) }
  defined?(Bundler) ? Bundler.with_unbundled_env(&run) : run.call
end

# The packages bin/jruby opens to JRuby on Java 9 and later (its
# bin/.jruby.module_opts, which the jars do not carry): without sun.nio.ch,
# JRuby cannot reach the file descriptor of a pipe, and spawn(out: pipe) and
# Open3 leave the child writing to JRuby's own stdout. Java 8 ignores them.
JRUBY_MODULE_OPENS = %w[java.base/java.io java.base/java.nio.channels java.base/sun.nio.ch java.management/sun.management]
                     .flat_map { |package| ["--add-opens", "#{package}=ALL-UNNAMED"] }.freeze

def jruby_command(*args)
  lib = File.join(JRUBY_DIR, "jruby-jars-#{JRUBY_VERSION_USED}", "lib")
  classpath = Dir[File.join(lib, "*.jar")].sort.join(File::PATH_SEPARATOR)
  ["java", "-XX:+IgnoreUnrecognizedVMOptions", *JRUBY_MODULE_OPENS, "-Xss16m", "-cp", classpath, "org.jruby.Main", *args]
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
    missing = JRUBY_TEST_GEMS.reject { |gem| Dir[File.join(gem_home, "gems", "#{gem.split(':').first}-[0-9]*")].any? }
    unless missing.empty?
      jruby_sh({ "GEM_HOME" => gem_home, "GEM_PATH" => gem_home }, "-S", "gem", "install", "--no-document", *missing)
    end
  end
end

namespace :test do
  desc "Run the suite on JRuby #{JRUBY_VERSION_USED} (pure backend; java from the machine, JRuby from the jruby-jars gem)"
  task jruby: "jruby:setup" do
    gem_home = File.join(JRUBY_DIR, "gems")
    env = { "GEM_HOME" => gem_home, "GEM_PATH" => gem_home, "WIREBIND_BACKEND" => "pure" }
    jruby_sh(env, "-Ilib", "-Itest", "test/jruby_runner.rb")
  end
end

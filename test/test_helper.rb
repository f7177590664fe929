# frozen_string_literal: true

# Every test file requires this. Warnings fail the run: a warning today is a bug tomorrow.
$VERBOSE = true
Warning[:deprecated] = true

module Wirebind
  module TestWarnings
    # JRuby warns from its own stdlib (paths under uri:classloader:, e.g.
    # subspawn/posix/pty.rb) and from its Java integration when it first wraps a
    # Java exception (already initialized constant java.lang::Throwable): not
    # wirebind's warnings, and not ours to fix. MRI has neither, so it ignores none.
    JRUBY_OWN_WARNING = /\Auri:classloader:|already initialized constant java\.lang::/

    def warn(message, category: nil) # rubocop:disable Lint/UnusedMethodArgument -- Warning.warn's signature
      return if RUBY_ENGINE == "jruby" && JRUBY_OWN_WARNING.match?(message)

      raise "warning raised as an error: #{message}"
    end
  end
end
Warning.singleton_class.prepend(Wirebind::TestWarnings)

$LOAD_PATH.unshift File.expand_path("../lib", __dir__)
require "wirebind"
require "minitest/autorun"
require "rbconfig"

module Wirebind
  # Shared paths and helpers for the tests.
  module TestSupport
    SHARED = File.expand_path("../../shared", __dir__)

    # @return [String] the path of a file or folder in ../shared; skips the calling
    #   test, saying why, where ../shared (the project's shared test data) is absent,
    #   e.g. in an unpacked gem
    def shared_path(*parts)
      path = File.join(SHARED, *parts)
      skip "#{File.join('../shared', *parts)} is absent (the shared test data sits beside the checkout)" unless File.exist?(path)

      path
    end

    # Tests that start a Ruby subprocess need RbConfig.ruby to be a program: JRuby
    # run from its jars (rake test:jruby) has none.
    def require_ruby_subprocess
      return if File.executable?(RbConfig.ruby)

      skip "starts a Ruby subprocess, and RbConfig.ruby (#{RbConfig.ruby}) is not a program here"
    end

    # Skips, on JRuby only, a test of a behaviour that JRuby's core classes give
    # differently from MRI (the README's "Threads, Ractors and other Rubies" lists
    # each); MRI still runs it.
    # @param difference [String] what JRuby does differently, printed as the reason
    def skip_on_jruby(difference)
      skip "JRuby: #{difference}" if RUBY_ENGINE == "jruby"
    end

    def require_ractors
      skip "#{RUBY_ENGINE} #{RUBY_ENGINE_VERSION} has no Ractors" unless defined?(Ractor)
      skip "rbs test's method hooks (rake rbs:test) cannot run in a Ractor" if defined?(RBS::Test::Observer)
    end

    # Each randomized test gets its own seed, printed so a failure can be replayed
    # with WIREBIND_SEED=<n>.
    def random_seed
      seed = Integer(ENV.fetch("WIREBIND_SEED", Random.new_seed % 2**32))
      puts "\n#{self.class}##{name}: WIREBIND_SEED=#{seed}"
      seed
    end
  end
end

Minitest::Test.include(Wirebind::TestSupport)
require_relative "support/fixture_gems"

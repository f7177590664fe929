# frozen_string_literal: true

# Every test file requires this. Warnings fail the run: a warning today is a bug tomorrow.
$VERBOSE = true
Warning[:deprecated] = true

module Wirebind
  # Each warning raises where it is given, and fails the run at its end even if
  # something caught it (or it came from a thread nobody joined).
  module TestWarnings
    # JRuby warns from its own stdlib (paths under uri:classloader:, e.g.
    # subspawn/posix/pty.rb) and from its Java integration when it first wraps a
    # Java exception (already initialized constant java.lang::Throwable): not
    # wirebind's warnings, and not ours to fix. MRI has neither, so it ignores none.
    JRUBY_OWN_WARNING = /\Auri:classloader:|already initialized constant java\.lang::/

    # Not a StandardError, so that no `rescue => e` (in the code under test, or a
    # differential test taking errors for outcomes) can take it for an error of
    # its own.
    class Raised < Exception; end # rubocop:disable Lint/InheritException -- see above

    @given = []
    @lock = Mutex.new

    class << self
      # @return [Array<String>] the warnings given so far, outside {expected}
      def given
        @lock.synchronize { @given.dup }
      end

      def record(message)
        @lock.synchronize { @given << message } unless Thread.current[:wirebind_expected_warning]
      end

      # Runs the block with warnings still raised but not counted against the
      # run: for the test that checks warnings raise.
      def expected
        Thread.current[:wirebind_expected_warning] = true
        yield
      ensure
        Thread.current[:wirebind_expected_warning] = nil
      end
    end

    def warn(message, category: nil) # rubocop:disable Lint/UnusedMethodArgument -- Warning.warn's signature
      return if RUBY_ENGINE == "jruby" && JRUBY_OWN_WARNING.match?(message)

      TestWarnings.record(message)
      raise Raised, "warning raised as an error: #{message}"
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
    # The project's shared test data: ../shared beside the checkout, or where
    # WIREBIND_SHARED says (point it at a missing folder to see the suite without it).
    SHARED = File.expand_path(ENV.fetch("WIREBIND_SHARED", "../../shared"), __dir__)
    SHARED_SHOWN = ENV.key?("WIREBIND_SHARED") ? SHARED : "../shared"

    # @return [String] the path of a file or folder in ../shared; skips the calling
    #   test, naming what is missing, where ../shared (the project's shared test
    #   data) is absent, e.g. in an unpacked gem. Every test that reads ../shared
    #   asks here first.
    def shared_path(*parts)
      skip "#{SHARED_SHOWN} is absent (the project's shared test data, beside the checkout)" unless Dir.exist?(SHARED)

      path = File.join(SHARED, *parts)
      skip "#{File.join(SHARED_SHOWN, *parts)} is absent from the shared test data" unless File.exist?(path)

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

    # SOAP::Service tells operation blocks that take +context:+ by their
    # parameters, which rbs test's method hooks (rake rbs:test) hide behind a
    # wrapper of their own: a test whose operations take context: skips there.
    def require_operation_keywords
      skip "rbs test's method hooks (rake rbs:test) hide an operation block's keywords" if defined?(RBS::Test::Observer)
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

module Wirebind
  # What every test owes the run: an assertion (a test that asserts nothing
  # proves nothing, and fails; a skip or an error says for itself why it
  # asserted nothing), and for a skip, its reason, printed once per reason at the
  # end of the run (minitest prints them only with --verbose).
  module TestFooting
    @skips = Hash.new(0)
    @lock = Mutex.new

    class << self
      def skipped(reason)
        @lock.synchronize { @skips[reason] += 1 }
      end

      # @return [Array<String>] one line per reason, the most frequent first
      def skip_summary
        @lock.synchronize { @skips.sort_by { |reason, count| [-count, reason] } }.map { |reason, count| format("%4d skipped: %s", count, reason) }
      end
    end

    def after_teardown
      super
      failures.grep(Minitest::Skip).each { |skip| TestFooting.skipped(skip.message) }
      flunk "#{self.class}##{name} asserted nothing" if failures.empty? && assertions.zero?
    end
  end
end

Minitest::Test.include(Wirebind::TestSupport)
Minitest::Test.include(Wirebind::TestFooting)
Minitest.after_run do
  summary = Wirebind::TestFooting.skip_summary
  puts "\nSkipped tests, by reason:", summary unless summary.empty?
  warnings = Wirebind::TestWarnings.given
  unless warnings.empty?
    # Not warn: it would go through the hook above, and raise.
    $stderr.puts "#{warnings.size} warning(s) given during the run, which fails:", *warnings.uniq.first(20) # rubocop:disable Style/StderrPuts
    exit 1
  end
end
require_relative "support/fixture_gems"

# frozen_string_literal: true

# Loads every test file on JRuby (rake test:jruby). A file that cannot even be
# loaded there is reported, with the reason, instead of stopping the whole run;
# minitest then runs what loaded and prints the usual totals.
require "wirebind"
abort "jruby_runner: expected the pure backend, got #{Wirebind.backend}" unless Wirebind.backend == :pure

# WIREBIND_TEST_SHARD=i/n loads only every n-th file, from the i-th (1-based):
# n processes, one per core, share the run.
files = Dir[File.expand_path("**/*_test.rb", __dir__)].sort
if (shard = ENV["WIREBIND_TEST_SHARD"])
  index, count = shard.split("/").map { |n| Integer(n) }
  files = files.select.with_index { |_, i| i % count == index - 1 }
end

UNLOADABLE = [] # filled just below
files.each do |file|
  require file
rescue StandardError, ScriptError => e
  UNLOADABLE << "#{file.delete_prefix("#{__dir__}/")}: #{e.class}: #{e.message.lines.first.chomp}"
end
puts "JRuby #{JRUBY_VERSION}: #{UNLOADABLE.size} test file(s) could not be loaded" unless UNLOADABLE.empty?
UNLOADABLE.each { |line| puts "  #{line}" }

# A file that did not load is an error of the run, not a silent gap in it.
class JRubyLoadTest < Minitest::Test
  def test_every_test_file_loads
    assert_empty UNLOADABLE, "test files that could not be loaded on JRuby"
  end
end

# Minitest prints skip reasons only with --verbose, among a line per test: this
# prints each reason once, with its count, after the totals.
class SkipReasons < Minitest::AbstractReporter
  def initialize(io)
    super()
    @io = io
    @counts = Hash.new(0)
  end

  def record(result)
    @counts[result.failure.message] += 1 if result.skipped?
  end

  def report
    return if @counts.empty?

    @io.puts "\nSkips by reason (#{@counts.values.sum}):"
    @counts.sort_by { |reason, count| [-count, reason] }.each { |reason, count| @io.puts format("%5d  %s", count, reason) }
  end
end

module Minitest
  def self.plugin_skip_reasons_init(options)
    reporter << SkipReasons.new(options[:io])
  end
end
Minitest.register_plugin(:skip_reasons)

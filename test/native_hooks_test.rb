# frozen_string_literal: true

require_relative "test_helper"
require "wirebind/native_hooks"

# Wirebind::NativeHooks: the one list of what the C extension uses in Ruby,
# read by ext/wirebind/hooks.c at Init. Checked against the C sources, so that
# neither side can name something the other does not have.
class NativeHooksTest < Minitest::Test
  EXT = File.expand_path("../ext/wirebind", __dir__)

  def setup
    skip "no ext/wirebind sources next to the tests" unless File.exist?(File.join(EXT, "hooks.c"))
  end

  def hooks_read_by_c
    File.read(File.join(EXT, "hooks.c")).scan(/hook\(mHooks, "([A-Z_]+)"\)/).flatten
  end

  def test_c_reads_every_hook_and_only_hooks
    listed = Wirebind::NativeHooks.constants.map(&:to_s) - %w[CALLBACKS]

    assert_equal listed.sort, hooks_read_by_c.sort
  end

  def test_every_callback_is_a_public_method_of_its_receiver
    Wirebind::NativeHooks::CALLBACKS.each do |name, methods|
      receiver = Wirebind::NativeHooks.const_get(name)
      methods.each do |method|
        assert receiver.respond_to?(method), "NativeHooks::#{name} (#{receiver}) has no public .#{method}"
      end
    end
  end

  def test_no_other_c_file_looks_a_ruby_constant_up
    lookups = Dir[File.join(EXT, "*.c")].reject { |path| path.end_with?("/hooks.c") }.flat_map do |path|
      File.readlines(path).each_with_index.filter_map do |line, index|
        "#{File.basename(path)}:#{index + 1}: #{line.strip}" if line.match?(/\brb_(path2class|const_get\w*|const_defined\w*)\(/)
      end
    end

    assert_empty lookups, "look Ruby constants up through Wirebind::NativeHooks (hooks.c)"
  end
end

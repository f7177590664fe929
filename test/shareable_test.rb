# frozen_string_literal: true

require "test_helper"
require "open3"
require "rbconfig"

# A table in a constant is read by every thread and by other Ractors: a frozen
# Array or Hash whose items are not frozen too is readable in the main Ractor
# only (an IsolationError in any other, found by bench/parallel.rb after
# INSTANCE_TYPES was added with a shallow freeze). Every such constant is made
# with Shareable.make.
class ShareableTest < Minitest::Test
  LIB = File.expand_path("../lib", __dir__)
  # Tables that cannot be shareable, each with why no other Ractor reads it.
  MAIN_RACTOR_ONLY = {
    "Wirebind::Model::Generator::PLACEHOLDERS" => "UnboundMethods; read when a model's methods are generated, in the main Ractor"
  }.freeze

  # Run in a Ruby of its own, with every file of lib/ loaded (railtie.rb needs
  # Rails): the suite's process has loaded only what its tests used.
  SCRIPT = <<~'RUBY'
    lib = ARGV.fetch(0)
    require "wirebind"
    Dir[File.join(lib, "wirebind/**/*.rb")].sort.each { |file| require file unless file.end_with?("/railtie.rb") }
    names = Dir[File.join(lib, "**/*.rb")].flat_map { |file| File.read(file).scan(/^\s*([A-Z][A-Z0-9_]*) = /).flatten }.uniq
    seen = {}.compare_by_identity
    pending = [Wirebind]
    until pending.empty?
      mod = pending.pop
      next if seen.key?(mod)

      seen[mod] = true
      mod.constants(false).each do |name|
        value = mod.const_get(name, false)
        pending << value if value.is_a?(Module) && value.name&.start_with?("Wirebind::")
      end
    end
    seen.each_key do |mod|
      (mod.constants(false) | names.map(&:to_sym)).each do |name|
        next unless mod.const_defined?(name, false)

        file, = mod.const_source_location(name)
        next unless file.is_a?(String) && file.start_with?(lib) # not a C constant's, not the tests'

        value = mod.const_get(name, false)
        table = value.is_a?(Array) || value.is_a?(Hash) || value.is_a?(Struct)
        puts "#{mod}::#{name}" if table && value.frozen? && !Ractor.shareable?(value)
      end
    end
  RUBY

  def test_every_frozen_table_in_a_constant_is_deeply_frozen
    require_ractors
    out, err, status = Open3.capture3(RbConfig.ruby, "-I", LIB, "-e", SCRIPT, LIB)
    assert status.success?, err
    shallow = out.lines.map(&:chomp)
    assert_equal [], shallow - MAIN_RACTOR_ONLY.keys, "make these with Shareable.make"
    assert_equal MAIN_RACTOR_ONLY.keys, MAIN_RACTOR_ONLY.keys & shallow, "no longer a table that cannot be shared: drop it from the list"
  end
end

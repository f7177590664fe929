# frozen_string_literal: true

require "test_helper"

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

  def test_every_frozen_table_in_a_constant_is_deeply_frozen
    require_ractors
    names = Dir[File.join(LIB, "**/*.rb")].flat_map { |file| File.read(file).scan(/^\s*([A-Z][A-Z0-9_]*) = /).flatten }.uniq
    shallow = wirebind_modules.flat_map do |mod|
      (mod.constants(false) | names.map(&:to_sym)).filter_map do |name|
        next unless mod.const_defined?(name, false) && !mod.autoload?(name)

        value = mod.const_get(name, false)
        "#{mod}::#{name}" if table?(value) && value.frozen? && !Ractor.shareable?(value)
      end
    end
    assert_equal [], shallow - MAIN_RACTOR_ONLY.keys, "make these with Shareable.make"
    assert_equal MAIN_RACTOR_ONLY.keys, MAIN_RACTOR_ONLY.keys & shallow, "no longer a table that cannot be shared: drop it from the list"
  end

  private

  def table?(value)
    value.is_a?(Array) || value.is_a?(Hash) || value.is_a?(Struct)
  end

  # Wirebind and every module inside it that is loaded (autoloads that need an
  # optional gem are left alone).
  def wirebind_modules
    seen = {}.compare_by_identity
    pending = [Wirebind]
    until pending.empty?
      mod = pending.pop
      next if seen.key?(mod)

      seen[mod] = true
      mod.constants(false).each do |name|
        value = begin
          mod.const_get(name, false)
        rescue LoadError, NameError
          next
        end
        pending << value if value.is_a?(Module) && value.name&.start_with?("Wirebind::")
      end
    end
    seen.keys
  end
end

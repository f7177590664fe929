# frozen_string_literal: true

require_relative "test_helper"

# "Pure" means one thing: the Ruby twin of a C engine (lib/wirebind/*/pure/).
# What SOAP, WSDL, the serializers and Types build on is the shared toolkit
# (XML::Syntax, XML::Escape, XML::Tokenizer, XML::Source, JSON::Writer,
# JSON::Source, Wirebind::Namespaces), so no file outside a pure/ directory
# names a Pure:: constant, except the few lines below that pick a twin on
# purpose. Each is counted, so the list can only shrink.
class ToolkitNamesTest < Minitest::Test
  LIB = File.expand_path("../lib", __dir__)

  # file => [lines naming Pure::, why]
  PICKS_A_TWIN = {
    "wirebind/binary.rb" => [6, "registers the buffer twins with Backend; the pure codec reads and writes its own Buffer class"],
    "wirebind/backend.rb" => [1, "the one switch: its documentation names a registered twin"],
    "wirebind/binary/plan.rb" => [1, "the pure codec is generated for every plan; the native one wraps it"],
    "wirebind/native_hooks.rb" => [2, "C calls back into the pure JSON decoder and scanner (format_path, convert_text, describe_char)"],
    "wirebind/xml/native.rb" => [1, "the native decoder reports an unknown xsi:type with the pure decoder's message"],
    "wirebind/json/writer.rb" => [1, "a Model inside a free value is written by the pure JSON encoder of its class"],
    "wirebind/serializer/compiler.rb" => [1, "a Model inside a serializer's free value, likewise"],
    "wirebind/serializer/generator.rb" => [1, "generated serializer code writing a Model value, likewise"],
    "wirebind/xml/open_content.rb" => [2, "a Model inside open content is written by the pure XML encoder of its class"]
  }.freeze

  def pure_references
    Dir[File.join(LIB, "**", "*.rb")].each_with_object({}) do |path, found|
      relative = path.delete_prefix("#{LIB}/")
      next if relative.match?(%r{/pure/})

      count = File.readlines(path).count { |line| line.include?("Pure::") }
      found[relative] = count if count.positive?
    end
  end

  def test_no_file_outside_pure_names_a_pure_constant
    unexpected = pure_references.reject { |file, _| PICKS_A_TWIN.key?(file) }

    assert_empty unexpected, "use the toolkit (XML::Syntax, XML::Escape, XML::Tokenizer, JSON::Writer, Namespaces), not Pure::"
  end

  def test_the_files_that_pick_a_twin_do_not_grow_and_the_list_stays_true
    found = pure_references
    PICKS_A_TWIN.each do |file, (allowed, why)|
      assert_equal allowed, found.fetch(file, 0), "#{file}: expected #{allowed} line(s) naming Pure:: (#{why}); update the list when this changes"
    end
  end
end

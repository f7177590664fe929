# frozen_string_literal: true

require_relative "test_helper"

# "Pure" means one thing: the Ruby twin of a C engine (lib/wirebind/*/pure/).
# What SOAP, WSDL, the serializers and Types build on is the shared toolkit
# (XML::Syntax, XML::Escape, XML::Tokenizer, XML::Source, JSON::Writer,
# JSON::Source, Wirebind::Namespaces), so no file outside a pure/ directory
# names a Pure:: constant. Code that picks the Ruby twin on purpose (a Model
# inside a free value, the native decoders' shared messages, the binary
# front door) asks Backend for it, or calls its module (XML::Pure,
# JSON::Pure, Binary::Pure), never a class inside it.
class ToolkitNamesTest < Minitest::Test
  LIB = File.expand_path("../lib", __dir__)

  def pure_references
    Dir[File.join(LIB, "**", "*.rb")].each_with_object({}) do |path, found|
      relative = path.delete_prefix("#{LIB}/")
      next if relative.match?(%r{/pure/})

      count = File.readlines(path).count { |line| line.include?("Pure::") }
      found[relative] = count if count.positive?
    end
  end

  def test_no_file_outside_pure_names_a_pure_constant
    assert_empty pure_references, "use the toolkit (XML::Syntax, XML::Escape, XML::Tokenizer, JSON::Writer, Namespaces), " \
                                  "or Backend.implementation(concept, :pure) and the twin's module methods, not Pure::"
  end
end

# frozen_string_literal: true

require_relative "wsdl_test_support"

module Wirebind
  # Published WSDLs whose XML declaration is not at the very start of the file
  # (after a licence comment, as QuickBooks Web Connector's in quickbooks-js; after
  # a blank line, as 3PL Central's in savon's specs): not well-formed, but what
  # the services publish. The loader reads such a file as if the declaration were
  # at the start, and says so in a warning naming the file and line; anything
  # else stays a ParseError.
  class WSDLMisplacedDeclarationTest < Minitest::Test
    include WSDLTestSupport

    DECLARATION = %(<?xml version="1.0" encoding="utf-8"?>)

    def load(text, files = {})
      with_files({ "s.wsdl" => text }.merge(files)) { |dir| WSDL.load(File.join(dir, "s.wsdl")) }
    end

    def test_after_a_comment
      description = load("<!--\n  licence\n-->\n#{DECLARATION}\n#{wsdl(types: X_SCHEMA)}".sub("<?xml version=\"1.0\"?>\n", ""))
      assert_equal ["X"], description.types.map(&:name)
      assert_equal 1, description.warnings.size
      assert_match(/s\.wsdl:4: the XML declaration is not at the start of the file; read as if it were\z/, description.warnings.first)
    end

    def test_after_blank_lines
      description = load("\n \n#{DECLARATION}#{wsdl(types: X_SCHEMA).sub('<?xml version="1.0"?>', '')}")
      assert_equal ["X"], description.types.map(&:name)
      assert_match(/s\.wsdl:3: the XML declaration is not at the start/, description.warnings.first)
    end

    def test_in_an_imported_schema
      schema = "<!-- generated -->\n#{DECLARATION}\n#{X_SCHEMA}"
      types = %(<xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema"><xsd:import namespace="urn:x" schemaLocation="x.xsd"/></xsd:schema>)
      description = load(wsdl(types: types), "x.xsd" => schema)
      assert_equal ["X"], description.types.map(&:name)
      assert_match(/x\.xsd:2: the XML declaration is not at the start/, description.warnings.first)
    end

    def test_what_stays_an_error
      body = wsdl(types: X_SCHEMA).sub('<?xml version="1.0"?>', "")
      # Another encoding than UTF-8 is not guessed at; a declaration after the root's start is an error as before.
      assert_raises(ParseError) { load(%(<!-- c -->\n<?xml version="1.0" encoding="ISO-8859-1"?>#{body})) }
      assert_raises(ParseError) { load(body.sub("<wsdl:types>", "<wsdl:types>#{DECLARATION}")) }
      assert_raises(ParseError) { load("text\n#{DECLARATION}#{body}") }
    end

    # Which file is not well-formed, of the several a description reads.
    def test_a_parse_error_names_its_file
      types = %(<xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema"><xsd:import namespace="urn:x" schemaLocation="x.xsd"/></xsd:schema>)
      error = assert_raises(ParseError) { load(wsdl(types: types), "x.xsd" => "<!-- c -->\ntext#{X_SCHEMA}") }
      assert_match(%r{\A/\S*/x\.xsd: .* at line 2, column 1\z}, error.message)
      assert_equal [2, 1, :syntax], [error.line, error.column, error.reason]
    end
  end
end

# frozen_string_literal: true

require_relative "xml_test_support"

# Wirebind::XML::Path: at: paths as data, compiled once and passed to
# XML.decode / XML.each instead of a String (the SOAP envelope reader's way).
class XMLPathTest < Minitest::Test
  include XMLTestHelpers
  include XMLTestModels

  Path = Wirebind::XML::Path

  # Items in two namespaces, one of them holding a '}'.
  BRACED = "urn:a}b"
  DOC = <<~XML
    <r xmlns:p="urn:a}b" xmlns:q="urn:other">
      <q:item><key>OTHER</key></q:item>
      <p:item><key>BRACED</key></p:item>
    </r>
  XML

  SOAP = <<~XML
    <soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/">
      <soap:Body>
        <ns1:getIssuesResponse xmlns:ns1="urn:jira">
          <return><item><key>A-1</key></item><other/><item><key>A-2</key></item></return>
        </ns1:getIssuesResponse>
      </soap:Body>
    </soap:Envelope>
  XML

  def test_parse_and_new_give_the_same_steps
    parsed = Path.parse("Envelope/{http://a/b}Body/*/{}item")
    built = Path.new([["Envelope", nil], ["Body", "http://a/b"], [nil, nil], ["item", ""]])
    assert_equal built, parsed
    assert_equal built.hash, parsed.hash
    assert_equal [["Envelope", nil], ["Body", "http://a/b"], [nil, nil], ["item", ""]], parsed.steps
    assert_equal "Envelope/{http://a/b}Body/*/{}item", parsed.to_s
    assert_predicate parsed, :frozen?
    assert_predicate parsed.steps, :frozen?
  end

  def test_a_path_decodes_as_its_string_does
    [[Issue], Issue].each do |type|
      assert_equal XML.decode(SOAP, type, at: "Envelope/Body/*/return/item"),
                   XML.decode(SOAP, type, at: Path.parse("Envelope/Body/*/return/item"))
    end
    keys = []
    XML.each(SOAP, Issue, at: Path.new([["Envelope", nil], ["Body", nil], [nil, nil], ["return", nil], ["item", nil]])) { |i| keys << i.key }
    refute_empty keys
    assert_equal XML.decode(SOAP, [Issue], at: "Envelope/Body/*/return/item").map(&:key), keys
  end

  def test_a_namespace_holding_a_closing_brace
    by_new = XML.decode(DOC, [Issue], at: Path.new([["r", nil], ["item", BRACED]]))
    assert_equal ["BRACED"], by_new.map(&:key)
    assert_equal ["BRACED"], XML.decode(DOC, [Issue], at: "r/{urn:a}b}item").map(&:key)
    assert_equal ["BRACED"], XML.decode(DOC, [Issue], at: Path.parse("r/{urn:a}b}item")).map(&:key)
    assert_equal "r/{urn:a}b}item", Path.new([["r", nil], ["item", BRACED]]).to_s
    assert_equal %w[OTHER BRACED], XML.decode(DOC, [Issue], at: "r/item").map(&:key)
  end

  def test_bad_paths_are_argument_errors
    [-> { Path.new([["1a", nil]]) }, -> { Path.new([["a"]]) }, -> { Path.new("a") }, -> { Path.parse("a/{urn:x") },
     -> { Path.new([["a", 3]]) }, -> { XML.decode(DOC, [Issue], at: 3) }].each do |bad|
      assert_raises(ArgumentError, &bad)
    end
  end

  def test_missing_names_the_path
    error = assert_raises(Wirebind::DecodeError) { XML.decode(DOC, [Issue], at: Path.parse("r/none/*"), missing: :raise) }
    assert_includes error.message, 'at: "r/none/*" matched no element'
  end
end

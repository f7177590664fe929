# frozen_string_literal: true

require_relative "xml_test_support"

# Every error the XML codec raises: its class, where it points, and what its
# message says was expected.
class XMLErrorsTest < Minitest::Test
  include XMLTestHelpers
  include XMLTestModels

  # Asserts that +error+ points into +input+ (a String of the document's bytes)
  # somewhere within the first occurrence of +token+ (from its first byte to just
  # after its last), and that line, column and offset agree with each other.
  def assert_points_at(input, error, token, occurrence: 0)
    bytes = input.b
    start = -1
    (occurrence + 1).times { start = bytes.index(token.b, start + 1) }
    refute_nil start, "#{token.inspect} is not in the input"
    refute_nil error.line, "#{error.class} without a line: #{error.message}"
    refute_nil error.column, "#{error.class} without a column: #{error.message}"
    if error.respond_to?(:offset)
      refute_nil error.offset, "#{error.class} without an offset: #{error.message}"
      assert_includes start..(start + token.bytesize), error.offset,
                      "offset #{error.offset} is not at #{token.inspect} (bytes #{start}..#{start + token.bytesize}): #{error.message}"
      before = bytes.byteslice(0, error.offset).force_encoding(Encoding::UTF_8)
      assert_equal before.count("\n") + 1, error.line, "line and offset disagree: #{error.message}"
      assert_equal before.length - (before.rindex("\n") || -1), error.column, "column and offset disagree: #{error.message}"
    else
      text = input.dup.force_encoding(Encoding::UTF_8)
      first = text.byteslice(0, start)
      last = text.byteslice(0, start + token.bytesize)
      lines = (first.count("\n") + 1)..(last.count("\n") + 1)
      assert_includes lines, error.line, "line #{error.line} is not where #{token.inspect} is: #{error.message}"
      if first.count("\n") == last.count("\n")
        columns = (first.length - (first.rindex("\n") || -1))..(last.length - (last.rindex("\n") || -1))
        assert_includes columns, error.column, "column #{error.column} is not at #{token.inspect}: #{error.message}"
      end
    end
    assert_match(/line #{error.line}/, error.message, "the message says the line")
  end

  # Runs the block for every case, and fails once at the end with every case
  # that failed (so one bad case does not hide the others).
  def each_case(cases)
    failures = []
    cases.each do |c|
      yield c
    rescue Minitest::Assertion => e
      failures << "#{c.is_a?(Array) ? c.first.inspect : c.inspect}: #{e.message.lines.first(3).join.strip}"
    end
    assert_empty failures, "#{failures.size} of #{cases.size} cases failed"
  end

  # ---- the hierarchy -----------------------------------------------------------

  def test_the_hierarchy
    assert_operator Wirebind::Error, :<, StandardError
    assert_operator Wirebind::ParseError, :<, Wirebind::Error
    assert_operator Wirebind::LimitError, :<, Wirebind::ParseError
    assert_operator Wirebind::DecodeError, :<, Wirebind::Error
    assert_operator Wirebind::EncodeError, :<, Wirebind::Error
    refute_operator Wirebind::DecodeError, :<, Wirebind::ParseError
    refute_operator Wirebind::ParseError, :<, Wirebind::DecodeError
    refute_operator Wirebind::EncodeError, :<, Wirebind::DecodeError
  end

  def test_every_payload_error_is_a_wirebind_error
    [
      -> { XML.decode("<a>", Issue) },
      -> { XML.decode("<a>" * 2000 + "</a>" * 2000, Issue) },
      -> { XML.decode("<Issue><votes>x</votes></Issue>", Issue) },
      -> { XML.encode(Issue.new(votes: "x")) },
      -> { XML.check("<!DOCTYPE a><a/>") }
    ].each do |failing|
      assert_raises(Wirebind::Error, &failing)
    end
  end

  # ---- ParseError -------------------------------------------------------------------

  # [document, the token the error is about, what the message says was expected or wrong]
  NOT_WELL_FORMED = [
    ["<a>\n<b>\n<c></b></a>", "</b>", %r{expected </c>}],
    ["<a>\n  <b>\n  </a>", "</a>", %r{expected </b>}],
    ["<a></A>", "</A>", %r{</a>}],
    ["<a b=1/>", "1", /quote/],
    ["<a>\n  <b c='1' c='2'/></a>", "<b c='1' c='2'/>", /twice/],
    ["<a>\n  <p:b/></a>", "<p:b/>", /prefix 'p'.*not declared|not declared.*p/],
    ["<a>\n<b p:c='1'/></a>", "<b p:c='1'/>", /prefix 'p'.*not declared|not declared.*p/],
    ["<a>\n  &foo;</a>", "&foo;", /foo/],
    ["<a>x &#0; y</a>", "&#0;", /character/],
    ["<a>\n&#xD800;</a>", "&#xD800;", /character/],
    ["<a>\n&#x110000;</a>", "&#x110000;", /character/],
    ["<a>x ]]> y</a>", "]]>", /\]\]>/],
    ["<a>\n<b c='<'/></a>", "'<'", /'<'/],
    ["<a><!-- a -- b --></a>", "-- b", /--/],
    ["<a/>\n<?xml version='1.0'?>", "<?xml", /declaration/],
    [" <?xml version='1.0'?><a/>", "<?xml", /declaration/],
    ["<a>\n\n <b>\u0001</b></a>", "\u0001", /U\+0001/],
    ["<a>&amp</a>", "&amp", /reference/],
    ["<a>fish & chips</a>", "& ", /reference/],
    ["<1a/>", "1", /name/],
    ["<a></a><b/>", "<b/>", /after the root/],
    ["<a></a>\ntext", "text", /after the root/],
    ["<a xmlns:p=''/>", "<a xmlns:p=''/>", /prefix|undeclared/],
    ["<xmlns:a/>", "<xmlns:a/>", /xmlns/],
    ["<a><![CDATA[x</a>", "<![CDATA[", /CDATA/],
    ["<a><!-- x</a>", "<!--", /comment/],
    ["<a><?pi x</a>", "<?pi", /processing instruction/],
    ["<a>\n<!DOCTYPE a></a>", "<!DOCTYPE", /DOCTYPE/],
    ["<a><!bogus></a>", "<!bogus", /comment or CDATA/],
    ["<a b='1'c='2'/>", "c='2'", /attribute|whitespace/],
    ["<a>\n  <b></b >\n</c>", "</c>", %r{expected </a>}]
  ].freeze

  def test_not_well_formed_documents
    each_case(NOT_WELL_FORMED) do |xml, token, message|
      error = assert_raises(Wirebind::ParseError, xml.inspect) { XML.check(xml) }
      assert_instance_of Wirebind::ParseError, error, xml.inspect
      assert_match message, error.message, xml.inspect
      assert_points_at xml, error, token
    end
  end

  def test_not_well_formed_documents_fail_the_same_from_any_input
    each_case(NOT_WELL_FORMED) do |xml, _token, _message|
      expected = assert_raises(Wirebind::ParseError) { XML.check(xml) }
      [TrickleIO.new(xml, seed: 1), TrickleIO.new(xml, seed: 2, max: 2), ReadOnlyIO.new(xml, seed: 3), StringIO.new(xml)].each do |io|
        actual = assert_raises(Wirebind::ParseError, "#{xml.inspect} from #{io.class}") { XML.check(io) }
        assert_equal [expected.class, expected.line, expected.column, expected.offset],
                     [actual.class, actual.line, actual.column, actual.offset], "#{xml.inspect} from #{io.class}: #{actual.message}"
      end
    end
  end

  def test_decode_reports_parse_errors_like_check
    each_case(NOT_WELL_FORMED) do |xml, token, _message|
      error = assert_raises(Wirebind::ParseError, xml.inspect) { XML.decode(xml, Issue) }
      assert_points_at xml, error, token
      error = assert_raises(Wirebind::ParseError, xml.inspect) { XML.decode(xml, [Issue], at: "a/b") }
      assert_points_at xml, error, token
    end
  end

  def test_unterminated_documents
    {
      "<a>" => /<a>/,
      "<a>\n  <b>" => /<b>/,
      "<a><b>text" => /<b>/,
      "<a b='1" => /.+/,
      "<a><!--" => /comment/,
      "" => /root element/,
      "   \n " => /root element/,
      "<?xml version='1.0'?>" => /root element/,
      "<!-- just a comment -->" => /root element/
    }.each do |xml, message|
      error = assert_raises(Wirebind::ParseError, xml.inspect) { XML.check(xml) }
      assert_match message, error.message, xml.inspect
      refute_nil error.line, xml.inspect
      assert_operator error.offset, :<=, xml.bytesize, xml.inspect
    end
  end

  def test_columns_count_characters_and_offsets_count_bytes
    xml = "<a>ééé😀</b></a>"
    error = assert_raises(Wirebind::ParseError) { XML.check(xml) }

    assert_points_at xml, error, "</b>"
    assert_includes [8, 12], error.column, "columns count characters: </b> spans columns 8 to 12"
  end

  # Line ends are normalized to LF before parsing (XML 1.0 section 2.11): lines and
  # columns are the input's, offsets count bytes of the normalized text (documented
  # on ParseError#offset).
  def test_lines_and_columns_refer_to_the_input_even_with_crlf_offsets_to_the_normalized_text
    xml = "<a>\r\n\r\n  <b></c></a>"
    error = assert_raises(Wirebind::ParseError) { XML.check(xml) }

    assert_equal 3, error.line
    assert_equal 6, error.column
    assert_points_at xml.gsub("\r\n", "\n"), error, "</c>"
  end

  def test_positions_after_many_chunks
    filler = "<item>#{'x' * 100}</item>\n" * 2000
    xml = "<r>\n#{filler}<bad></r>"

    assert_operator xml.bytesize, :>, 3 * 64 * 1024
    [xml, StringIO.new(xml)].each do |input|
      error = assert_raises(Wirebind::ParseError) { XML.check(input) }
      assert_points_at xml, error, "</r>"
      assert_equal 2002, error.line
    end
  end

  def test_invalid_utf8_has_a_line
    xml = "<a>\n  <b>ok</b>\n  <b>caf\xE9</b>\n</a>".b
    error = assert_raises(Wirebind::ParseError) { XML.check(xml) }

    assert_match(/UTF-8/, error.message)
    assert_equal 3, error.line
    assert_points_at xml, error, "\xE9".b
  end

  def test_invalid_utf8_in_every_position
    ["\xC3", "\xE2\x82", "\xF0\x9F\x98", "\xFF", "\xC0\xAF", "\xED\xA0\x80", "\xF4\x90\x80\x80"].each do |bad|
      ["<a>#{bad}</a>", "<a b='#{bad}'/>", "<a#{bad}/>", "<a><!--#{bad}--></a>", "<a/><!--#{bad}-->"].each do |template|
        xml = template.b
        error = assert_raises(Wirebind::ParseError, xml.inspect) { XML.check(xml) }
        assert_equal 1, error.line, xml.inspect
        [TrickleIO.new(xml, max: 1), TrickleIO.new(xml, seed: 5)].each do |io|
          assert_raises(Wirebind::ParseError, "#{xml.inspect} trickled") { XML.check(io) }
        end
      end
    end
  end

  def test_every_parse_error_has_a_position
    inputs = NOT_WELL_FORMED.map(&:first) + [
      "<a>\xFF</a>".b,
      "\xFF\xFE<\x00a\x00>\x00\x00\xD8</\x00a\x00>\x00".b, # a lone surrogate in UTF-16
      "<?xml version='1.0' encoding='nope'?><a/>",
      "<?xml version='1.0' encoding='ISO-8859-1'?>\n<a>\n</b></a>".encode("ISO-8859-1")
    ]
    each_case(inputs) do |xml|
      error = assert_raises(Wirebind::ParseError, xml.inspect) { XML.check(xml) }
      refute_nil error.line, "#{xml.inspect}: #{error.message}"
      refute_nil error.column, "#{xml.inspect}: #{error.message}"
      refute_nil error.offset, "#{xml.inspect}: #{error.message}"
    end
  end

  def test_parse_error_can_be_built_and_read
    error = Wirebind::ParseError.new("bad thing", line: 3, column: 4, offset: 20)

    assert_equal [3, 4, 20], [error.line, error.column, error.offset]
    assert_match(/bad thing/, error.message)
    assert_match(/line 3/, error.message)
  end

  # ---- LimitError ------------------------------------------------------------------------

  def test_limit_errors_are_parse_errors_with_a_position
    xml = "<a>\n#{'<b>' * 20}#{'</b>' * 20}</a>"
    error = assert_raises(Wirebind::LimitError) { XML.check(xml, max_depth: 10) }

    assert_kind_of Wirebind::ParseError, error
    assert_match(/max_depth/, error.message)
    assert_match(/10/, error.message)
    assert_equal 2, error.line
    assert_points_at xml, error, "<b>", occurrence: 9
  end

  def test_token_size_limit_error
    xml = "<a>\n<b c='#{'x' * 5000}'/></a>"
    [xml, StringIO.new(xml), TrickleIO.new(xml)].each do |input|
      error = assert_raises(Wirebind::LimitError, input.class.name) { XML.check(input, max_token_size: 1000) }
      assert_match(/max_token_size/, error.message)
      assert_equal 2, error.line
    end
  end

  # One rule for the size of a text value: max_token_size applies to the text as
  # assembled, whatever the input kind and however it was split (comments, CDATA,
  # character references).
  def test_a_text_value_is_bounded_as_assembled
    texts = {
      "plain" => "x" * 5000,
      "split by comments" => Array.new(10) { "y" * 500 }.join("<!---->"),
      "CDATA sections" => Array.new(10) { "<![CDATA[#{'z' * 500}]]>" }.join,
      "character references" => "&#120;" * 1500
    }
    texts.each do |name, text|
      xml = "<a>\n#{text}</a>"
      gzip = -> { Zlib::GzipReader.new(StringIO.new(Zlib.gzip(xml))) }
      [xml, StringIO.new(xml), TrickleIO.new(xml), gzip.call].each do |input|
        error = assert_raises(Wirebind::LimitError, "#{name}, #{input.class.name}") { XML.decode(input, :string, max_token_size: 1000) }
        assert_match(/max_token_size/, error.message)
      end
      assert_equal "\n#{'w' * 900}", XML.decode(xml.sub(text, "w" * 900), :string, max_token_size: 1000) # within it
    end
  end

  def test_entity_limit_errors
    bomb = File.read(shared_path("fixtures", "xml_attacks", "xmlbomb.xml"))
    error = assert_raises(Wirebind::LimitError) { XML.check(bomb, dtd: :internal, max_entity_expansions: 10) }

    assert_match(/max_entity_expansions/, error.message)
    refute_nil error.line
    error = assert_raises(Wirebind::LimitError) { XML.check(bomb, dtd: :internal, max_entity_bytes: 100) }
    assert_match(/max_entity_bytes/, error.message)
    error = assert_raises(Wirebind::LimitError) { XML.check(bomb, dtd: :internal, max_entity_depth: 1) }
    assert_match(/max_entity_depth/, error.message)
  end

  # ---- DecodeError ---------------------------------------------------------------------------

  PRETTY = <<~XML
    <Envelope>
      <Body>
        <item>
          <key>A-1</key>
          <votes>3</votes>
        </item>
        <item>
          <key>A-2</key>
          <votes>many</votes>
        </item>
      </Body>
    </Envelope>
  XML

  def test_decode_error_path_line_and_message
    error = assert_raises(Wirebind::DecodeError) { XML.decode(PRETTY, [Issue], at: "Envelope/Body/item") }

    assert_equal "item/votes", error.path
    assert_equal 9, error.line
    assert_points_at PRETTY, error, "<votes>many</votes>"
    assert_match(/expected an integer/, error.message)
    assert_match(/"many"/, error.message, "the message shows what was found")
    assert_match(%r{item/votes}, error.message, "the message says where")
    assert_match(/line 9/, error.message)
  end

  def test_decode_error_is_the_same_from_an_io
    expected = assert_raises(Wirebind::DecodeError) { XML.decode(PRETTY, [Issue], at: "Envelope/Body/item") }
    [TrickleIO.new(PRETTY, seed: 3), StringIO.new(PRETTY)].each do |io|
      actual = assert_raises(Wirebind::DecodeError) { XML.decode(io, [Issue], at: "Envelope/Body/item") }
      assert_equal [expected.path, expected.line, expected.column], [actual.path, actual.line, actual.column]
    end
  end

  def test_decode_error_in_a_value_with_markup_inside
    xml = "<item>\n  <key>k</key>\n  <votes>ma<!-- c -->ny</votes>\n</item>"
    error = assert_raises(Wirebind::DecodeError) { XML.decode(xml, Issue) }

    assert_equal "item/votes", error.path, "a value split by a comment is still the value of <votes>"
    assert_equal 3, error.line
    assert_match(/"many"/, error.message)
  end

  def test_decode_error_in_nested_models_and_wrappers
    xml = <<~XML
      <Issue>
        <affectsVersions>
          <v><sequence>1</sequence></v>
          <v>
            <sequence>second</sequence>
          </v>
        </affectsVersions>
      </Issue>
    XML
    error = assert_raises(Wirebind::DecodeError) { XML.decode(xml, Issue) }

    assert_equal "Issue/affectsVersions/v/sequence", error.path
    assert_equal 5, error.line
    assert_points_at xml, error, "<sequence>second</sequence>"
    error = assert_raises(Wirebind::DecodeError) { XML.decode("<Wrapped>\n<meta>\n<info><created>soon</created></info></meta></Wrapped>", Wrapped) }
    assert_equal "Wrapped/meta/info/created", error.path
    assert_equal 3, error.line
    assert_match(/date/, error.message)
  end

  def test_decode_error_in_an_xml_attribute
    xml = %(<r>\n  <attrs s="ok"\n     i="twelve"/>\n</r>)
    error = assert_raises(Wirebind::DecodeError) { XML.decode(xml, [AllTypesAttrs], at: "r/attrs") }

    assert_equal "attrs/@i", error.path
    assert_includes 2..3, error.line
    assert_match(/twelve/, error.message)
    error = assert_raises(Wirebind::DecodeError) { XML.decode(%(<attrs b="maybe"><x/></attrs>), AllTypesAttrs) }
    assert_equal "attrs/@b", error.path
    assert_match(/boolean/, error.message)
  end

  def test_decode_error_in_the_text_of_the_element
    xml = %(<r>\n<price currency="EUR">\n  lots\n</price></r>)
    error = assert_raises(Wirebind::DecodeError) { XML.decode(xml, [Price], at: "r/price") }

    assert_match(/\Aprice/, error.path)
    assert_match(/decimal/, error.message)
    assert_includes 2..4, error.line
  end

  def test_decode_error_for_a_scalar_record
    xml = "<r>\n<n>1</n>\n<n>two</n></r>"
    error = assert_raises(Wirebind::DecodeError) { XML.decode(xml, [:integer], at: "r/n") }

    assert_equal "n", error.path
    assert_equal 3, error.line
  end

  def test_decode_error_for_strict_unknown_elements
    xml = "<Issue>\n  <key>k</key>\n  <bogus>x</bogus>\n</Issue>"
    error = assert_raises(Wirebind::DecodeError) { XML.decode(xml, Issue, strict: true) }

    assert_equal "Issue/bogus", error.path
    assert_equal 3, error.line
    assert_points_at xml, error, "<bogus>"
    assert_match(/unknown element <bogus>/, error.message)
    xml = "<Issue>\n  <bogus><x/></bogus>\n</Issue>"
    error = assert_raises(Wirebind::DecodeError) { XML.decode(xml, Issue, strict: true) }
    assert_equal "Issue/bogus", error.path
    assert_equal 2, error.line
  end

  def test_decode_error_paths_use_local_names
    xml = %(<p:item xmlns:p="urn:p"><p:votes>x</p:votes></p:item>)
    error = assert_raises(Wirebind::DecodeError) { XML.decode(xml, Issue) }

    assert_equal "item/votes", error.path
  end

  def test_decode_error_is_not_raised_for_well_formed_nonsense_it_ignores
    assert_equal Issue.new, XML.decode("<Issue><junk><votes>many</votes></junk></Issue>", Issue)
  end

  def test_decode_errors_for_every_type_say_what_was_expected
    {
      i: [/integer/, "x"], f: [/double/, "x"], d: [/decimal/, "x"], b: [/boolean/, "x"],
      t: [/date-time/, "x"], dt: [/date/, "x"], bin: [/base64/, "*"]
    }.each do |name, (expected, text)|
      error = assert_raises(Wirebind::DecodeError, name) { XML.decode("<AllTypes><#{name}>#{text}</#{name}></AllTypes>", AllTypes) }
      assert_match expected, error.message, name
      assert_match(/expected/, error.message, name)
      assert_equal "AllTypes/#{name}", error.path
      assert_equal 1, error.line
    end
  end

  def test_long_bad_values_are_cut_short_in_messages
    error = assert_raises(Wirebind::DecodeError) { XML.decode("<AllTypes><i>#{'9x' * 50_000}</i></AllTypes>", AllTypes) }

    assert_operator error.message.length, :<, 300
  end

  # ---- EncodeError -----------------------------------------------------------------------------

  def test_encode_error_path_and_message
    error = assert_raises(Wirebind::EncodeError) { XML.encode(Issue.new(votes: "12")) }

    assert_equal "Issue/votes", error.path
    assert_match(/expected an Integer/, error.message)
    assert_match(/"12"/, error.message)
    assert_match(%r{Issue/votes}, error.message)
  end

  def test_encode_error_follows_the_root_name
    error = assert_raises(Wirebind::EncodeError) { XML.encode(Issue.new(votes: "12"), root: "item") }

    assert_equal "item/votes", error.path
  end

  def test_encode_error_for_unwritable_characters
    error = assert_raises(Wirebind::EncodeError) { XML.encode(Issue.new(key: "a\u0000b")) }

    assert_equal "Issue/key", error.path
    assert_match(/U\+0000/, error.message)
  end

  def test_encode_error_can_be_built_and_read
    error = Wirebind::EncodeError.new("nope", path: "a/b")

    assert_equal "a/b", error.path
    assert_match(%r{a/b}, error.message)
  end

  # ---- ArgumentError for bad options ------------------------------------------------------------

  def test_bad_options_are_argument_errors
    xml = "<Issue/>"
    [
      -> { XML.decode(xml, Issue, max_depth: 0) },
      -> { XML.decode(xml, Issue, max_depth: -1) },
      -> { XML.decode(xml, Issue, max_depth: "10") },
      -> { XML.decode(xml, Issue, max_depth: 1.5) },
      -> { XML.decode(xml, Issue, max_depth: nil) },
      -> { XML.decode(xml, Issue, max_token_size: 0) },
      -> { XML.decode(xml, Issue, max_entity_expansions: -5) },
      -> { XML.decode(xml, Issue, max_entity_bytes: :lots) },
      -> { XML.decode(xml, Issue, max_entity_depth: 0) },
      -> { XML.decode(xml, Issue, max_deepth: 10) },
      -> { XML.decode(xml, Issue, dtd: :external) },
      -> { XML.decode(xml, Issue, dtd: "internal") },
      -> { XML.decode(xml, Issue, dtd: true) },
      -> { XML.decode(xml, Issue, backend: :ruby) },
      -> { XML.decode(xml, Issue, at: 5) },
      -> { XML.decode(xml, Issue, at: :Issue) },
      -> { XML.decode(xml, Issue, at: "a//b") },
      -> { XML.decode(xml, Issue, at: "a/b c") },
      -> { XML.decode(xml, Issue, at: "{urn:x") },
      -> { XML.decode(xml, Issue, at: "") },
      -> { XML.each(xml, Issue, max_depth: 0) { nil } },
      -> { XML.each(xml, Issue, bogus: 0) { nil } },
      -> { XML.check(xml, max_depth: 0) },
      -> { XML.check(xml, dtd: :maybe) },
      -> { XML.check(xml, strictness: 1) },
      -> { Issue.from_xml(xml, max_depth: -1) }
    ].each_with_index do |call, i|
      error = assert_raises(ArgumentError, "case #{i}", &call)
      refute_kind_of Wirebind::Error, error
      refute_empty error.message
    end
  end

  def test_bad_option_messages_name_the_option
    error = assert_raises(ArgumentError) { XML.decode("<a/>", Issue, max_depth: -1) }
    assert_match(/max_depth/, error.message)
    error = assert_raises(ArgumentError) { XML.decode("<a/>", Issue, max_deepth: 10) }
    assert_match(/max_deepth/, error.message)
    error = assert_raises(ArgumentError) { XML.decode("<a/>", Issue, dtd: :external) }
    assert_match(/dtd/, error.message)
    error = assert_raises(ArgumentError) { XML.decode("<a/>", Issue, at: "a//b") }
    assert_match(/at/, error.message)
  end

  def test_bad_options_are_refused_before_reading
    io = TrickleIO.new("<Issue/>")

    assert_raises(ArgumentError) { XML.decode(io, Issue, max_depth: 0) }
    assert_equal 0, io.reads, "options are checked before the input is touched"
  end

  # ---- issue 11: hardening -------------------------------------------------------------

  def test_attributes_past_max_attributes_are_a_limit_error_at_the_tag
    %i[pure].concat(Wirebind.backend == :native ? [:native] : []).each do |backend|
      xml = "<r>\n  <e #{Array.new(10_001) { |i| %(a#{i}="1") }.join(' ')}/></r>"
      error = assert_raises(Wirebind::LimitError) { XML.check(xml, backend: backend) }
      assert_match(/more than max_attributes \(10000\) attributes/, error.message)
      assert_equal [2, 3], [error.line, error.column], "#{backend}: the tag's start"
      assert XML.check(xml, max_attributes: 10_001, backend: backend)
    end
  end

  def test_namespace_declarations_past_max_namespaces_are_a_limit_error
    %i[pure].concat(Wirebind.backend == :native ? [:native] : []).each do |backend|
      xml = "<r xmlns:a='urn:a'><s xmlns:b='urn:b' xmlns='urn:c'/><t xmlns:c='urn:c'><u xmlns:d='urn:d'/></t></r>"
      assert XML.check(xml, max_namespaces: 3, backend: backend), "declarations out of scope do not count"
      error = assert_raises(Wirebind::LimitError) { XML.check(xml, max_namespaces: 2, backend: backend) }
      assert_match(/more than max_namespaces \(2\) namespace declarations in scope/, error.message)
    end
  end

  def test_names_that_namespaces_forbid_are_parse_errors
    {
      "<a:b:c xmlns:a='urn:a'/>" => /element name <a:b:c> is not a qualified name/,
      "<:x/>" => /element name <:x> is not a qualified name/,
      "<a:/>" => /element name <a:> is not a qualified name/,
      "<r a:b:c='1' xmlns:a='urn:a'/>" => /attribute name 'a:b:c' is not a qualified name/,
      "<r xmlns:='urn:x'/>" => /attribute name 'xmlns:' is not a qualified name/,
      "<r><?a:b c?></r>" => /processing instruction target 'a:b' contains a colon/,
      "<r xmlns:xmlns='urn:x'/>" => /the prefix 'xmlns' cannot be declared/,
      "<r xmlns:xml='urn:x'/>" => /the prefix 'xml' can only be bound to/,
      "<r xmlns:p='http://www.w3.org/XML/1998/namespace'/>" => /can only be bound to its reserved prefix/,
      "<r xmlns:p='http://www.w3.org/2000/xmlns/'/>" => /can only be bound to its reserved prefix/,
      "<r xmlns:p=''/>" => /cannot be undeclared/
    }.each do |xml, message|
      error = assert_raises(Wirebind::ParseError, xml) { XML.check(xml) }
      assert_match message, error.message
    end
  end

  def test_dtd_names_with_colons_are_parse_errors
    ["<!DOCTYPE r [<!ENTITY a:b 'x'>]><r/>", "<!DOCTYPE r [<!ENTITY % a:b 'x'>]><r/>",
     "<!DOCTYPE r [<!NOTATION a:b SYSTEM 'n'>]><r/>", "<!DOCTYPE r [<?a:b?>]><r/>"].each do |xml|
      error = assert_raises(Wirebind::ParseError, xml) { XML.check(xml, dtd: :internal) }
      assert_match(/contains a colon/, error.message)
    end
  end

  # Issue 11, item 9: names in the DTD follow Namespaces in XML too. The native
  # backend hands every document with a DOCTYPE to the pure one: both are asked.
  def test_dtd_element_and_attribute_names_are_qualified_names
    {
      "<!DOCTYPE a:b:c []><a:b:c xmlns:a='urn:a'/>" => ["the DOCTYPE's element name 'a:b:c'", 11],
      "<!DOCTYPE r [<!ELEMENT a:b:c ANY>]><r/>" => ["element name 'a:b:c'", 24],
      "<!DOCTYPE r [<!ELEMENT :x ANY>]><r/>" => ["element name ':x'", 24],
      "<!DOCTYPE r [<!ELEMENT r (a|b:)*>]><r/>" => ["element name 'b:'", 29],
      "<!DOCTYPE r [<!ELEMENT r (#PCDATA|p::q)*>]><r/>" => ["element name 'p::q'", 35],
      "<!DOCTYPE r [<!ATTLIST a:b:c x CDATA #IMPLIED>]><r/>" => ["element name 'a:b:c'", 24],
      "<!DOCTYPE r [<!ATTLIST r :x CDATA #IMPLIED>]><r/>" => ["attribute name ':x'", 26],
      "<!DOCTYPE r [<!ATTLIST r x:y:z CDATA #IMPLIED>]><r/>" => ["attribute name 'x:y:z'", 26]
    }.each do |xml, (what, column)|
      each_backend do |backend|
        error = assert_raises(Wirebind::ParseError, "#{xml} (#{backend})") { XML.check(xml, dtd: :internal, backend: backend) }
        assert_equal "#{what} is not a qualified name (one colon, between a prefix and a local name) at line 1, column #{column}", error.message
      end
    end
    ok = "<!DOCTYPE p:r [<!ELEMENT p:r (p:a|b)*><!ATTLIST p:r xmlns:p CDATA #FIXED 'urn:p' p:x CDATA 'd'>]><p:r/>"
    each_backend { |backend| assert XML.check(ok, dtd: :internal, backend: backend) }
  end

  def test_notation_names_in_entity_and_attribute_declarations_hold_no_colon
    ["<!DOCTYPE r [<!ENTITY e SYSTEM 'x' NDATA a:b>]><r/>", "<!DOCTYPE r [<!ATTLIST r n NOTATION (x|a:b) #IMPLIED>]><r/>"].each do |xml|
      each_backend do |backend|
        error = assert_raises(Wirebind::ParseError, xml) { XML.check(xml, dtd: :internal, backend: backend) }
        assert_match(/notation name 'a:b' contains a colon/, error.message)
      end
    end
  end

  def test_external_and_undeclared_parameter_entities_are_errors
    xml = %(<!DOCTYPE r [\n<!ENTITY % a SYSTEM "http://example.com/a.dtd">\n%a;\n<!ENTITY e "late">]><r>&e;</r>)
    error = assert_raises(Wirebind::ParseError) { XML.check(xml, dtd: :internal) }
    assert_match(/external parameter entity '%a;' is referenced/, error.message)
    assert_equal 3, error.line
    error = assert_raises(Wirebind::ParseError) { XML.check("<!DOCTYPE r [%b;]><r/>", dtd: :internal) }
    assert_match(/undeclared parameter entity '%b;'/, error.message)
    assert XML.check(%(<!DOCTYPE r [<!ENTITY % a "<!ENTITY e 'x'>">%a;]><r>&e;</r>), dtd: :internal)
  end

  def test_a_byte_order_mark_that_contradicts_the_declaration_is_a_parse_error
    utf16 = "\uFEFF<?xml version=\"1.0\" encoding=\"UTF-8\"?><a/>"
    latin = "\xEF\xBB\xBF<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><a/>".b
    [[utf16.encode("UTF-16LE").b, /UTF-16LE but the document declares UTF-8/],
     [utf16.encode("UTF-16BE").b, /UTF-16BE but the document declares UTF-8/],
     [latin, /UTF-8 but the document declares ISO-8859-1/]].each do |bytes, message|
      error = assert_raises(Wirebind::ParseError) { XML.check(bytes) }
      assert_match message, error.message
      assert_equal [1, 1], [error.line, error.column]
    end
    assert XML.check("\uFEFF<?xml version=\"1.0\" encoding=\"UTF-16\"?><a/>".encode("UTF-16LE").b)
    assert XML.check("\xEF\xBB\xBF<?xml version=\"1.0\" encoding=\"utf-8\"?><a/>".b)
  end

  private

  # Yields each backend in this build: pure always, native when it is built.
  def each_backend(&block)
    (Wirebind.backend == :native ? %i[pure native] : %i[pure]).each(&block)
  end
end

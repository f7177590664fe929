# frozen_string_literal: true

require_relative "xml_test_support"

# The pure backend's Source: input of any kind in, clean LF-normalized UTF-8
# chunks out. The same behaviour is held through the public API too, so that the
# native backend keeps it.
class XMLPureSourceTest < Minitest::Test
  include XMLTestHelpers
  include XMLTestModels

  Source = Wirebind::XML::Source

  # All the text a Source hands out, checking each chunk on the way.
  def drain(input)
    source = Source.new(input)
    chunks = []
    while (chunk = source.next_chunk)
      assert_equal Encoding::UTF_8, chunk.encoding
      assert_predicate chunk, :valid_encoding?, "every chunk is valid UTF-8 on its own: #{chunk.inspect}"
      refute_includes chunk, "\r", "line ends are normalized: #{chunk.inspect}"
      chunks << chunk
    end
    assert_nil source.next_chunk, "the end stays the end"
    chunks.join
  end

  def all_inputs(bytes)
    [bytes, StringIO.new(bytes), TrickleIO.new(bytes, seed: 1), TrickleIO.new(bytes, seed: 2, max: 1),
     TrickleIO.new(bytes, seed: 3, max: 3), ReadOnlyIO.new(bytes, seed: 4), ReadOnlyIO.new(bytes, seed: 5, max: 1)]
  end

  # ---- inputs ----------------------------------------------------------------------

  def test_strings_and_ios_give_the_same_text
    text = "<a>héllo 日本 😀\n<b x='1'/>\n</a>"
    all_inputs(text).each do |input|
      assert_equal text, drain(input), input.class.name
    end
  end

  def test_an_empty_input
    assert_equal "", drain("")
    assert_equal "", drain(StringIO.new(""))
    assert_equal "", drain(TrickleIO.new(""))
  end

  def test_other_inputs_are_argument_errors
    [42, nil, :sym, Object.new, ["<a/>"]].each do |bad|
      assert_raises(ArgumentError, bad.inspect) { Source.new(bad) }
    end
  end

  def test_the_chunk_size_is_64_kib
    assert_equal 64 * 1024, Source::CHUNK_SIZE
    io = TrickleIO.new("x" * 10, max: 100)
    drain(io)

    assert_equal [65_536], io.requested.uniq
  end

  def test_the_input_string_is_left_alone
    input = "<a>\r\n</a>".b.freeze
    drain(input)

    assert_equal "<a>\r\n</a>".b, input
    mutable = +"<a>\r\né</a>"
    copy = mutable.dup
    drain(mutable)
    assert_equal copy, mutable
    assert_equal Encoding::UTF_8, mutable.encoding
  end

  def test_a_binary_string_is_read_as_utf8
    assert_equal "<a>é</a>", drain("<a>é</a>".b)
  end

  # ---- line ends -----------------------------------------------------------------------

  def test_line_ends_are_normalized
    all_inputs("a\r\nb\rc\nd\r\r\ne\n\r").each do |input|
      assert_equal "a\nb\nc\nd\n\ne\n\n", drain(input), input.class.name
    end
  end

  def test_crlf_straddling_every_read
    text = "\r\n" * 200 + "x\r" + "\r\n" * 50
    expected = "\n" * 200 + "x\n" + "\n" * 50
    (1..7).each do |max|
      assert_equal expected, drain(TrickleIO.new(text, seed: max, max: max)), "reads of up to #{max} bytes"
    end
  end

  def test_a_final_cr
    assert_equal "<a/>\n", drain(TrickleIO.new("<a/>\r", max: 1))
    assert_equal "<a/>\n", drain("<a/>\r")
  end

  # ---- multi-byte characters -------------------------------------------------------------

  def test_multibyte_characters_straddling_reads
    text = "é日😀\u{10FFFF}ß" * 100
    (1..7).each do |max|
      assert_equal text, drain(TrickleIO.new(text, seed: max, max: max)), "reads of up to #{max} bytes"
      assert_equal text, drain(ReadOnlyIO.new(text, seed: max, max: max)), "read(n) of up to #{max} bytes"
    end
  end

  def test_multibyte_characters_across_64_kib
    text = ("é" * 40_000) + ("😀" * 40_000)

    assert_equal text, drain(StringIO.new(text))
  end

  # ---- invalid text ------------------------------------------------------------------------

  def test_invalid_utf8_is_a_parse_error_with_a_position
    text = "<a>\nok\n  caf\xE9 </a>".b
    all_inputs(text).each do |input|
      error = assert_raises(Wirebind::ParseError, input.class.name) { drain(input) }
      assert_equal [3, 6, 12], [error.line, error.column, error.offset], "#{input.class}: #{error.message}"
    end
  end

  def test_truncated_utf8_at_the_end
    all_inputs("<a>\xE6\x97".b).each do |input|
      assert_raises(Wirebind::ParseError, input.class.name) { drain(input) }
    end
  end

  def test_invalid_sequences
    ["\xC0\x80", "\xED\xA0\x80", "\xF8\x88\x80\x80\x80", "\x80", "\xFE", "\xF4\x90\x80\x80"].each do |bad|
      assert_raises(Wirebind::ParseError, bad.inspect) { drain("<a>#{bad}</a>".b) }
      assert_raises(Wirebind::ParseError, bad.inspect) { drain(TrickleIO.new("<a>#{bad}</a>", max: 2)) }
    end
  end

  def test_characters_xml_forbids
    ["\u0000", "\u0001", "\u0008", "\u000B", "\u000C", "\u001F", "\uFFFE", "\uFFFF"].each do |bad|
      error = assert_raises(Wirebind::ParseError, bad.inspect) { drain("<a>\n x#{bad}</a>") }
      assert_equal 2, error.line
      assert_equal 3, error.column
      assert_includes error.message, format("U+%04X", bad.ord)
    end
  end

  def test_characters_xml_allows
    text = "\t\n \u007F\u0080\u0085\u00A0\uD7FF\uE000\uFFFD\u{10000}\u{10FFFF}"

    assert_equal text, drain(text)
  end

  # ---- encodings ------------------------------------------------------------------------------

  def test_utf8_bom_is_dropped
    all_inputs("\xEF\xBB\xBF<a>é</a>".b).each do |input|
      assert_equal "<a>é</a>", drain(input), input.class.name
    end
  end

  def test_utf16_with_a_bom
    text = "<?xml version=\"1.0\" encoding=\"UTF-16\"?>\r\n<a b='é'>日本 😀\r\n</a>"
    expected = text.gsub("\r\n", "\n")
    %w[UTF-16LE UTF-16BE].each do |encoding|
      bytes = "\uFEFF#{text}".encode(encoding).b
      all_inputs(bytes).each do |input|
        assert_equal expected, drain(input), "#{encoding} from #{input.class}"
      end
    end
  end

  def test_utf16_without_a_declaration
    %w[UTF-16LE UTF-16BE].each do |encoding|
      bytes = "\uFEFF<a>x</a>".encode(encoding).b

      assert_equal "<a>x</a>", drain(bytes), encoding
    end
  end

  def test_declared_single_byte_encodings
    {
      "ISO-8859-1" => "café ñ ÿ",
      "iso-8859-1" => "café",
      "ISO-8859-15" => "€uro",
      "windows-1252" => "€ “quotes”",
      "Shift_JIS" => "日本語",
      "EUC-JP" => "日本語",
      "KOI8-R" => "привет"
    }.each do |name, sample|
      text = %(<?xml version="1.0" encoding="#{name}"?>\n<a x="#{sample}">#{sample}\r\n</a>)
      bytes = text.encode(name).b
      expected = text.gsub("\r\n", "\n")
      all_inputs(bytes).each do |input|
        assert_equal expected, drain(input), "#{name} from #{input.class}"
      end
    end
  end

  def test_declared_utf8_and_ascii
    %w[UTF-8 utf-8 US-ASCII].each do |name|
      text = %(<?xml version="1.0" encoding="#{name}"?><a>x</a>)

      assert_equal text, drain(text)
    end
  end

  def test_bad_declared_encodings
    %w[no-such-encoding UTF-16 UTF-32].each do |name|
      assert_raises(Wirebind::ParseError, name) { drain(%(<?xml version="1.0" encoding="#{name}"?><a/>)) }
    end
  end

  def test_bytes_not_in_the_declared_encoding
    bytes = %(<?xml version="1.0" encoding="Shift_JIS"?><a>\x82</a>).b

    assert_raises(Wirebind::ParseError) { drain(bytes) }
  end

  # ---- through the public API --------------------------------------------------------------------

  def test_decoding_declared_encodings
    {
      "ISO-8859-1" => "café ñ",
      "windows-1252" => "€ 2",
      "Shift_JIS" => "日本"
    }.each do |name, sample|
      text = %(<?xml version="1.0" encoding="#{name}"?>\n<Issue lang="#{sample}"><key>#{sample}</key><label>#{sample}</label></Issue>)
      bytes = text.encode(name).b
      expected = Issue.new(lang: sample, key: sample, labels: [sample])
      all_inputs(bytes).each do |input|
        decoded = XML.decode(input, Issue)

        assert_equal expected, decoded, "#{name} from #{input.class}"
        assert_equal Encoding::UTF_8, decoded.key.encoding
      end
    end
  end

  def test_decoding_utf16
    record = Issue.new(lang: "é", key: "日本 😀", labels: ["a\nb"])
    text = "<Issue lang='é'>\r\n<key>日本 😀</key><label>a\r\nb</label></Issue>"
    %w[UTF-16LE UTF-16BE].each do |encoding|
      bytes = "\uFEFF#{text}".encode(encoding).b
      all_inputs(bytes).each do |input|
        assert_equal record, XML.decode(input, Issue), "#{encoding} from #{input.class}"
      end
    end
  end

  def test_a_string_tagged_utf16_is_read_by_its_bytes
    record = XML.decode("\uFEFF<Issue><key>k</key></Issue>".encode("UTF-16LE"), Issue)

    assert_equal "k", record.key
  end
end

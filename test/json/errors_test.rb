# frozen_string_literal: true

require_relative "json_test_support"

# Every error: its class, its message, and where it points (line, column, byte
# offset, path), the same whether the input is a String or trickles in.
class JSONErrorsTest < Minitest::Test
  include JSONTestHelpers
  include JSONTestModels

  def parse_error(json, *patterns, type: :any, **options)
    error = assert_raises_everywhere(Wirebind::ParseError, json) { |input| JSON.decode(input, type, **options) }
    assert_instance_of Wirebind::ParseError, error
    patterns.each { |pattern| assert_match pattern, error.message }
    error
  end

  def assert_position(error, line, column, offset)
    assert_equal [line, column, offset], [error.line, error.column, error.offset], error.message
  end

  # ---- syntax -------------------------------------------------------------------

  def test_malformed_syntax_is_a_parse_error_where_it_happens
    {
      "[1,]" => [/expected a JSON value, got '\]'/, 1, 4, 3],
      "[1 2]" => [/expected ',' or '\]' after an item, got '2'/, 1, 4, 3],
      '{"a" 1}' => [/expected ':' after the key "a"/, 1, 6, 5],
      '{"a":1,}' => [/expected a key string after ','/, 1, 8, 7],
      "{'a':1}" => [/expected a key string or '}', got '''/, 1, 2, 1],
      '{"a":1 "b":2}' => [/expected ',' or '}' after a member, got '"'/, 1, 8, 7],
      "[01]" => [/invalid number 01/, 1, 2, 1],
      "[1.]" => [/invalid number 1\./, 1, 2, 1],
      "[-]" => [/invalid number -/, 1, 2, 1],
      "[.5]" => [/expected a JSON value, got '\.'/, 1, 2, 1],
      "[+1]" => [/expected a JSON value, got '\+'/, 1, 2, 1],
      "[1e]" => [/invalid number 1e/, 1, 2, 1],
      "[tru]" => [/invalid literal "tru\]" \(expected true\)/, 1, 2, 1],
      "[nul" => [/the input ends inside a literal \(expected null\)/, 1, 2, 1],
      "[NaN]" => [/expected a JSON value, got 'N'/, 1, 2, 1],
      "1 2" => [/unexpected '2' after the JSON value/, 1, 3, 2],
      "" => [/the input is empty/, 1, 1, 0],
      "  \n " => [/the input is empty/, 2, 2, 4],
      "[\"a\tb\"]" => [/control character U\+0009 must be escaped/, 1, 4, 3],
      '["\\x"]' => [/invalid escape '\\x'/, 1, 3, 2],
      '["\\u12G4"]' => [/\\u must be followed by four hexadecimal digits/, 1, 3, 2],
      "\u00e9" => [/expected a JSON value, got 'é'/, 1, 1, 0],
      "[\u0001]" => [/expected a JSON value, got U\+0001/, 1, 2, 1]
    }.each do |json, (pattern, line, column, offset)|
      error = parse_error(json, pattern)
      assert_position(error, line, column, offset)
    end
  end

  def test_positions_count_lines_and_characters_not_bytes
    error = parse_error("{\n  \"clé\": \"日本\",\n  \"x\": tru\n}", /invalid literal/)
    assert_position(error, 3, 8, 29)
    assert_match(/at line 3, column 8\z/, error.message)
    error = parse_error("\uFEFF[1,]", /expected a JSON value/)
    assert_equal 6, error.offset, "the byte order mark counts in the offset"
    assert_equal 4, error.column
  end

  def test_truncated_input_at_every_byte_is_a_parse_error
    json = JSON.encode(Issue.new(id: "1", key: "k\u00e9\\\"🚀", votes: -12, watched: false, updated: Time.utc(2014),
                                 affects_versions: [Version.new(sequence: 1)], labels: %w[a b]))
    (0...json.bytesize).each do |cut|
      prefix = json.byteslice(0, cut)
      [Issue, :any].each do |type|
        error = assert_raises(Wirebind::ParseError, "cut at #{cut}: #{prefix.inspect}") { JSON.decode(prefix, type) }
        assert_kind_of Wirebind::ParseError, error
        assert_equal 1, error.line
        trickled = assert_raises(Wirebind::ParseError) { JSON.decode(TrickleIO.new(prefix, seed: cut), type) }
        assert_equal error.message, trickled.message
      end
    end
  end

  # ---- text -----------------------------------------------------------------------

  def test_invalid_utf8_is_a_parse_error
    { "[\"a\xFFb\"]" => [1, 4, 3], "[\"\xC3\"]" => [1, 3, 2], "[\"\xED\xA0\x80\"]" => [1, 3, 2],
      "[1]\n\xC0\xAF" => [2, 1, 4], "[\"\xF0\x9F\x98\"]" => [1, 3, 2] }.each do |json, (line, column, offset)|
      error = parse_error(json.b, /invalid UTF-8/)
      assert_position(error, line, column, offset)
    end
    error = parse_error("[\"ok\"]\xE2\x82".b, /invalid UTF-8/)
    assert_equal 6, error.offset, "a character cut by the end of the input"
  end

  def test_utf16_and_utf32_are_named
    ["[1]".encode(Encoding::UTF_16BE).b, "\xFF\xFE[\x001\x00]\x00".b, "[1]".encode(Encoding::UTF_32LE).b].each do |json|
      parse_error(json, /must be UTF-8.*UTF-16 or UTF-32/)
    end
  end

  def test_lone_surrogates_are_parse_errors
    { '["\\ud800"]' => /lone surrogate \\uD800/, '["\\udc00x"]' => /lone surrogate \\uDC00/,
      '["\\ud800\\u0041"]' => /lone surrogate \\uD800/, '["\\ud83d\\ud83d"]' => /lone surrogate \\uD83D/,
      '{"\\udfff": 1}' => /lone surrogate \\uDFFF/, '["\\ud800' => /lone surrogate|ends inside a string/ }.each do |json, pattern|
      error = parse_error(json, pattern)
      assert_equal 3, error.column, json
      parse_error(json, pattern, type: [:string]) unless json.start_with?("{")
    end
  end

  def test_a_lone_surrogate_in_a_skipped_value_is_still_an_error
    parse_error('{"unknown": ["\\ud800"], "id": "1"}', /lone surrogate/, type: Issue)
    parse_error('{"unknown": [1, 2, }', /expected a JSON value/, type: Issue)
  end

  # ---- limits ----------------------------------------------------------------------

  def test_depth_limit
    assert_equal [[[]]], JSON.decode("[[[]]]", :any, max_depth: 3)
    error = assert_error(Wirebind::LimitError, /nested deeper than max_depth \(3\)/) { JSON.decode("[[[[]]]]", :any, max_depth: 3) }
    assert_position(error, 1, 4, 3)
    deep = ("[" * 100_000) + ("]" * 100_000)
    assert_error(Wirebind::LimitError, /max_depth \(1024\)/) { JSON.decode(deep, :any) }
    assert_error(Wirebind::LimitError, /max_depth \(1024\)/) { JSON.decode("{\"a\":#{deep}}", Issue) }
    assert_error(Wirebind::LimitError, /max_depth \(2\)/) { JSON.decode('{"affects_versions": [{}]}', Issue, max_depth: 2) }
    assert_error(Wirebind::LimitError, /max_depth \(1\)/) { JSON.decode('{"labels": []}', Issue, max_depth: 1) }
    objects = ('{"a":' * 2000) + "1" + ("}" * 2000)
    assert_error(Wirebind::LimitError, /max_depth/) { JSON.decode(objects, :any) }
    assert_equal 1, JSON.decode(objects, :any, max_depth: 2000).dig(*Array.new(2000, "a"))
  end

  def test_token_size_limit
    assert_equal ["abcd"], JSON.decode('["abcd"]', [:string], max_token_size: 6)
    error = assert_raises_everywhere(Wirebind::LimitError, '[1, "abcdefgh"]') { |input| JSON.decode(input, :any, max_token_size: 6) }
    assert_match(/larger than max_token_size \(6 bytes\)/, error.message)
    assert_position(error, 1, 5, 4)
    assert_raises_everywhere(Wirebind::LimitError, '["ab\\ncdefgh"]') { |input| JSON.decode(input, [:string], max_token_size: 6) }
    assert_raises_everywhere(Wirebind::LimitError, '{"abcdefghij": 1}') { |input| JSON.decode(input, Issue, max_token_size: 6) }
    assert_raises_everywhere(Wirebind::LimitError, '{"id": "abcdefghij"}') { |input| JSON.decode(input, Issue, max_token_size: 6) }
    assert_raises_everywhere(Wirebind::LimitError, '{"x": "abcdefghij"}') { |input| JSON.decode(input, Issue, max_token_size: 6) }
    assert_raises_everywhere(Wirebind::LimitError, "[12345678]") { |input| JSON.decode(input, [:integer], max_token_size: 6) }
  end

  # A string counts both quotes whichever path reads it: the same token is
  # refused with or without an escape in it, from a String or from an IO.
  def test_token_size_counts_both_quotes_on_every_path
    assert_equal ["abcd"], JSON.decode('["abcd"]', [:string], max_token_size: 6)
    assert_equal ["a\nd"], JSON.decode('["a\\nd"]', [:string], max_size: 7)
    ['["abcde"]', '["a\\nde"]', '["abc\\n"]'].each do |json|
      error = assert_raises_everywhere(Wirebind::LimitError, json) { |input| JSON.decode(input, [:string], max_size: json.bytesize - 3) }
      assert_position(error, 1, 2, 1)
    end
  end

  # Four bytes after \u may end inside a multi-byte character: still a ParseError.
  def test_a_unicode_escape_cut_inside_a_character
    error = parse_error("[\"\\u123\u00e9\"]", /four hexadecimal digits/)
    assert_position(error, 1, 3, 2)
  end

  def test_number_length_limit
    long = "1#{'0' * 4095}"
    assert_equal 10**4095, JSON.decode("[#{long}]", [:integer]).first
    error = assert_raises_everywhere(Wirebind::LimitError, "[#{long}0]") { |input| JSON.decode(input, :any) }
    assert_match(/longer than max_number_length \(4096 characters\)/, error.message)
    assert_position(error, 1, 2, 1)
    assert_error(Wirebind::LimitError, /max_number_length \(5 characters\)/) { JSON.decode("[1.2345]", [:float], max_number_length: 5) }
    assert_error(Wirebind::LimitError, /max_number_length/) { JSON.decode('{"x": 1' + ("0" * 5000) + "}", Issue) }
    huge = "[#{'9' * 10_000_000}]"
    assert_error(Wirebind::LimitError, /max_number_length/) { JSON.decode(huge, :any) }
    # A huge number is refused without being read to its end: through an IO, what
    # was read when the error came says so, whatever the machine's load (this
    # used to be a 5 s wall-clock bound).
    (Wirebind.backend == :native ? %i[pure native] : %i[pure]).each do |backend|
      io = StringIO.new(huge)
      assert_raises(Wirebind::LimitError) { JSON.decode(io, :any, backend: backend) }
      assert_operator io.pos, :<, 1024 * 1024, "#{backend}: read #{io.pos} bytes of a 10 MB number before refusing it"
    end
  end

  def test_limit_errors_are_parse_errors
    assert_operator Wirebind::LimitError, :<, Wirebind::ParseError
    assert_operator Wirebind::ParseError, :<, Wirebind::Error
    assert_operator Wirebind::DecodeError, :<, Wirebind::Error
  end

  # ---- decode errors -----------------------------------------------------------------

  def test_decode_errors_carry_the_path_by_json_keys_and_the_line
    json = <<~JSON
      [
        {"id": "1"},
        {"id": "2"},
        {"id": "3"},
        {"id": "4", "affects_versions": [
          {"sequence": 1},
          {"sequence": "two"}
        ]}
      ]
    JSON
    error = assert_raises_everywhere(Wirebind::DecodeError, json) { |input| JSON.decode(input, [Issue]) }
    assert_equal "[3].affects_versions[1].sequence", error.path
    assert_equal [7, 18], [error.line, error.column]
    assert_match(/expected an integer, got the string "two" \(at \[3\]\.affects_versions\[1\]\.sequence, line 7, column 18\)/, error.message)
  end

  def test_paths_use_the_keys_as_written_in_the_input
    error = assert_error(Wirebind::DecodeError) { JSON.decode('{"fixVersions": [{"sequence": 1.5}]}', Camel) }
    assert_equal "fixVersions[0].sequence", error.path
    error = assert_error(Wirebind::DecodeError) { JSON.decode('{"a.b": "x"}', OddKeys) }
    assert_equal '["a.b"]', error.path
    error = assert_error(Wirebind::DecodeError) { JSON.decode('{"q\\"k": "x"}', OddKeys) }
    assert_equal '["q\"k"]', error.path
    error = assert_error(Wirebind::DecodeError) { JSON.decode('{"a": [{"b c": [1e999]}]}', :any) }
    assert_equal 'a[0]["b c"][0]', error.path
    error = assert_error(Wirebind::DecodeError) { JSON.decode('{"i": [1, 2, "x"]}', AllLists) }
    assert_equal "i[2]", error.path
    error = assert_error(Wirebind::DecodeError) { JSON.decode('"x"', :integer) }
    assert_nil error.path
    assert_equal "expected an integer, got the string \"x\" (line 1, column 1)", error.message
  end

  def test_a_parse_error_after_a_decode_error_is_not_reached_and_vice_versa
    assert_error(Wirebind::DecodeError) { JSON.decode('[{"votes": "x"}, !]', [Issue]) }
    assert_error(Wirebind::ParseError) { JSON.decode('[{"votes": !}, {"votes": "x"}]', [Issue]) }
  end

  def test_only_wirebind_errors_escape
    random = Random.new(random_seed)
    base = JSON.encode([Issue.new(id: "1", key: "k", votes: 1, labels: ["a"], affects_versions: [Version.new(id: "v")])])
    500.times do
      mutated = base.b
      random.rand(1..4).times do
        at = random.rand(mutated.bytesize)
        case random.rand(3)
        when 0 then mutated[at] = random.bytes(1)
        when 1 then mutated[at] = ""
        else mutated.insert(at, ["{", "[", "\"", "\\", ",", ":", "}", "]", "\\u", "\xE2"].sample(random: random).b)
        end
      end
      [[Issue], :any].each do |type|
        JSON.decode(mutated, type)
      rescue Wirebind::Error => e
        assert_kind_of Wirebind::Error, e
      end
    end
  end
end

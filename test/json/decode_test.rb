# frozen_string_literal: true

require_relative "json_test_support"

# Typed and untyped decoding: every type and its edge cases, nesting, lists,
# null and absent keys, unknown keys, strict, camel keys, and the input forms.
class JSONDecodeTest < Minitest::Test
  include JSONTestHelpers
  include JSONTestModels

  ISSUE = <<~JSON
    {
      "id": "10000", "key": "WIRE-1", "votes": 3, "watched": true,
      "updated": "2014-03-01T10:00:00.5+05:30",
      "affects_versions": [
        {"id": "1", "name": "1.0", "release_date": "2013-12-24T00:00:00Z", "sequence": 1},
        {"id": "2", "name": "2.0", "release_date": null, "sequence": 2}
      ],
      "labels": ["ui", "naïve", "日本語"]
    }
  JSON

  def test_decodes_the_contract_issue
    issue = decode_everywhere(ISSUE, Issue)

    assert_equal "10000", issue.id
    assert_equal "WIRE-1", issue.key
    assert_equal 3, issue.votes
    assert_same true, issue.watched
    assert_equal Time.new(2014, 3, 1, 10, 0, Rational(1, 2), "+05:30"), issue.updated
    assert_equal 19_800, issue.updated.utc_offset
    assert_equal [Version.new(id: "1", name: "1.0", release_date: Time.utc(2013, 12, 24), sequence: 1),
                  Version.new(id: "2", name: "2.0", release_date: nil, sequence: 2)], issue.affects_versions
    assert_equal %w[ui naïve 日本語], issue.labels
    assert_equal Encoding::UTF_8, issue.labels.last.encoding
  end

  def test_a_list_of_records_and_from_json
    list = decode_everywhere("[#{ISSUE}, null, {}]", [Issue])

    assert_equal 3, list.size
    assert_equal "WIRE-1", list[0].key
    assert_nil list[1]
    assert_equal Issue.new, list[2]
    assert_equal list[0], Issue.from_json(ISSUE)
    assert_equal list, JSON.decode(StringIO.new("[#{ISSUE}, null, {}]"), [Issue])
  end

  # ---- strings ------------------------------------------------------------

  def test_strings_with_every_escape
    json = '{"s": "q\" b\\\\ s\/ \b\f\n\r\t \u0041\u00e9\u20AC \ud83d\ude80 \u0000 end"}'
    value = decode_everywhere(json, AllTypes).s

    assert_equal "q\" b\\ s/ \b\f\n\r\t Aé€ 🚀 \u0000 end", value
    assert_equal Encoding::UTF_8, value.encoding
    assert value.valid_encoding?
  end

  def test_strings_raw_unicode_and_empty
    all = decode_everywhere('{"s": ""}', AllTypes)
    assert_equal "", all.s
    assert_equal "日本語 🚀 \u2028 ÿ", decode_everywhere("{\"s\": \"日本語 🚀 \u2028 ÿ\"}", AllTypes).s
    assert_equal "a\u007Fb", JSON.decode("\"a\u007Fb\"", :string)
  end

  def test_long_strings_with_and_without_escapes
    plain = "x" * 200_000
    escaped = ("ab\\n\\\"" * 30_000)
    assert_equal plain, decode_everywhere("[\"#{plain}\"]", [:string]).first
    assert_equal "ab\n\"" * 30_000, decode_everywhere("[\"#{escaped}\"]", [:string]).first
  end

  # The scanner reads long strings 64 bytes at a time: a stop (quote, escape,
  # control) and a multi-byte character at every offset of a block, before and
  # after each other, must give JSON.parse's string and its ASCII-ness.
  def test_stops_and_multibyte_characters_at_every_offset_of_a_long_string
    [[:native, Wirebind::JSON.const_defined?(:Native, false)], [:pure, true]].each do |backend, available|
      next unless available

      (0..130).each do |at|
        ["é", "\\n", "\\u00e9", "日"].each do |piece|
          [0, 70].each do |gap|
            text = "a" * at + piece + "b" * gap + (gap.zero? ? "" : "é")
            json = %(["#{text}"])
            expected = ::JSON.parse(json).first
            value = JSON.decode(json, [:string], backend: backend).first
            assert_equal expected, value, "#{backend}: #{piece.inspect} at #{at}, gap #{gap}"
            assert_equal expected.ascii_only?, value.ascii_only?, "#{backend}: ASCII-ness of #{piece.inspect} at #{at}"
          end
        end
      end
    end
  end

  def test_decoded_strings_are_new_mutable_strings
    input = '{"s": "abc"}'
    value = JSON.decode(input, AllTypes).s
    refute value.frozen?
    value << "d"
    assert_equal '{"s": "abc"}', input
  end

  # ---- integers -----------------------------------------------------------

  def test_integers
    assert_equal [0, 0, 7, -7, 123_456_789, 2**64, -(10**40), 10**100],
                 decode_everywhere("[0, -0, 7, -7, 123456789, #{2**64}, -#{10**40}, 1#{'0' * 100}]", [:integer])
  end

  def test_integers_refuse_fractions_exponents_and_other_kinds
    { "1.5" => /expected an integer, got 1\.5/, "1.0" => /got 1\.0/, "1e2" => /got 1e2/,
      '"1"' => /got the string "1"/, "true" => /got true/, "[1]" => /got an array/, "{}" => /got an object/ }.each do |text, pattern|
      error = assert_error(Wirebind::DecodeError, pattern) { JSON.decode(%({"i": #{text}}), AllTypes) }
      assert_equal "i", error.path
      assert_equal 1, error.line
      assert_equal 7, error.column
    end
  end

  # ---- floats -------------------------------------------------------------

  def test_floats_read_to_the_nearest_double
    values = decode_everywhere("[1, 1.5, -0.0, 0, 1e-5, 2.5E+3, 5e-324, 1.7976931348623157e308, " \
                               "0.1, 9007199254740993, 123456789012345678901234567890, 1e-400, " \
                               "0.30000000000000004441, 2.2250738585072011e-308]", [:float])

    assert_equal [1.0, 1.5, -0.0, 0.0, 1e-5, 2500.0, 5e-324, Float::MAX, 0.1, 9_007_199_254_740_992.0,
                  1.2345678901234568e+29, 0.0, 0.30000000000000004, 2.225073858507201e-308], values
    assert_equal(-1, values[2].to_s.index("-") && -1)
    assert(values.all?(Float))
  end

  def test_floats_beyond_a_double_are_errors_not_infinity
    error = assert_error(Wirebind::DecodeError, /1e400.*beyond the range of a double/) { JSON.decode("[1.5, 1e400]", [:float]) }
    assert_equal "[1]", error.path
    assert_error(Wirebind::DecodeError, /beyond/) { JSON.decode('{"f": -123123e100000}', AllTypes) }
  end

  # ---- decimals -----------------------------------------------------------

  def test_decimals_read_exactly_from_their_text
    values = decode_everywhere("[0.1, 12.50, -3, 1e2, 1.5E-3, 123456789012345678901234567890.123456789, " \
                               "0.30000000000000000000000001, -0.0]", [:decimal])

    assert(values.all?(BigDecimal))
    assert_equal(%w[0.1 12.5 -3.0 100.0 0.0015 123456789012345678901234567890.123456789 0.30000000000000000000000001 -0.0],
                 values.map { |v| v.to_s("F") })
    assert_equal BigDecimal("0.1"), JSON.decode('{"d": 0.1}', AllTypes).d
  end

  def test_decimals_beyond_bigdecimal_are_errors
    assert_error(Wirebind::DecodeError, /beyond the range of a decimal/) { JSON.decode("[1e99999999999999999999]", [:decimal]) }
    assert_error(Wirebind::DecodeError, /beyond the range of a decimal/) { JSON.decode("[1e-99999999999999999999]", [:decimal]) }
    assert_equal BigDecimal(0), JSON.decode("[0e-99999999999999999999]", [:decimal]).first
    assert_error(Wirebind::DecodeError, /expected a number, got the string "12.5"/) { JSON.decode('["12.5"]', [:decimal]) }
  end

  # ---- booleans, times, dates, base64 ---------------------------------------

  def test_booleans
    assert_equal [true, false, nil], decode_everywhere("[true, false, null]", [:boolean])
    { '"true"' => /got the string "true"/, "1" => /got the number 1/, "0" => /got the number 0/ }.each do |text, pattern|
      assert_error(Wirebind::DecodeError, /expected true or false/, pattern) { JSON.decode("[#{text}]", [:boolean]) }
    end
  end

  def test_times_keep_their_offset_and_fraction
    times = decode_everywhere('["2014-03-01T10:00:00Z", "2014-03-01T10:00:00", "2014-03-01T10:00:00.123456789123-03:30", ' \
                              '"-0044-03-15T12:00:00+00:00", "2014-12-31T24:00:00Z"]', [:time])

    assert_equal [Time.utc(2014, 3, 1, 10), Time.utc(2014, 3, 1, 10)], times[0, 2]
    assert(times[0].utc? && times[1].utc?)
    assert_equal(-12_600, times[2].utc_offset)
    assert_equal 123_456_789, times[2].nsec
    assert_equal(-44, times[3].year)
    assert_equal Time.utc(2015, 1, 1), times[4]
  end

  def test_time_fractions_finer_than_a_nanosecond_are_exact
    skip_on_jruby "Time keeps whole nanoseconds: finer fractions of a second are cut"
    times = decode_everywhere('["2014-03-01T10:00:00.123456789123-03:30"]', [:time])

    assert_equal Rational(123_456_789_123, 10**12), times[0].subsec
  end

  def test_invalid_times_and_dates_are_decode_errors_with_position
    error = assert_error(Wirebind::DecodeError, /date-time/, /2014-13-01/) do
      JSON.decode(%({\n  "t": "2014-13-01T00:00:00Z"}), AllTypes)
    end
    assert_equal ["t", 2, 8], [error.path, error.line, error.column]
    assert_error(Wirebind::DecodeError, /date-time/) { JSON.decode('[" 2014-01-01T00:00:00Z"]', [:time]) }
    assert_error(Wirebind::DecodeError, /expected a date-time string, got the number 5/) { JSON.decode("[5]", [:time]) }
    assert_error(Wirebind::DecodeError, /date/, /2014-02-30/) { JSON.decode('{"dt": "2014-02-30"}', AllTypes) }
    # An escaped string goes through the exact path; the position is the same.
    error = assert_error(Wirebind::DecodeError, /date/) { JSON.decode(%({"dt": "2014-02-3\\u0030"}), AllTypes) }
    assert_equal 8, error.column
  end

  def test_dates
    dates = decode_everywhere('["2014-03-01", "1582-10-04", "0001-01-01", "2014-03-01Z", null]', [:date])

    assert_equal [Date.new(2014, 3, 1), Date.new(1582, 10, 4, Date::GREGORIAN), Date.new(1, 1, 1, Date::GREGORIAN),
                  Date.new(2014, 3, 1), nil], dates
    assert_instance_of Date, dates.first
  end

  def test_base64_is_strict
    bytes = decode_everywhere('["AAEC/w==", "", "aGk="]', [:base64])
    assert_equal ["\x00\x01\x02\xFF".b, "".b, "hi".b], bytes
    assert_equal Encoding::BINARY, bytes.first.encoding
    ["AAEC/w=", "AAEC\\n/w==", "AA EC", "YQ", "Y===", "a-_b"].each do |text|
      assert_error(Wirebind::DecodeError, /base64/) { JSON.decode(%(["#{text}"]), [:base64]) }
    end
  end

  # ---- null, absent, lists ----------------------------------------------------

  def test_null_and_absent_give_nil_and_lists_empty
    empty = decode_everywhere("{}", AllTypes)
    assert_equal AllTypes.new, empty
    nulls = decode_everywhere('{"s":null,"i":null,"f":null,"d":null,"b":null,"t":null,"dt":null,"bin":null}', AllTypes)
    assert_equal AllTypes.new, nulls
    lists = decode_everywhere('{"s":null,"i":[],"f":null}', AllLists)
    assert_equal([[], [], [], [], [], [], [], []], AllLists.attributes.map { |a| lists.public_send(a.name) })
  end

  def test_null_items_stay_in_lists
    lists = decode_everywhere('{"s":["a",null,"b"],"i":[null],"t":[null,"2014-01-01T00:00:00Z"]}', AllLists)
    assert_equal ["a", nil, "b"], lists.s
    assert_equal [nil], lists.i
    assert_equal [nil, Time.utc(2014)], lists.t
    assert_equal [nil, Version.new(id: "1")], decode_everywhere('{"affects_versions": [null, {"id": "1"}]}', Issue).affects_versions
  end

  def test_lists_of_every_type
    json = '{"s":["a","\\u00e9"],"i":[1,-2],"f":[1,2.5],"d":[0.1],"b":[true,false],' \
           '"t":["2014-01-01T00:00:00+01:00"],"dt":["2014-01-02"],"bin":["aGk="]}'
    lists = decode_everywhere(json, AllLists)
    assert_equal([%w[a é], [1, -2], [1.0, 2.5], [BigDecimal("0.1")], [true, false],
                  [Time.new(2014, 1, 1, 0, 0, 0, "+01:00")], [Date.new(2014, 1, 2)], ["hi".b]],
                 AllLists.attributes.map { |a| lists.public_send(a.name) })
  end

  def test_a_list_where_a_value_is_declared_and_the_reverse
    error = assert_error(Wirebind::DecodeError, /expected a string, got an array/) { JSON.decode('{"key": ["a"]}', Issue) }
    assert_equal "key", error.path
    error = assert_error(Wirebind::DecodeError, /expected an array \(of string items\), got the string "a"/) do
      JSON.decode('{"labels": "a"}', Issue)
    end
    assert_equal "labels", error.path
    assert_error(Wirebind::DecodeError, /expected an array \(of .*Version object items\), got an object/) do
      JSON.decode('{"affects_versions": {}}', Issue)
    end
    assert_error(Wirebind::DecodeError, /expected a .*Version object, got the number 1/) do
      JSON.decode('{"affects_versions": [1]}', Issue)
    end
  end

  # ---- records ----------------------------------------------------------------

  def test_nested_records_and_recursion
    holder = decode_everywhere('{"label":"h","main":{"id":"m","sequence":4},"others":[{"id":"o"}],' \
                               '"types":{"i":1,"b":false}}', Holder)
    assert_equal Version.new(id: "m", sequence: 4), holder.main
    assert_equal [Version.new(id: "o")], holder.others
    assert_equal AllTypes.new(i: 1, b: false), holder.types
    assert_nil JSON.decode('{"main": null}', Holder).main
  end

  def test_deep_recursion_uses_no_ruby_stack
    # Each level is an object and an array: 512 levels are the default max_depth.
    [[512, {}], [20_000, { max_depth: 40_000 }]].each do |depth, limits|
      json = +""
      depth.times { |i| json << %({"name":"n#{i}","children":[) }
      json << ("]}" * depth)
      node = JSON.decode(json, Node, **limits)
      count = 0
      while node
        count += 1
        node = node.children.first
      end
      assert_equal depth, count
    end
  end

  def test_a_record_where_a_scalar_is_expected
    assert_error(Wirebind::DecodeError, /expected a .*Version object, got the string "x"/) { JSON.decode('{"main": "x"}', Holder) }
    assert_error(Wirebind::DecodeError, /expected a .*Issue object, got an array/) { JSON.decode("[]", Issue) }
    assert_error(Wirebind::DecodeError, /expected an array \(of .*Issue object items\), got an object/) { JSON.decode("{}", [Issue]) }
  end

  def test_an_empty_model_and_a_subclass
    assert_equal Empty.new, JSON.decode('{"a": 1, "b": [1, {"c": null}]}', Empty)
    special = JSON.decode('{"id": "1", "codename": "Fox", "sequence": 3}', SpecialVersion)
    assert_equal SpecialVersion.new(id: "1", codename: "Fox", sequence: 3), special
    assert_equal Version.new(id: "1", sequence: 3), JSON.decode(JSON.encode(special), Version)
  end

  # ---- keys ---------------------------------------------------------------------

  def test_unknown_keys_of_every_shape_are_skipped
    json = '{"x": {"deep": [1, {"y": [true, null, "s\\"", -1.5e3]}, []]}, "id": "1", "z": [], "w": "\\ud83d\\ude00",' \
           ' "v": null, "u": 12345678901234567890123, "key": "K"}'
    assert_equal Issue.new(id: "1", key: "K"), decode_everywhere(json, Issue)
  end

  def test_strict_makes_unknown_keys_errors
    assert_equal Issue.new(id: "1"), JSON.decode('{"id": "1"}', Issue, strict: true)
    error = assert_error(Wirebind::DecodeError, /unknown key/) { JSON.decode(%([{"id": "1"},\n {"id": "2", "extra": {"a": 1}}]), [Issue], strict: true) }
    assert_equal ["[1].extra", 2, 23], [error.path, error.line, error.column]
    error = assert_error(Wirebind::DecodeError, /unknown key/) { JSON.decode('{"affects_versions": [{"nope": "x"}]}', Issue, strict: true) }
    assert_equal ["affects_versions[0].nope", 1, 32], [error.path, error.line, error.column]
  end

  def test_duplicate_keys_the_last_wins
    issue = decode_everywhere('{"key": "a", "labels": ["x"], "affects_versions": [{"id": "1"}], "key": "b", ' \
                              '"labels": ["y", "z"], "affects_versions": [], "votes": 1, "votes": null}', Issue)
    assert_equal Issue.new(key: "b", labels: %w[y z], affects_versions: [], votes: nil), issue
    assert_equal({ "a" => 2 }, JSON.decode('{"a": 1, "a": 2}', :any))
  end

  def test_camel_keys_and_explicit_keys
    camel = decode_everywhere('{"releaseDate": "2014-01-02", "fixVersions": [{"release_date": "2014-01-01T00:00:00Z"}], ' \
                              '"timeSpentHours": 1.25, "id": "c", "release_date": "ignored"}', Camel)
    assert_equal Camel.new(release_date: Date.new(2014, 1, 2), fix_versions: [Version.new(release_date: Time.utc(2014))],
                           time_spent: BigDecimal("1.25"), id: "c"), camel
  end

  def test_keys_are_matched_after_unescaping
    assert_equal Issue.new(id: "1", key: "k"), JSON.decode('{"\\u0069d": "1", "k\\u0065y": "k"}', Issue)
    odd = decode_everywhere('{"a.b": 1, "with space": "s", "clé": 2, "q\\"k": 3}', OddKeys)
    assert_equal OddKeys.new(dotted: 1, spaced: "s", unicode: 2, quoted: 3), odd
  end

  # ---- untyped ------------------------------------------------------------------

  def test_any_gives_plain_values
    value = decode_everywhere('{"a": [1, 2.5, -0.0, 1e2, null, true, false, "s", {}, []], "b": {"c": {"d": [[]]}}, ' \
                              '"big": 123456789012345678901234567890, "": "empty key"}', :any)
    assert_equal({ "a" => [1, 2.5, -0.0, 100.0, nil, true, false, "s", {}, []], "b" => { "c" => { "d" => [[]] } },
                   "big" => 123_456_789_012_345_678_901_234_567_890, "" => "empty key" }, value)
    assert_instance_of Float, value["a"][3]
    assert_equal %w[a b big] + [""], value.keys
  end

  def test_scalars_and_any_at_the_top
    assert_equal "x", decode_everywhere('  "x"  ', :string)
    assert_equal 12, decode_everywhere("12", :integer)
    assert_equal 12, decode_everywhere(" 12\n", :any)
    assert_equal(-1.5, decode_everywhere("-1.5", :float))
    assert_nil decode_everywhere("null", :integer)
    assert_nil decode_everywhere("null", Issue)
    assert_equal [], decode_everywhere("null", [Issue])
    assert_equal [1, "a", nil], decode_everywhere('[1, "a", null]', [:any])
    assert_equal [[1], { "a" => 2 }], decode_everywhere('[[1], {"a": 2}]', [:any])
    # Every token cut by every read.
    [Issue, [Issue], :integer, :any, [:string]].each do |type|
      assert_nil_or_empty JSON.decode(TrickleIO.new(" null ", max: 1), type)
      assert_equal 0, JSON.each(TrickleIO.new("null", max: 1), type) { nil }
    end
    assert_equal [Issue.new(id: "1", votes: 2, labels: ["a"])],
                 JSON.decode(TrickleIO.new('[{"id":"1","votes":2,"labels":["a"],"x":[true,null]}]', max: 1), [Issue])
  end

  def assert_nil_or_empty(value)
    assert value.nil? || value == [], "expected nil or [], got #{value.inspect}"
  end

  def test_whitespace_anywhere_between_tokens
    json = " \t\r\n{ \n\"id\" \t:\r\n\"1\" ,\n \"labels\" : [ \"a\" , \"b\" ] , \"affects_versions\" : [ { } , null ] , " \
           "\"votes\" : 1 \n} \n\t"
    assert_equal Issue.new(id: "1", labels: %w[a b], affects_versions: [Version.new, nil], votes: 1), decode_everywhere(json, Issue)
  end

  # ---- input forms --------------------------------------------------------------

  def test_frozen_binary_and_other_encodings
    assert_equal "é", JSON.decode('"é"'.b.freeze, :string)
    frozen = '{"key": "k"}'
    assert_equal "k", JSON.decode(frozen, Issue).key
    assert_equal ["é"], JSON.decode('["é"]'.encode(Encoding::UTF_16LE), [:string])
    assert_equal ["é"], JSON.decode('["é"]'.encode(Encoding::ISO_8859_1), [:string])
    binary = '["é"]'.b
    JSON.decode(binary, [:string])
    assert_equal Encoding::BINARY, binary.encoding, "the caller's String is left as it was"
  end

  def test_a_utf8_byte_order_mark_is_skipped
    assert_equal({ "a" => 1 }, decode_everywhere("\uFEFF{\"a\": 1}", :any))
    assert_equal [1], JSON.decode("\xEF\xBB\xBF[1]".b, [:integer])
  end

  def test_each_of_the_sixty_four_kib_chunks_of_an_io_is_read_once
    big = "[#{Array.new(30_000) { |i| %({"id":"#{i}","labels":["l#{i}"]}) }.join(',')}]"
    reads = []
    io = StringIO.new(big)
    io.define_singleton_method(:readpartial) do |size, *rest|
      reads << size
      super(size, *rest)
    end
    assert_equal 30_000, JSON.decode(io, [Issue]).size
    assert(reads.all?(65_536))
    assert_operator reads.size, :<=, (big.bytesize / 65_536) + 2
  end
end

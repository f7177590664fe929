# frozen_string_literal: true

require_relative "json_test_support"
require "json" # the standard library, for the to_json interplay

# Encoding: the exact text written for each type, escaping, nil and lists,
# IO output, errors with paths, and living beside the json library.
class JSONEncodeTest < Minitest::Test
  include JSONTestHelpers
  include JSONTestModels

  def test_writes_every_member_in_declaration_order
    issue = Issue.new(id: "1", key: "K", votes: 3, watched: true, updated: Time.new(2014, 3, 1, 10, 0, Rational(1, 2), "+05:30"),
                      affects_versions: [Version.new(id: "v", sequence: 2)], labels: %w[a b])
    assert_equal '{"id":"1","key":"K","votes":3,"watched":true,"updated":"2014-03-01T10:00:00.5+05:30",' \
                 '"affects_versions":[{"id":"v","name":null,"release_date":null,"sequence":2}],"labels":["a","b"]}',
                 JSON.encode(issue)
  end

  def test_nil_is_null_and_a_nil_list_is_empty
    assert_equal '{"id":null,"key":null,"votes":null,"watched":null,"updated":null,"affects_versions":[],"labels":[]}',
                 JSON.encode(Issue.new)
    issue = Issue.new
    issue.labels = nil
    assert_equal '"labels":[]}', JSON.encode(issue)[-12..]
    assert_equal '{"s":["a",null]', JSON.encode(AllLists.new(s: ["a", nil]))[0, 15]
    assert_equal "{}", JSON.encode(Empty.new)
  end

  def test_string_escaping
    value = "q\" b\\ / \b\f\n\r\t \u0000\u0001\u001F \u007F é 🚀 \u2028\u2029"
    json = JSON.encode(AllTypes.new(s: value))
    assert_includes json, '"q\\" b\\\\ / \\b\\f\\n\\r\\t \\u0000\\u0001\\u001f ' + "\u007F" + ' é 🚀 \\u2028\\u2029"'
    assert_equal value, JSON.decode(json, AllTypes).s
    assert_equal value, ::JSON.parse(json)["s"]
    assert_equal Encoding::UTF_8, json.encoding
    assert json.valid_encoding?
  end

  def test_strings_in_other_encodings_and_symbols
    assert_equal '["é","é","abc","sym"]', JSON.encode(["é".encode(Encoding::ISO_8859_1), "é".b.force_encoding(Encoding::BINARY), "abc".b, :sym])
    assert JSON.encode(AllTypes.new(s: :sym)).start_with?('{"s":"sym",')
  end

  def test_invalid_utf8_is_an_encode_error
    error = assert_error(Wirebind::EncodeError, /invalid UTF-8/, /base64/) { JSON.encode(AllTypes.new(s: "a\xFFb")) }
    assert_equal "s", error.path
    assert_error(Wirebind::EncodeError, /invalid UTF-8/) { JSON.encode(["\xC3".b]) }
    assert_error(Wirebind::EncodeError, /cannot be converted to UTF-8/) { JSON.encode(["\x81".dup.force_encoding(Encoding::Shift_JIS)]) }
  end

  def test_numbers
    assert JSON.encode(AllTypes.new(i: -12, f: 1.5, d: BigDecimal("12.50"), b: false)).start_with?('{"s":null,"i":-12,"f":1.5,"d":12.5,"b":false,')
    assert_equal "[#{2**70}]", JSON.encode([2**70])
    floats = [0.1, -0.0, 1e20, 1e-5, 5e-324, Float::MAX, 123_456_789.123, 1.0 / 3]
    json = JSON.encode(floats)
    assert_equal "[0.1,-0.0,1.0e+20,1.0e-05,5.0e-324,1.7976931348623157e+308,123456789.123,0.3333333333333333]", json
    assert_equal floats, JSON.decode(json, [:float])
    assert_equal floats, ::JSON.parse(json)
    assert_equal '"f":3.0', JSON.encode(AllTypes.new(f: 3))[/"f":[^,]*/]
  end

  # What JSON.encode writes, JSON.decode reads: a number longer than the
  # decoders' max_number_length is refused when written, not when read back.
  def test_numbers_longer_than_max_number_length_are_encode_errors
    limit = JSON::DEFAULT_LIMITS[:max_number_length]
    longest = (10**(limit - 1)) + 1
    [longest, -(10**(limit - 2)), BigDecimal("1.#{'1' * (limit - 2)}")].each do |number|
      unless number.is_a?(BigDecimal)
        assert_equal(number, JSON.decode(JSON.encode([number]), :any).first.then do |n|
          number.is_a?(BigDecimal) ? BigDecimal(n.to_s) : n
        end)
      end
      assert_equal([number], JSON.decode(JSON.encode(AllTypes.new(d: number)), AllTypes).then { |r| [r.d] })
    end
    too_long = 10**limit
    message = /\Aa number of #{limit + 1} characters is longer than max_number_length \(#{limit}\): JSON.decode would refuse it/
    assert_equal "i", assert_error(Wirebind::EncodeError, message) { JSON.encode(AllTypes.new(i: too_long)) }.path
    assert_equal "d", assert_error(Wirebind::EncodeError, message) { JSON.encode(AllTypes.new(d: too_long)) }.path
    assert_equal "[1]", assert_error(Wirebind::EncodeError, message) { JSON.encode([1, too_long]) }.path
    assert_equal "a", assert_error(Wirebind::EncodeError, message) { JSON.encode({ a: too_long }) }.path
    assert_error(Wirebind::EncodeError, /number of #{limit + 1} characters/) { JSON.encode(AllTypes.new(d: BigDecimal("1.#{'1' * (limit - 1)}"))) }
    # A long exponent form is short text: it reads back.
    assert_equal BigDecimal(too_long), JSON.decode(JSON.encode(AllTypes.new(d: BigDecimal(too_long))), AllTypes).d
  end

  # The same rule as XML: a binary-tagged String holding valid UTF-8 is
  # written as text; anything else is refused (binary data belongs in :base64).
  def test_binary_strings_holding_utf8_are_text
    assert_equal '{"s":"café",', JSON.encode(AllTypes.new(s: "café".b))[/\A[^,]*,/]
    assert_error(Wirebind::EncodeError, /invalid UTF-8 in "caf\\xE9" \(binary data belongs in a :base64 attribute\)/) { JSON.encode(AllTypes.new(s: "caf\xE9".b)) }
  end

  def test_nan_and_infinity_are_encode_errors
    [Float::NAN, Float::INFINITY, -Float::INFINITY].each do |value|
      error = assert_error(Wirebind::EncodeError, /NaN or Infinity/) { JSON.encode(AllTypes.new(f: value)) }
      assert_equal "f", error.path
      assert_error(Wirebind::EncodeError) { JSON.encode([value]) }
    end
    assert_error(Wirebind::EncodeError, /decimal/) { JSON.encode(AllTypes.new(d: BigDecimal("NaN"))) }
  end

  def test_decimals_are_written_exactly
    values = [BigDecimal("0.1"), BigDecimal("-12.50"), BigDecimal("1e400"), BigDecimal("1e-400"), BigDecimal("123456789012345678901234567890.5"), 7,
              Rational(1, 8)]
    json = JSON.encode(AllLists.new(d: values))
    assert_includes json, '"d":[0.1,-12.5,0.1e401,0.1e-399,123456789012345678901234567890.5,7,0.125]'
    assert_equal values.map { |v| BigDecimal(v, 40) }, JSON.decode(json, AllLists).d
    assert_error(Wirebind::EncodeError, /no finite decimal form/) { JSON.encode(AllTypes.new(d: Rational(1, 3))) }
    assert_error(Wirebind::EncodeError, /BigDecimal/) { JSON.encode(AllTypes.new(d: 0.1)) }
  end

  def test_times_dates_and_base64_are_strings
    json = JSON.encode(AllTypes.new(t: Time.utc(2014, 1, 2, 3, 4, 5), dt: Date.new(2014, 1, 2), bin: "\x00\xFF".b))
    assert_includes json, '"t":"2014-01-02T03:04:05Z","dt":"2014-01-02","bin":"AP8="'
    assert_includes JSON.encode(AllTypes.new(t: Time.at(0, 123_456_789, :nsec, in: "-03:30"))), '"1969-12-31T20:30:00.123456789-03:30"'
  end

  def test_values_of_the_wrong_class_are_encode_errors_with_paths
    { AllTypes.new(s: 1) => [/expected a String, got Integer 1/, "s"],
      AllTypes.new(i: "1") => [/expected an Integer, got String "1"/, "i"],
      AllTypes.new(b: "true") => [/expected true or false/, "b"],
      AllTypes.new(t: Date.today) => [/expected a Time/, "t"],
      AllTypes.new(dt: Time.now) => [/expected a Date/, "dt"],
      AllTypes.new(bin: 5) => [/expected a String/, "bin"],
      Issue.new(labels: "a") => [/expected an Array, got String "a"/, "labels"],
      Issue.new(labels: ["a", 2]) => [/expected a String, got Integer 2/, "labels[1]"],
      Issue.new(affects_versions: [Version.new, Issue.new]) => [/expected a .*Version object, got .*Issue/, "affects_versions[1]"],
      Holder.new(others: [Version.new(sequence: "x")]) => [/expected an Integer/, "others[0].sequence"],
      Holder.new(types: AllTypes.new(f: Float::NAN)) => [/NaN/, "types.f"] }.each do |record, (pattern, path)|
      error = assert_error(Wirebind::EncodeError, pattern) { JSON.encode(record) }
      assert_equal path, error.path
      assert error.message.end_with?("(at #{path})"), error.message
    end
    error = assert_error(Wirebind::EncodeError) { JSON.encode([Issue.new, Issue.new(votes: 1.5)]) }
    assert_equal "[1].votes", error.path
  end

  def test_subclass_records_write_their_own_members
    holder = Holder.new(main: SpecialVersion.new(id: "1", codename: "Fox"))
    assert_includes JSON.encode(holder), '"main":{"id":"1","name":null,"release_date":null,"sequence":null,"codename":"Fox"}'
  end

  def test_camel_and_odd_keys_are_written_as_declared
    assert_equal '{"releaseDate":null,"fixVersions":[],"timeSpentHours":null,"id":"c"}', JSON.encode(Camel.new(id: "c"))
    json = JSON.encode(OddKeys.new(dotted: 1, quoted: 2))
    assert_equal '{"a.b":1,"with space":null,"clé":null,"q\\"k":2}', json
    assert_equal OddKeys.new(dotted: 1, quoted: 2), JSON.decode(json, OddKeys)
  end

  def test_plain_values
    value = { "a" => [1, 2.5, nil, true, false, "s"], b: { "c" => BigDecimal("0.1") }, "t" => Time.utc(2014), "d" => Date.new(2014, 1, 2),
              "issue" => Issue.new(id: "1") }
    json = JSON.encode(value)
    assert json.start_with?('{"a":[1,2.5,null,true,false,"s"],"b":{"c":0.1},"t":"2014-01-01T00:00:00Z","d":"2014-01-02","issue":{"id":"1",'), json
    assert_equal "null", JSON.encode(nil)
    assert_equal '"x"', JSON.encode("x")
    assert_equal "[]", JSON.encode([])
    error = assert_error(Wirebind::EncodeError, /cannot write Object/) { JSON.encode({ "a" => [{ "b" => Object.new }] }) }
    assert_equal "a[0].b", error.path
    assert_error(Wirebind::EncodeError, /key must be a String or Symbol/) { JSON.encode({ 1 => 2 }) }
    assert_error(Wirebind::EncodeError, /DateTime/) { JSON.encode([DateTime.now]) }
  end

  def test_any_round_trips
    json = '{"a":[1,2.5,null,true,false,"s\\n"],"b":{"c":{}},"":[[]]}'
    assert_equal json, JSON.encode(JSON.decode(json, :any))
  end

  def test_cycles_hit_max_depth_not_the_stack
    node = Node.new(name: "loop")
    node.parent_ref = node
    assert_error(Wirebind::EncodeError, /max_depth \(1024\).*cycle/) { JSON.encode(node) }
    list = []
    list << list
    assert_error(Wirebind::EncodeError, /max_depth \(10\)/) { JSON.encode(list, max_depth: 10) }
    assert_equal "[[[]]]", JSON.encode([[[]]], max_depth: 3)
    assert_error(Wirebind::EncodeError, /max_depth \(2\)/) { JSON.encode([[[]]], max_depth: 2) }
  end

  def test_io_output_in_pieces
    list = Array.new(3000) { |i| Issue.new(id: i.to_s, key: "KEY-#{i}", labels: ["x" * 20]) }
    writes = []
    io = Object.new
    io.define_singleton_method(:write) do |chunk|
      writes << chunk.dup
      chunk.bytesize
    end
    written = JSON.encode(list, io: io)
    text = writes.join
    assert_equal JSON.encode(list), text
    assert_equal text.bytesize, written
    assert_operator writes.size, :>, 2
    assert(writes[0..-2].all? { |w| w.bytesize >= 64 * 1024 && w.bytesize < 70 * 1024 })
    sio = StringIO.new
    assert_equal 5, JSON.encode([1, 2], io: sio)
    assert_equal "[1,2]", sio.string
  end

  def test_to_json_and_the_json_library
    issue = Issue.new(id: "1", labels: ["a"])
    assert_equal JSON.encode(issue), issue.to_json
    assert_equal JSON.encode(issue), issue.to_json(::JSON::State.new)
    assert_equal "{\"x\":[#{issue.to_json}]}", ::JSON.generate({ "x" => [issue] })
    pretty = ::JSON.pretty_generate({ "x" => issue })
    assert_equal issue, Issue.from_json(::JSON.parse(pretty)["x"].then { |h| ::JSON.generate(h) })
    sio = StringIO.new
    issue.to_json(io: sio)
    assert_equal issue.to_json, sio.string
  end

  def test_encoders_follow_schema_changes
    klass = Class.new do
      include Wirebind::Model
      attribute :a, :integer
    end
    assert_equal '{"a":1}', JSON.encode(klass.new(a: 1))
    klass.attribute :b, :string
    assert_equal '{"a":1,"b":"x"}', JSON.encode(klass.new(a: 1, b: "x"))
    klass.json_keys :camel
    klass.attribute :long_name, :boolean
    assert_equal '{"a":1,"b":null,"longName":true}', JSON.encode(klass.new(a: 1, long_name: true))
    assert_equal klass.new(a: 1, long_name: true), JSON.decode('{"a":1,"longName":true}', klass)
  end

  def test_a_key_shared_by_two_attributes_is_a_schema_error
    klass = Class.new do
      include Wirebind::Model
      attribute :a, :integer
      attribute :b, :integer, json: "a"
    end
    assert_error(Wirebind::SchemaError, /attributes :a and :b both have the JSON key "a"/) { JSON.encode(klass.new) }
    assert_error(Wirebind::SchemaError, /both have the JSON key/) { JSON.decode("{}", klass) }
  end

  # A model's values are its instance variables (what decoding sets), on both
  # backends: readers overridden in a subclass or on one record change nothing
  # written, at the top, nested and in lists.
  def test_a_models_values_are_its_instance_variables
    overriding = Class.new(Version) do
      def name = "from the reader"
      def id = "reader-id"
    end
    version = overriding.new(id: "v", name: "from the ivar", sequence: 1)
    version.define_singleton_method(:sequence) { 99 }
    issue = Issue.new(key: "K", affects_versions: [version], labels: %w[a])
    issue.define_singleton_method(:key) { "reader-key" }
    issue.define_singleton_method(:labels) { %w[reader] }

    plain = Version.new(id: "v", name: "from the ivar", sequence: 1)
    assert_equal JSON.encode(plain), JSON.encode(version)
    assert_equal JSON.encode(Issue.new(key: "K", affects_versions: [plain], labels: %w[a])), JSON.encode(issue)
    assert_equal JSON.encode([plain]), JSON.encode([version])
    refute_match(/reader/, JSON.encode(issue))
  end
end

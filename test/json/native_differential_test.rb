# frozen_string_literal: true

require_relative "json_test_support"
require_relative "../support/backend_differential"
require_relative "../../bench/generator"

# The native JSON backend against the reference: every document here is
# decoded by both backends, from a String and from IOs that trickle it out a
# few bytes at a time, and they must agree on the value (classes, time offsets
# and string encodings included), or on the error (class, message, line,
# column, offset, and for a DecodeError its path). Documents are generated
# (seeded: see random_seed), taken from the benchmark's generator and
# JSONTestSuite, and broken on purpose in every way a random edit can break
# them. Encoding must give the same bytes, or the same EncodeError.
class JSONNativeDifferentialTest < Minitest::Test
  include JSONTestHelpers
  include Wirebind::BackendDifferential

  # A schema that touches every path of the decoder: every scalar type alone
  # and in lists, records and lists of records, recursion, keys that need
  # escaping or quoting in paths.
  class Part
    include Wirebind::Model
    attribute :code, :string
    attribute :qty, :integer
    attribute :price, :decimal
  end

  class Thing
    include Wirebind::Model
    attribute :name, :string
    attribute :count, :integer
    attribute :ratio, :float
    attribute :price, :decimal
    attribute :ok, :boolean
    attribute :at, :time
    attribute :day, :date
    attribute :blob, :base64
    attribute :tags, [:string]
    attribute :nums, [:integer]
    attribute :ratios, [:float]
    attribute :prices, [:decimal]
    attribute :flags, [:boolean]
    attribute :times, [:time]
    attribute :days, [:date]
    attribute :blobs, [:base64]
    attribute :part, Part
    attribute :parts, [Part]
    attribute :children, [Thing]
    attribute :odd, :string, json: "a.b"
    attribute :uni, :integer, json: "clé"
  end

  VALUES = {
    string: ['""', '"plain"', '"tab\\there"', '"naïve café"', '"日本語"', '"emoji 🚀"', '"\\ud83d\\ude80"', '"q\\"uote\\\\"',
             '"\\u00e9\\u0000\\/"', '"line\\nbreak"', "1", "true", "[]", "{}"],
    integer: ["0", "42", "-7", "-0", "12345678901234567890123", "-999999999999999999", "1.5", "1e2", '"12"', "true", "1E400"],
    float: ["1.5", "-2E10", "0.1", "-0", "-0.0", "1e-400", "1e400", "-1e400", "3.141592653589793238462643383279",
            "2.2250738585072011e-308", "1.7976931348623157e308", "1.7976931348623159e308", "4.9e-324", "123456789012345678",
            "9007199254740993", "0.30000000000000004", "5e-324", '"1.5"', "[1]"],
    decimal: ["12.50", "-0.5", "3", "1e5", "1.5E-3", "123456789012345678901234567890.123456789", "0.1e400", "1e-99999",
              "0e-99999", "1e999999999999", '"1"'],
    boolean: %w[true false 0 "true" null], # rubocop:disable Lint/PercentStringArray -- JSON texts: the quotes are the data
    time: ['"2014-06-11T08:19:21+01:00"', '"2010-02-05T08:39:42.212099Z"', '"2014-06-11T08:19:21"', '"2000-02-29T24:00:00Z"',
           '"2014-06-11T08:19:21.1234567891Z"', '"-0044-03-15T12:00:00Z"', '"12345-01-01T00:00:00Z"', '" 2014-06-11T08:19:21Z"',
           '"2001-02-29T10:00:00Z"', '"2014-06-11 08:19:21"', '"2014-06-11T08:19:21+14:01"', '""', "12", '"1969-12-31T23:59:59.999999999-14:00"'],
    date: ['"2011-09-17"', '"1582-10-10"', '"-0001-12-31"', '"2011-09-17Z"', '"2011-09-17+05:00"', '" 2011-09-17"', '"2011-02-30"',
           '"2011-9-17"', '"2011-09-17+15:00"'],
    base64: ['"QUJD"', '"QUI="', '"QQ=="', '""', '"+/+/"', '"Q U J D"', '"QUJD\\n"', '"QR=="', '"QUJ"', '"!!!!"', '"QQ==QQ=="', "1"]
  }.freeze

  def setup
    require_native_backend
  end

  # Under WIREBIND_BACKEND=native the whole JSON suite runs on the C codecs:
  # the default backend is Native, and its calls reach C.
  def test_the_native_backend_is_the_default_and_runs_in_c
    assert_equal :native, Wirebind.backend # the default of every front door
    %i[decode_source encode_value compile_plan].each do |name|
      assert_nil Wirebind::JSON::Native.method(name).source_location, "Native.#{name} is defined in C"
    end
    calls = Thread.current[:wirebind_native_calls] = []
    Wirebind::JSON::Native.singleton_class.prepend(NativeSpy)
    JSON.decode('{"name": "x"}', Thing)
    JSON.encode(Thing.new(name: "x"))
    JSON.each("[1]", :integer) { nil }
    assert_equal %i[decode_source encode_value decode_source], calls
  ensure
    Thread.current[:wirebind_native_calls] = nil
  end

  # C's entry point takes its settings as one frozen Struct that C defines, and
  # refuses anything else (a Hash, an unfrozen config) with a TypeError.
  def test_decode_source_takes_one_frozen_config
    assert_equal %i[code type list slot strict max_depth max_token_size max_number_length],
                 Wirebind::JSON::Native::DecodeConfig.members
    config = Wirebind::JSON::Native.decode_config(Thing, false, false, max_depth: 8, max_token_size: 1024, max_number_length: 64)
    assert_predicate config, :frozen?
    assert Ractor.shareable?(config) if defined?(Ractor)
    assert_equal Thing.new(name: "x"), Wirebind::JSON::Native.decode_source(Wirebind::JSON::Source.new('{"name": "x"}'), config, nil)
    [config.dup, config.to_h.freeze].each do |wrong|
      error = assert_raises(TypeError) { Wirebind::JSON::Native.decode_source(Wirebind::JSON::Source.new("{}"), wrong, nil) }
      assert_match(/expected a frozen Wirebind::JSON::Native::DecodeConfig/, error.message)
    end
  end

  # Counts calls into C while a test asks it to (prepended for good; plain
  # methods, not closures, so that other Ractors may still call through it).
  module NativeSpy
    def decode_source(*args)
      Thread.current[:wirebind_native_calls]&.push(:decode_source)
      super
    end

    def encode_value(*args)
      Thread.current[:wirebind_native_calls]&.push(:encode_value)
      super
    end
  end

  # ---- what both backends did (test/support/backend_differential.rb) -------------------------

  # Every document is also read trickled (seed 1), unless a test says otherwise.
  def agree_decode(json, type, label, seeds: [1], **options)
    agree_on_decode(JSON, json, type, label, seeds: seeds, **options)
  end

  def agree_each(json, type, label, seeds: [1], **options)
    agree_on_each(JSON, json, type, label, seeds: seeds, **options)
  end

  def agree_encode(value, label, **options)
    agree(value, label) { |input, backend| JSON.encode(input, backend: backend, **options) }
    io = { pure: StringIO.new, native: StringIO.new }
    written = io.to_h { |backend, out| [backend, outcome(backend, value) { |input, b| JSON.encode(input, io: out, backend: b, **options) }] }
    assert_equal written[:pure], written[:native], "#{label}: writing to an IO"
    assert_equal io[:pure].string, io[:native].string, "#{label}: the bytes written to an IO" if written[:pure].first == :ok
  end

  # ---- random documents ---------------------------------------------------------------

  # Writes JSON text by hand, so that it can hold what no encoder writes:
  # whitespace anywhere, escapes, unknown members, wrong types, duplicates.
  class Writer
    def initialize(random)
      @r = random
    end

    def pick(list) = list[@r.rand(list.size)]
    def chance(p) = @r.rand < p
    def ws = pick(["", "", "", " ", "\n  ", "\t", "\r\n"])

    def key(name)
      return name.to_s.inspect if !chance(0.1) || name.to_s.empty?

      # The same key, spelled with an escape.
      %("\\u#{format('%04x', name.to_s[0].ord)}#{name.to_s[1..]}")
    end

    def scalar(type)
      pick(VALUES.fetch(type).first(VALUES.fetch(type).size - (chance(0.05) ? 0 : 2)))
    end

    def list(type)
      return "null" if chance(0.05)

      "[#{ws}#{Array.new(@r.rand(4)) { chance(0.05) ? 'null' : scalar(type) }.join("#{ws},#{ws}")}#{ws}]"
    end

    def any(depth)
      case depth > 3 ? @r.rand(6) : @r.rand(9)
      when 0 then pick(VALUES[:string])
      when 1 then pick(%w[0 -1 1.5 1e3 -0.0 123456789012345678901234 1E-2 1e400])
      when 2 then pick(%w[true false null])
      when 3, 4, 5 then pick(VALUES[:time])
      when 6 then "[#{Array.new(@r.rand(4)) { any(depth + 1) }.join(",#{ws}")}]"
      else "{#{Array.new(@r.rand(4)) { |i| "#{key("k#{i}")}:#{ws}#{any(depth + 1)}" }.join(",#{ws}")}}"
      end
    end

    def part
      return "null" if chance(0.05)

      members = []
      members << %("code":#{ws}#{scalar(:string)}) if chance(0.8)
      members << %("qty":#{ws}#{scalar(:integer)}) if chance(0.6)
      members << %("price":#{ws}#{scalar(:decimal)}) if chance(0.5)
      members << %("junk":#{ws}#{any(2)}) if chance(0.1)
      "{#{ws}#{members.shuffle(random: @r).join("#{ws},#{ws}")}#{ws}}"
    end

    def thing(depth)
      members = []
      %i[string integer float decimal boolean time date base64].zip(%w[name count ratio price ok at day blob]).each do |type, name|
        members << "#{key(name)}#{ws}:#{ws}#{scalar(type)}" if chance(0.6)
      end
      %i[string integer float decimal boolean time date base64].zip(%w[tags nums ratios prices flags times days blobs]).each do |type, name|
        members << "#{key(name)}:#{ws}#{list(type)}" if chance(0.25)
      end
      members << %("part":#{part}) if chance(0.3)
      members << %("parts":[#{Array.new(@r.rand(3)) { part }.join(",#{ws}")}]) if chance(0.3)
      members << %("children":[#{Array.new(@r.rand(3)) { thing(depth + 1) }.join(',')}]) if depth < 3 && chance(0.3)
      members << %("a.b":#{scalar(:string)}) if chance(0.1)
      members << %("clé":#{scalar(:integer)}) if chance(0.1)
      members << %("unknown#{@r.rand(3)}":#{ws}#{any(0)}) if chance(0.2)
      members << %("name":"again") if chance(0.05)
      "{#{ws}#{members.shuffle(random: @r).join("#{ws},#{ws}")}#{ws}}"
    end

    def document(count)
      "#{ws}[#{Array.new(count) { thing(0) }.join(",#{ws}")}]#{ws}"
    end
  end

  # Edits that break a document in the ways input breaks.
  def mutate(json, random)
    bytes = json.b
    n = bytes.bytesize
    return json if n.zero?

    at = random.rand(n)
    case random.rand(10)
    when 0 then bytes.byteslice(0, at)
    when 1 then bytes.byteslice(0, at) + bytes.byteslice(at + 1 + random.rand(3), n).to_s
    when 2, 3
      piece = ["{", "}", "[", "]", ",", ":", '"', "\\", "\\u", "\\ud800", "\\udc00", "0", "-", ".", "e", "+", "t", "n", "nul",
               "\x00", "\x1F", "\xFF", "\xC3", "é", " ", "\n", "1e999", "tru", "/", "'", "\u2028"].sample(random: random)
      bytes.dup.insert(at, piece.b)
    when 4
      b = random.rand(n)
      s = bytes.dup
      s.setbyte(at, bytes.getbyte(b))
      s.setbyte(b, bytes.getbyte(at))
      s
    when 5 then bytes.sub(/"count":\s*[^,}\]]*/n, %("count":"many"))
    when 6 then bytes.sub(/"at":\s*"[^"]*"/n, %("at":"2014-02-30T00:00:00Z"))
    when 7 then bytes.sub(/\{/n, '{"unknown":')
    when 8 then bytes.byteslice(0, at) + bytes.byteslice(at, n).sub(/[\]}]/n, "")
    else bytes.dup.insert(at, "\xEF\xBB\xBF".b)
    end.force_encoding(Encoding::UTF_8)
  end

  # ---- decoding -----------------------------------------------------------------------------

  def test_generated_documents_decode_alike
    random = Random.new(random_seed)
    writer = Writer.new(random)
    150.times do |i|
      json = writer.document(random.rand(0..3))
      agree_decode(json, [Thing], "generated ##{i}")
      agree_decode(json, [Thing], "generated ##{i} strict", strict: true) if i % 3 == 0
      agree_decode(json, :any, "generated ##{i} (:any)") if i.even?
      agree_each(json, Thing, "generated ##{i} (each)") if i % 4 == 0
      agree_decode(json.sub(/\A\s*\[/, "").sub(/,?\s*\]\s*\z/, "").then { |t| t.empty? ? "{}" : t }, Thing, "generated ##{i} (one)") if i % 5 == 0
    end
  end

  def test_broken_documents_fail_alike
    random = Random.new(random_seed)
    writer = Writer.new(random)
    800.times do |i|
      json = mutate(writer.document(random.rand(1..2)), random)
      agree_decode(json, [Thing], "mutation ##{i}", seeds: [i])
      agree_decode(json, :any, "mutation ##{i} (:any)") if i % 3 == 0
      agree_decode(json, [Thing], "mutation ##{i} strict", strict: true) if i % 7 == 0
    end
  end

  # JSON unions: one_or_many, string_as and lenient_numbers, in every shape
  # they take, and broken.
  class UnionLink
    include Wirebind::Model
    attribute :href, :string
    attribute :n, :integer
  end

  class Unions
    include Wirebind::Model
    attribute :one, [UnionLink], one_or_many: true
    attribute :link, UnionLink, string_as: :href
    attribute :links, [UnionLink], string_as: :href, one_or_many: true
    attribute :tags, [:string], one_or_many: true
    attribute :amount, :decimal, lenient_numbers: true
    attribute :rate, :float, lenient_numbers: true
    attribute :count, :integer, lenient_numbers: true
    attribute :counts, [:integer], lenient_numbers: true, one_or_many: true
    attribute :nested, [Unions], one_or_many: true
  end

  UNION_VALUES = {
    "one" => ['{"href":"/a"}', '[{"href":"/a"},{"n":"1"}]', '"/a"', "[]", "null", "1", '{"href":1}', '[{"n":2},"x"]'],
    "link" => ['"/a"', '"/\u00e9"', '{"href":"/b","n":1}', "null", "1", "[]", '{"href":null}'],
    "links" => ['"/a"', '["/a",{"href":"/b"},null]', '{"href":"/c"}', "true", '["/a",1]', '"\ud800"'],
    "tags" => ['"x"', '["x","y"]', '"a\tb"', "1", "{}"],
    "amount" => ['"-58.17"', "-58.17", '"1e5"', '"12 "', '"x"', '""', '"1e999999"', '"0.1e400"', "true", '"\u0031"'],
    "rate" => ['"1.5"', "2", '"1e400"', '"-0"', '"abc"', "[]"],
    "count" => ['"12"', "12", '"1.5"', '"-"', '"12345678901234567890123"', "false"],
    "counts" => ['"1"', '[1,"2"]', '["x"]', "3", '{"a":1}'],
    "nested" => ['{"count":"3"}', '[{"link":"/a"},{"one":{"href":"/b"}}]', '{"one":1}', '"/x"']
  }.freeze

  def test_union_documents_decode_and_fail_alike
    random = Random.new(random_seed)
    300.times do |i|
      members = UNION_VALUES.keys.select { random.rand < 0.5 }.map { |key| %("#{key}":#{UNION_VALUES[key].sample(random: random)}) }
      json = "{#{members.join(random.rand < 0.3 ? ' , ' : ',')}}"
      json = mutate(json, random) if i.odd?
      agree_decode(json, Unions, "union document ##{i}", seeds: [i])
    end
  end

  def test_random_untyped_values_decode_alike
    random = Random.new(random_seed)
    writer = Writer.new(random)
    200.times do |i|
      json = writer.any(0)
      agree_decode(json, :any, "any ##{i}")
      agree_decode("[#{json}, #{json}]", [:any], "[any] ##{i}")
      agree_decode(mutate(json, random), :any, "broken any ##{i}")
    end
  end

  def test_every_scalar_converts_alike
    VALUES.each do |type, texts|
      texts.each do |text|
        agree_decode("[#{text}, #{text}]", [type], "[#{type}] #{text}")
        agree_decode(text, type, "#{type} #{text}")
        agree_decode(%({"v": #{text}}), Class.new { include Wirebind::Model; attribute :v, type }, "member #{type} #{text}")
      end
    end
  end

  # The native scanner skips plain string bytes 16 (SSE2), then 64 (AVX2, where
  # the CPU has it), 32, 16 and 8 at a time: a byte that ends the run, or a
  # non-ASCII one, at every position of those steps and their tails (strings
  # of 1 to 161 bytes) must read as the byte-at-a-time reference reads it.
  def test_a_string_reads_alike_whatever_the_position_of_its_special_bytes
    specials = ["\"", "\\n", "\\u00e9", "\\\"", "\u0001", "\u001F", "\u007F", "é", "\xFF".b, "€"]
    specials.each do |special|
      (0..160).each do |at|
        json = [%(["), "a" * at, special, "b" * (161 - at), %(", "), "c" * at, special, %("])].map(&:b).join.force_encoding(Encoding::UTF_8)
        agree_decode(json, [:string], "#{special.inspect} at #{at}", seeds: [])
        # the native strings carry a coderange: "ASCII only" must be true of them
        flags = %i[pure native].map do |backend|
          JSON.decode(json, [:string], backend: backend).map(&:ascii_only?)
        rescue Wirebind::Error
          :refused # agree_decode checked both refuse it alike
        end
        assert_equal flags.first, flags.last, "ascii_only? of #{special.inspect} at #{at}"
      end
    end
  end

  def test_random_numbers_convert_alike
    random = Random.new(random_seed)
    texts = Array.new(600) do
      digits = Array.new(random.rand(1..30)) { random.rand(10) }.join.sub(/\A0+(?=\d)/, "")
      point = random.rand(1..digits.size)
      mantissa = random.rand(3).zero? ? digits : "#{digits[0, point]}.#{digits[point..]}".sub(/\.\z/, ".0")
      exponent = random.rand(2).zero? ? "" : "e#{['-', '+', ''].sample(random: random)}#{random.rand(330)}"
      "#{random.rand(2).zero? ? '-' : ''}#{mantissa}#{exponent}"
    end
    texts += Array.new(200) { [random.rand * 10**random.rand(-320..308)].pack("D").unpack1("D").to_s.sub(/e\+/, "e") }
    %i[float decimal integer any].each do |type|
      texts.each_slice(50) { |slice| agree_decode("[#{slice.join(',')}]", [type], "random numbers as #{type}") }
    end
  end

  # The native float reader takes numbers of up to 19 characters without strtod
  # when the digits and the power of ten are exact doubles (Clinger's fast
  # path): every value must be Ruby's Float(text), the correctly rounded one,
  # at the edges of that path (2^53, 10^22, 19 digits, halfway cases, zeros,
  # subnormals) and on random draws; one document, so the count stays cheap.
  def test_floats_read_as_float_reads_them
    random = Random.new(random_seed)
    edges = %w[0 -0 0.0 -0.0 0e5 -0e-5 0.000 1 -1 0.1 0.2 0.3 1e22 1e23 -1e22 1e-22 1e-23 123456789e-22
               9007199254740992 9007199254740993 9007199254740994 9007199254740995 -9007199254740993
               900719925474099.3 9007199254740993e-5 9007199254740993e5 9007199254740991e22 9007199254740992e-22
               9999999999999999999 1000000000000000000 999999999999999999.9 0.9999999999999999999 1.8446744073709552e19
               2.2250738585072011e-308 2.2250738585072014e-308 4.9e-324 5e-324 1.7976931348623157e308 1e308
               0.30000000000000004 2.5e-1 47.1234567 8.0000001 123.456e7 1E5 1e+5 1e-5 7.2057594037927933e16]
    random_texts = Array.new(3000) do
      digits = Array.new(random.rand(1..19)) { random.rand(10) }.join.sub(/\A0+(?=\d)/, "")
      point = random.rand(0..digits.size)
      mantissa = point.zero? ? digits : "#{digits[0, point]}.#{digits[point..]}".sub(/\.\z/, ".0")
      exponent = random.rand(3).zero? ? "e#{['-', '+', ''].sample(random: random)}#{random.rand(40)}" : ""
      "#{random.rand(2).zero? ? '-' : ''}#{mantissa}#{exponent}"
    end
    texts = edges + edges.map { |text| text.start_with?("-") ? text : "-#{text}" } + random_texts
    decoded = JSON.decode("[#{texts.join(',')}]", [:float], backend: :native)
    texts.zip(decoded).each do |text, value|
      expected = Float(text)
      assert_equal [expected].pack("G"), [value].pack("G"), "#{text}: #{value} (Float() gives #{expected})"
    end
    # the scanner's one-pass number reader declines these to the general path, which words the error
    %w[01 -01 1. .5 1.e5 1e 1e+ -- 1-2 1+2 2.5.1 1eE5 -0.e1 1E+-5 00 -].each do |bad|
      agree_decode("[#{bad}]", [:float], "bad number #{bad}")
      agree_decode("[1,#{bad}", [:float], "bad number #{bad} at the end")
    end
  end

  def test_benchmark_documents_decode_alike
    [1, 3, 20].each do |count|
      json = JSON.encode(Bench::Generator.expected(count, seed: count), backend: :pure)
      agree_decode(json, [Bench::Issue], "bench #{count}", seeds: [1, 2])
      agree_each(json, Bench::Issue, "bench #{count} (each)")
      agree_decode(json, :any, "bench #{count} (:any)")
    end
  end

  def test_broken_benchmark_documents_fail_alike
    random = Random.new(random_seed)
    json = JSON.encode(Bench::Generator.expected(2, seed: random.rand(1000)), backend: :pure)
    400.times do |i|
      agree_decode(mutate(json, random), [Bench::Issue], "bench mutation ##{i}", seeds: [i])
    end
  end

  # The scanner reads a compact key of up to 15 plain bytes with its ':' in one
  # 16-byte step: keys of every length around that step, compact or spaced,
  # escaped or not, trickled and under max_token_size, read as the reference reads them.
  def test_keys_around_the_one_step_read_alike
    model = Class.new do
      include Wirebind::Model
      attribute :v, :any, json: "kkkkkkkkkkkkkk"
    end
    (0..20).each do |length|
      ["k" * length, "k" * [length - 1, 0].max + "\\u006b", "é" * (length / 2)].uniq.each do |key|
        [%({"#{key}":1,"#{key}":[2]}), %({"#{key}" :1}), %({"#{key}": 1}), %({"#{key}":"x"}), %({"#{key}":)].each do |json|
          agree_decode(json, model, "key #{key.inspect} in #{json}", seeds: [1, 3])
          agree_decode(json, :any, "key #{key.inspect} in #{json} (:any)", seeds: [])
          agree_decode(json, model, "key #{key.inspect} under max_token_size", seeds: [], max_token_size: length + 1)
        end
      end
      # a byte that ends the key's run without ending the key, before a ':'
      ["\\", "\u0001"].each { |bad| agree_decode(%({"#{'k' * length}#{bad}:1,"x":2}), model, "#{bad.inspect} after #{length} bytes", seeds: []) }
    end
  end

  # A member's key is compared with the model's in at most two overlapping
  # loads per side (without a hash first where members come in declaration
  # order): keys of every length up to 20 bytes that differ from a model's key
  # in one byte (first, last, or any between) are not that key, on both
  # backends alike.
  def test_keys_that_differ_in_one_byte_read_alike
    keys = (1..20).map { |length| (0...length).map { |i| (97 + (i % 26)).chr }.join }
    model = Class.new do
      include Wirebind::Model
      keys.each_with_index { |key, i| attribute :"k#{i}", :integer, json: key }
    end
    keys.each_with_index do |key, index|
      key.size.times do |at|
        near = key.dup
        near.setbyte(at, near.getbyte(at) ^ 0x20)
        json = "{#{keys.each_with_index.map { |k, i| %("#{i == index ? near : k}":#{i}) }.join(',')}}"
        agree_decode(json, model, "key #{near.inspect} (near #{key.inspect})", seeds: [])
        record = JSON.decode(json, model)
        assert_nil record.public_send(:"k#{index}"), "#{near.inspect} read as #{key.inspect}"
        assert_equal index + 1, record.public_send(:"k#{index + 1}") if index + 1 < keys.size
      end
    end
  end

  # A list's items are gathered on the decoder's values stack and made one
  # Array when the list ends: lists of every length across the stack's growth
  # (64, 128 values), of scalars and of records, inside a record's values and
  # around nested ones, and a bad item at the end (its index in the path).
  def test_lists_of_every_length_across_the_values_stack_read_alike
    [0, 1, 3, 4, 63, 64, 65, 130].each do |length|
      nums = (1..length).to_a
      parts = nums.map { |i| %({"code":"p#{i}","qty":#{i}}) }
      agree_decode(%({"name":"x","nums":#{nums},"parts":[#{parts.join(',')}],"count":#{length}}), Thing, "#{length} items", seeds: [1])
      agree_decode(%({"children":[{"parts":[#{parts.join(',')}],"nums":#{nums}},{"tags":["a"]}],"nums":#{nums}}), Thing,
                   "#{length} items in nested records", seeds: [])
      agree_decode(%([#{parts.join(',')}]), [Part], "a root list of #{length} records", seeds: [])
      agree_decode(%({"nums":[#{(nums + ['"x"']).join(',')}]}), Thing, "a bad scalar after #{length} items", seeds: [])
      agree_decode(%({"parts":[#{(parts + ['1']).join(',')}]}), Thing, "a bad record after #{length} items", seeds: [])
      assert_equal nums, JSON.decode(%({"nums":#{nums}}), Thing).nums
    end
  end

  def test_limits_fail_alike
    json = JSON.encode(Bench::Generator.expected(2, seed: 3), backend: :pure)
    (1..6).each do |depth|
      agree_decode(json, [Bench::Issue], "max_depth #{depth}", max_depth: depth)
      agree_decode(json, :any, "max_depth #{depth} (:any)", max_depth: depth)
    end
    [3, 6, 10, 20, 40, 100, 400].each do |size|
      agree_decode(json, [Bench::Issue], "max_size #{size}", seeds: [size], max_size: size)
      agree_decode(json, :any, "max_size #{size} (:any)", max_size: size)
      agree_decode('["ab\\ncdef", "\\u00e9\\u00e9", 123456, 1.5e10]', :any, "max_size #{size} (escapes)", max_size: size)
    end
    [1, 2, 5, 39, 40].each do |length|
      agree_decode("[1, -12, 123456, 1.5e10, 12345678901234567890, 0.5]", :any, "max_number_length #{length}", max_number_length: length)
      agree_decode("[1, -12, 123456, 1.5e10]", [:float], "max_number_length #{length} (floats)", max_number_length: length)
    end
  end

  def test_inputs_of_every_kind_decode_alike
    json = '{"name": "café", "tags": ["a"]}'
    ["\xEF\xBB\xBF#{json}".b, json.encode("UTF-16LE"), json.encode("ISO-8859-1"), json.b, "#{json}\xFF".b, "\xFE\xFF\x00[".b,
     "", "   ", "\xEF\xBB\xBF".b, "[\"a\xC3\"]".b, "[\"\xE2\x82\"]".b].each do |input|
      # A String in another encoding is transcoded; an IO's bytes are read as
      # UTF-8: the forms may differ here, the backends may not.
      agree(input, "input #{input.inspect}") { |i, backend| JSON.decode(i, Thing, backend: backend) }
      agree(-> { TrickleIO.new(input, seed: 2) }, "input #{input.inspect} (trickled)") { |io, backend| JSON.decode(io, :any, backend: backend) }
      agree(-> { ReadOnlyIO.new(input, seed: 3) }, "input #{input.inspect} (read)") { |io, backend| JSON.decode(io, :any, backend: backend) }
    end
  end

  def test_json_test_suite_decodes_alike
    dir = shared_path("conformance", "JSONTestSuite", "test_parsing")

    Dir.glob(File.join(dir, "*.json")).sort.each do |path|
      bytes = File.binread(path)
      agree_decode(bytes, :any, File.basename(path), seeds: [1, 2])
    end
  end

  # ---- encoding -----------------------------------------------------------------------------

  def test_benchmark_records_encode_alike
    [1, 20].each do |count|
      issues = Bench::Generator.expected(count, seed: count)
      agree_encode(issues, "bench #{count}")
      agree_encode(issues.first, "bench #{count} (one)")
      agree_encode({ "issues" => issues, total: count }, "bench #{count} (in a Hash)")
    end
  end

  # Values of every class, right and wrong, in every place: plain, in a
  # record's slot of each type, in lists; and nesting near max_depth.
  # The native writer skips plain bytes 16 (SSE2), then 8 at a time: a byte
  # that needs an escape or a look (E2, the lead of U+2028/U+2029 and of "€"),
  # at every position of those steps and their tails, is written as pure writes it.
  def test_a_string_encodes_alike_whatever_the_position_of_its_special_bytes
    ["\"", "\\", "\n", "\u0001", "\u001F", "\u007F", "é", "\u2028", "\u2029", "€", "\u2027"].each do |special|
      (0..40).each do |at|
        value = ["a" * at + special + "b" * (40 - at), special * 3, "c" * at + special]
        agree_encode(value, "#{special.inspect} at #{at}")
      end
    end
  end

  def test_values_of_every_kind_encode_alike
    cycle = []
    cycle << cycle
    strings = ["", "plain", "q\"b\\s/", "ctl \u0000\u0001\u001f\b\f\n\r\t", "js \u2028\u2029 ok", "\u00e9\u65e5 🚀", :sym, :"é",
               "ascii".encode("US-ASCII"), "caf\xE9".dup.force_encoding("ISO-8859-1"), "bin\xFF".b, "ok bin".b, "bad \xC3".dup.force_encoding("UTF-8"),
               "x" * 70_000, "\u00e9" * 40_000]
    numbers = [0, -1, 2**64, -(2**70), 1.5, -0.0, 1e20, 1.0e-5, 123_456_789.123, Float::NAN, Float::INFINITY, -Float::INFINITY,
               BigDecimal("12.50"), BigDecimal("-0.001"), BigDecimal("1e200"), BigDecimal("1e-200"), BigDecimal("NaN"), BigDecimal("Infinity"),
               Rational(1, 8), Rational(1, 3), 2**1100]
    others = [nil, true, false, Time.utc(2014, 6, 11, 8, 19, 21), Time.at(1.5, in: "+05:30"), Time.at(0, in: 3601), Time.at(Rational(1, 3)),
              Date.new(2011, 9, 17), Date.new(1500), DateTime.new(2011), Object.new, 1..2, Class, [1, [2, [3]]], { "a" => { b: [nil] } },
              { 1 => 2 }, { nil => 1 }, cycle, Thing.new(name: "n"), Part.new(qty: "x"), JSONTestModels::Empty.new]
    (strings + numbers + others).each_with_index do |value, i|
      agree_encode(value, "plain ##{i} #{value.class}")
      agree_encode([1, { "k" => [value] }], "nested ##{i} #{value.class}")
      %i[name count ratio price ok at day blob part].each do |attribute|
        agree_encode(Thing.new(attribute => value), "Thing##{attribute} = ##{i} #{value.class}")
      end
      %i[tags nums ratios prices flags times days blobs parts].each do |attribute|
        agree_encode(Thing.new(attribute => [value, nil]), "Thing##{attribute} = [##{i} #{value.class}]")
      end
    end
    agree_encode(Thing.new(tags: "x"), "a list that is not an Array")
    agree_encode(Thing.new(part: Thing.new), "a record of the wrong class")
    deep = Thing.new(name: "leaf")
    12.times { |i| deep = Thing.new(name: "n#{i}", children: [deep], part: i.even? ? Part.new : nil) }
    plain = "leaf"
    12.times { |i| plain = i.even? ? [plain] : { "k#{i}" => plain } }
    (1..30).each do |depth|
      agree_encode(deep, "records, max_depth #{depth}", max_depth: depth)
      agree_encode([deep], "a list of records, max_depth #{depth}", max_depth: depth)
      agree_encode(plain, "plain values, max_depth #{depth}", max_depth: depth)
    end
  end

  def test_decoded_documents_encode_alike
    random = Random.new(random_seed)
    writer = Writer.new(random)
    100.times do |i|
      json = writer.document(random.rand(0..3))
      begin
        things = JSON.decode(json, [Thing], backend: :pure)
      rescue Wirebind::Error
        next
      end
      agree_encode(things, "decoded ##{i}")
      # (a decimal may be beyond a Float's range: then there is no :any value)
      any = JSON.decode(json, :any, backend: :pure) rescue :none # rubocop:disable Style/RescueModifier
      agree_encode(any, "decoded ##{i} (:any)") unless any == :none
    end
  end
end

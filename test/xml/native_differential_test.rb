# frozen_string_literal: true

require "test_helper"
require_relative "xml_test_support"
require_relative "../support/backend_differential"
require_relative "../../bench/generator"
require_relative "../conformance/xmlconf_runner"

# The native decoder against the reference: every document here is decoded by
# both backends, which must agree on the result, or on the error (class, line,
# column, and for a DecodeError its path; messages too). Documents are generated
# (seeded: see random_seed), taken from the benchmark's generator, and broken on
# purpose in every way a random edit can break them.
class NativeDifferentialTest < Minitest::Test
  include XMLTestHelpers
  include Wirebind::BackendDifferential

  # A schema that touches every feature of the decoder: attributes (plain and
  # namespaced), the element's text, every scalar type, lists with and without
  # wrappers, nested wrappers, "*", namespaced alternatives, and recursion.
  class Amount
    include Wirebind::Model
    xml_root "amount"
    attribute :currency, :string, xml: "@currency"
    attribute :value, :decimal, xml: "."
  end

  # Text, for when the element's own text is the value: the contract's Note
  # (test/support/models.rb), named here for Thing and Holder.
  Note = Wirebind::TestModels::Note

  class Thing
    include Wirebind::Model
    xml_root "thing"
    attribute :id, :integer, xml: "@id"
    attribute :lang, :string, xml: "@lang"
    attribute :code, :string, xml: "@{urn:a}code"
    attribute :name, :string
    attribute :count, :integer
    attribute :ratio, :float
    attribute :price, :decimal
    attribute :ok, :boolean
    attribute :at, :time
    attribute :day, :date
    attribute :blob, :base64
    attribute :tags, [:string], xml: "tag"
    attribute :nums, [:integer], xml: "nums/n"
    attribute :author, :string, xml: "meta/info/author"
    attribute :when, :date, xml: "meta/info/when"
    attribute :amount, Amount
    attribute :amounts, [Amount], xml: "amounts/amount"
    attribute :children, [Thing], xml: "child"
    attribute :extras, [:string], xml: "extras/*"
    attribute :a_qn, :string, xml: "{urn:a}qn"
    attribute :b_qn, :string, xml: "{urn:b}qn"
    attribute :any_qn, :string, xml: "qn"
    # Issue 13: attributes by path, "{}" (no namespace), default_offset:, several classes.
    attribute :zip, :integer, xml: "meta/@zip"
    attribute :plain, :string, xml: "{}plain"
    attribute :local_at, :time, xml: "lat", default_offset: "+05:30"
    attribute :mixed, [Amount, Note], xml: "mix/*"
  end

  class Holder
    include Wirebind::Model
    attribute :notes, [Note], xml: "note"
    attribute :rest, [:string], xml: "*"
  end

  # Texts each type reads, and texts it refuses (or reads only after Ruby's slow path).
  VALID = {
    string: ["", "plain", "a &amp; b", "x &lt; y", "tab\there", "naïve café", "日本語", "emoji 🚀", "  padded  ", "<![CDATA[raw <b>]]>",
             "&#x30C9;&#12354;", "a]b", "line\nbreak", "&quot;q&quot;&apos;", "a &#13; b"],
    integer: ["0", "42", "-7", "+13", "007", " 12 ", "12345678901234567890123", "-99999999999999999999", "", " "],
    float: ["1.5", "-2E10", "INF", "-INF", "+INF", "NaN", "1.", ".5", "1e-400", "1e400", "0.1", "-0", "3.141592653589793238462643383279",
            "2.2250738585072011e-308", "1.7976931348623157e308", "1.7976931348623159e308", " 2.5 ", "4.9e-324"],
    decimal: ["12.50", "-0.5", "3", "12.", ".25", "+1.0", " 7.25 ", "-.5", "123456789012345678901234567890.123456789"],
    boolean: %w[true false 1 0] + [" true ", ""],
    time: ["2014-06-11T08:19:21+01:00", "2010-02-05T08:39:42.212099Z", "2013-04-01T03:59:11.939+09:00", "2011-11-11T13:14:53.526-05:00",
           "2014-06-11T08:19:21", "2000-02-29T24:00:00Z", "2014-06-11T08:19:21.1234567891Z", "-0044-03-15T12:00:00Z",
           "12345-01-01T00:00:00Z", "2014-06-11T08:19:21-00:00", "1582-10-10T00:00:00+05:30", "0000-01-01T00:00:00Z",
           " 2014-06-11T08:19:21Z ", "2014-06-11T08:19:21+00:00", "1969-12-31T23:59:59.999999999-14:00"],
    date: ["2011-09-17", "1582-10-10", "1000-01-01", "-0001-12-31", "2011-09-17Z", "2011-09-17+05:00", " 2011-09-17 ", "2000-02-29"],
    base64: ["QUJD", "QUI=", "QQ==", "Q U J D", "QUJD\nRUZH", "QUJDRA==", "", "+/+/"]
  }.freeze
  INVALID = {
    string: [],
    integer: ["many", "1.5", "1_000", "٣", "0x10", "+"],
    float: ["1e", "abc", "0x10", "1,5", "inf", "--1"],
    decimal: ["1e5", "abc", "1.2.3", "."],
    boolean: %w[yes TRUE t],
    time: ["2001-02-29T10:00:00Z", "2014-13-01T00:00:00Z", "2014-06-11T08:19:21+14:01", "2014-06-11 08:19:21", "-0000-01-01T00:00:00Z",
           "2014-06-11T08:60:00Z", "2014-06-11T24:00:01Z", "02014-06-11T08:19:21Z"],
    date: ["2011-02-30", "2011-9-17", "10000-01-01x", "2011-09-17+15:00", "2011-13-01"],
    base64: ["QR==", "QUJ", "!!!!", "QQ==QQ==", "Q===", "QUJD="]
  }.freeze
  VALUES = VALID.to_h { |type, texts| [type, texts + INVALID.fetch(type)] }.freeze

  def setup
    require_native_backend
  end

  # ---- random documents ---------------------------------------------------------------

  class Writer
    PREFIXES = %w[a b p ns0].freeze

    def initialize(random)
      @r = random
    end

    def pick(list) = list[@r.rand(list.size)]
    def chance(p) = @r.rand < p

    def blank
      pick(["", "", " ", "\n  ", "\t", "\n"])
    end

    def junk
      case @r.rand(8)
      when 0 then "<!-- note #{@r.rand(100)} -->"
      when 1 then "<?pi some data?>"
      when 2 then "<unknown x=\"1\"><deep>#{pick(%w[a b])}</deep></unknown>"
      when 3 then "<z:other xmlns:z=\"urn:z\">t</z:other>"
      else ""
      end
    end

    def value(type)
      invalid = INVALID.fetch(type)
      chance(0.03) && !invalid.empty? ? pick(invalid) : pick(VALID.fetch(type))
    end

    def leaf(name, text, attrs = "")
      return "<#{name}#{attrs}/>" if text.empty? && chance(0.5)

      "<#{name}#{attrs}>#{text}</#{name}>"
    end

    def nil_attr
      chance(0.1) ? " xsi:nil=\"#{pick(%w[true 1 false])}\"" : ""
    end

    def thing(depth)
      attrs = +""
      attrs << " id=\"#{value(:integer).gsub('"', '')}\"" if chance(0.7)
      attrs << " lang=\"#{pick(%w[en de ja])}\"" if chance(0.3)
      attrs << " a:code=\"#{pick(%w[X Y &amp;])}\"" if chance(0.3)
      attrs << " xml:lang=\"fr\"" if chance(0.1)
      attrs << nil_attr
      body = +""
      fields = []
      fields << leaf("name", value(:string)) if chance(0.8)
      fields << leaf("count", value(:integer), nil_attr) if chance(0.6)
      fields << leaf("ratio", value(:float)) if chance(0.4)
      fields << leaf("price", value(:decimal)) if chance(0.4)
      fields << leaf("ok", value(:boolean)) if chance(0.4)
      fields << leaf("at", value(:time)) if chance(0.5)
      fields << leaf("day", value(:date)) if chance(0.3)
      fields << leaf("blob", value(:base64)) if chance(0.2)
      @r.rand(3).times { fields << leaf("tag", value(:string)) }
      fields << "<nums>#{Array.new(@r.rand(3)) { leaf('n', value(:integer)) }.join(blank)}</nums>" if chance(0.3)
      fields << "<meta#{" zip=\"#{value(:integer)}\"" if chance(0.5)}><info><author>#{value(:string)}</author><when>#{value(:date)}</when></info></meta>" if chance(0.3)
      fields << "<meta zip=\"#{value(:integer)}\"/>" if chance(0.1)
      fields << leaf(pick(%w[plain a:plain]), value(:string)) if chance(0.2)
      fields << leaf("lat", value(:time)) if chance(0.3)
      if chance(0.2)
        fields << "<mix>#{Array.new(@r.rand(4)) do
          pick(["<amount currency=\"EUR\">#{value(:decimal)}</amount>", "<note lang=\"en\">#{value(:string)}</note>", '<other/>'])
        end.join}</mix>"
      end
      fields << "<amount currency=\"EUR\">#{value(:decimal)}</amount>" if chance(0.3)
      if chance(0.2)
        fields << "<amounts>#{Array.new(@r.rand(3)) do
          "<amount currency=\"#{pick(%w[USD JPY])}\"#{nil_attr}>#{value(:decimal)}</amount>"
        end.join}</amounts>"
      end
      fields << "<extras>#{Array.new(@r.rand(3)) { |i| leaf("e#{i}", value(:string)) }.join}</extras>" if chance(0.3)
      fields << "<a:qn>#{value(:string)}</a:qn>" if chance(0.2)
      fields << "<b:qn>#{value(:string)}</b:qn>" if chance(0.2)
      fields << "<qn>#{value(:string)}</qn>" if chance(0.2)
      fields << "<name>mixed <!-- c --> text &amp; more<![CDATA[ cdata ]]></name>" if chance(0.1)
      fields << "<count>4<b>2</b></count>" if chance(0.05)
      if depth < 3
        @r.rand(2).times do
          fields << thing(depth + 1).sub("<thing", "<child").sub(%r{</thing>\z}, "</child>").sub(%r{<child([^>]*)/>\z}, '<child\1/>')
        end
      end
      fields << junk if chance(0.3)
      fields.shuffle(random: @r).each { |f| body << blank << f }
      body << blank
      "<thing#{attrs}>#{body}</thing>"
    end

    def document(count)
      items = Array.new(count) { thing(0) }
      decl = chance(0.3) ? "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" : ""
      pre = chance(0.2) ? "<!-- head -->\n" : ""
      root_attrs = ' xmlns:a="urn:a" xmlns:b="urn:b" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"'
      "#{decl}#{pre}<list#{root_attrs}>#{items.map { |i| "#{blank}#{i}" }.join}#{blank}</list>#{chance(0.2) ? "\n<!-- tail -->" : ''}\n"
    end
  end

  # Edits that break a document in the ways input breaks.
  def mutate(xml, random)
    bytes = xml.b
    n = bytes.bytesize
    return xml if n.zero?

    at = random.rand(n)
    case random.rand(12)
    when 0 then bytes.byteslice(0, at)
    when 1 then bytes.byteslice(0, at) + bytes.byteslice(at + 1 + random.rand(3), n).to_s
    when 2 then bytes.dup.insert(at,
                                 ["<", ">", "&", "]]>", "\"", "'", "/", "=", ":", "<!--", "-->", "?>", "&#0;", "&bogus;", "\x00", "\xFF", "é", " ", "\n", "<a>",
                                  "</a>"].sample(random: random).b)
    when 3
      b = random.rand(n)
      s = bytes.dup
      s.setbyte(at, bytes.getbyte(b))
      s.setbyte(b, bytes.getbyte(at))
      s
    when 4 then bytes.sub(/ id="/n, ' id="1" id="')
    when 5 then bytes.sub("<name>".b, "<zz:name>".b)
    when 6 then bytes.sub(/<count>[^<]*</n, "<count>many<")
    when 7 then bytes.sub(/<at>[^<]*</n, "<at>2014-02-30T00:00:00Z<")
    when 8 then bytes.sub(/<thing/n, "<thing xmlns:a=\"\"")
    when 9 then bytes.sub(%r{</thing>}n, "</thingx>")
    when 10 then bytes.dup.insert(at, "<!DOCTYPE x>")
    else bytes.sub(/ lang="/n, ' xml:lang="x" lang="1" a:lang="')
    end.force_encoding(Encoding::UTF_8)
  end

  # ---- the tests -------------------------------------------------------------------------

  def test_generated_documents_decode_alike
    random = Random.new(random_seed)
    writer = Writer.new(random)
    120.times do |i|
      xml = writer.document(random.rand(0..4))
      agree_on_decode(XML, xml, [Thing], "generated ##{i}", at: "list/thing")
      agree_on_decode(XML, xml, Thing, "generated ##{i} (first)", at: "list/thing")
      agree_on_decode(XML, xml, [Thing], "generated ##{i} strict", at: "list/thing", strict: true) if i % 3 == 0
      agree_on_each(XML, xml, Thing, "generated ##{i} (each, *)", at: "*/*") if i % 4 == 0
      agree_on_decode(XML, xml, [:string], "generated ##{i} (strings)", at: "list/thing/name") if i % 5 == 0
      agree_on_decode(XML, xml, [Thing], "generated ##{i} (missing)", at: "list/things/thing", missing: :raise) if i % 5 == 1
      agree_on_decode(XML, xml, Thing, "generated ##{i} (offset)", at: "list/thing", default_offset: "-03:00") if i % 5 == 2
      agree_on_decode(XML, xml, [:integer], "generated ##{i} (integers)", at: "list/*/count") if i % 5 == 1
    end
  end

  def test_broken_documents_fail_alike
    random = Random.new(random_seed)
    writer = Writer.new(random)
    600.times do |i|
      xml = mutate(writer.document(random.rand(1..2)), random)
      agree_on_decode(XML, xml, [Thing], "mutation ##{i}", at: "list/thing")
      agree(xml, "mutation ##{i} (check)") { |input, backend| XML.check(input, backend: backend) } if i % 4 == 0
    end
  end

  def test_scalar_values_convert_alike
    VALUES.each do |type, texts|
      texts.each do |text|
        xml = "<r><v>#{text}</v><v> #{text}</v><w>#{text}<!-- split --></w></r>"
        agree_on_decode(XML, xml, [type], "#{type} #{text.inspect}", at: "r/*")
        agree_on_decode(XML, "<r v=\"#{text.gsub(/[<"]/, '')}\"/>", Class.new { include Wirebind::Model; attribute :v, type, xml: "@v" },
                        "#{type} attribute #{text.inspect}")
      end
    end
  end

  def test_random_floats_convert_alike
    random = Random.new(random_seed)
    texts = Array.new(400) do
      digits = Array.new(random.rand(1..30)) { random.rand(10) }.join
      point = random.rand(digits.size + 1)
      mantissa = random.rand(3).zero? ? digits : "#{digits[0, point]}.#{digits[point..]}"
      exponent = random.rand(2).zero? ? "" : "e#{%w[- +].sample(random: random)}#{random.rand(330)}"
      "#{%w[- +].sample(random: random)}#{mantissa}#{exponent}"
    end
    texts += Array.new(100) { [random.rand * 10**random.rand(-320..308)].pack("D").unpack1("D").to_s }
    xml = "<r>#{texts.map { |t| "<v>#{t}</v>" }.join}</r>"
    agree_on_decode(XML, xml, [:float], "random floats", at: "r/v")
  end

  # The native float reader takes texts of up to 19 characters without strtod
  # when the digits and the power of ten are exact doubles (Clinger's fast
  # path): each value must be Ruby's Float(text), the correctly rounded one, in
  # xs:double's forms too ("+1", "5.", ".5"), at the path's edges and on random draws.
  def test_floats_read_as_float_reads_them
    random = Random.new(random_seed)
    edges = %w[0 -0 +0 0.0 -0.0 .0 0. 5. .5 +.5 -5. 1e22 1e23 1e-22 1e-23 9007199254740992 9007199254740993
               9007199254740993e-5 9007199254740993e5 9007199254740992e-22 9999999999999999999 0.9999999999999999999
               0.1 0.3 47.1234567 +8.0000001 123.456E7 1E+5 1e-5 4.9e-324 1.7976931348623157e308 2.2250738585072014e-308]
    random_texts = Array.new(2000) do
      digits = Array.new(random.rand(1..18)) { random.rand(10) }.join
      point = random.rand(digits.size + 1)
      mantissa = random.rand(3).zero? ? digits : "#{digits[0, point]}.#{digits[point..]}"
      exponent = random.rand(3).zero? ? "e#{['-', '+', ''].sample(random: random)}#{random.rand(40)}" : ""
      "#{['-', '+', ''].sample(random: random)}#{mantissa}#{exponent}"
    end
    texts = edges + edges.map { |text| "-#{text.delete_prefix('+').delete_prefix('-')}" } + random_texts
    model = Class.new do
      include Wirebind::Model
      attribute :v, :float, xml: "@v"
    end
    xml = "<r>#{texts.map { |text| %(<p v="#{text}"/>) }.join}</r>"
    decoded = XML.decode(xml, [model], at: "r/p", backend: :native)
    texts.zip(decoded).each do |text, record|
      expected = Float(text.sub(/\.(?![0-9])/, ".0").sub(/\A([+-]?)\./, '\10.'))
      assert_equal [expected].pack("G"), [record.v].pack("G"), "#{text}: #{record.v} (Float() gives #{expected})"
    end
  end

  # Attribute repeats are found among a tag's qualified names, and again by
  # namespace and local name only when one is prefixed: a repeat at every
  # position, among 2 to 13 attributes (below and past the hash set's
  # threshold), prefixed or not, fails alike.
  def test_repeated_attributes_fail_alike
    (2..13).each do |count|
      (0...count).each do |at|
        names = Array.new(count) { |i| "a#{i}" }
        plain = names.dup.tap { |list| list[at] = list[(at + 1) % count] }
        prefixed = names.map { |name| "p:#{name}" }.tap { |list| list[at] = "q:#{names[(at + 1) % count]}" }
        ["<r #{plain.map { |name| %(#{name}="1") }.join(' ')}/>",
         "<r xmlns:p='urn:p' xmlns:q='urn:p' #{prefixed.map { |name| %(#{name}="1") }.join(' ')}/>",
         "<r xmlns:p='urn:p' xmlns:q='urn:q' #{prefixed.map { |name| %(#{name}="1") }.join(' ')}/>"].each do |xml|
          result = agree(xml, "#{count} attributes, repeat at #{at}") { |input, backend| XML.check(input, backend: backend) }
          assert_equal xml.include?("urn:q") ? :ok : :error, result[0], "#{xml}: #{result.inspect}"
        end
      end
    end
  end

  def test_benchmark_documents_decode_alike
    [1, 3, 20].each do |count|
      xml = Bench::Generator.issues_xml(count, seed: count)
      agree_on_decode(XML, xml, [Bench::Issue], "bench #{count}", at: Bench::ISSUES_PATH)
      agree_on_each(XML, xml, Bench::Issue, "bench #{count} (each)", at: Bench::STREAM_PATH)
      agree_on_decode(XML, xml, Bench::Issue, "bench #{count} (first)", at: Bench::STREAM_PATH)
    end
  end

  def test_broken_benchmark_documents_fail_alike
    random = Random.new(random_seed)
    xml = Bench::Generator.issues_xml(2, seed: random.rand(1000))
    400.times do |i|
      broken = mutate(xml, random)
      agree_on_decode(XML, broken, [Bench::Issue], "bench mutation ##{i}", at: Bench::ISSUES_PATH)
    end
  end

  def test_trickled_input_decodes_alike
    random = Random.new(random_seed)
    writer = Writer.new(random)
    xml = Bench::Generator.issues_xml(3, seed: 7)
    5.times do |i|
      agree(-> { TrickleIO.new(xml, seed: i) }, "trickled bench ##{i}") do |input, backend|
        XML.decode(input, [Bench::Issue], at: Bench::ISSUES_PATH, backend: backend)
      end
    end
    40.times do |i|
      doc = writer.document(2)
      doc = mutate(doc, random) if i.odd?
      agree(-> { TrickleIO.new(doc, seed: i) }, "trickled ##{i}") do |input, backend|
        XML.decode(input, [Thing], at: "list/thing", backend: backend)
      end
    end
  end

  # Issue 13 (items 8, 9): :xml and :any content is built by XML::Capture from
  # events both decoders send it, :qname resolves through each tokenizer's
  # bindings; random content (prefixes declared inside and outside, rebound,
  # default namespaces set and reset, attributes, text, comments, CDATA) must
  # decode, encode and fail alike.
  class Open
    include Wirebind::Model
    xml_root "open"
    attribute :raw, :xml
    attribute :raws, [:xml], xml: "raws/raw"
    attribute :data, :any
    attribute :datas, [:any], xml: "datas/data"
    attribute :code, :qname
    attribute :codes, [:qname], xml: "codes/code"
  end

  class OpenWriter
    PREFIXES = %w[a b c].freeze
    URIS = %w[urn:1 urn:2 urn:3].freeze

    def initialize(random)
      @r = random
    end

    def pick(list) = list[@r.rand(list.size)]

    def declarations
      made = Array.new(@r.rand(3)) do
        prefix = pick(PREFIXES + [""])
        next %( xmlns="") if prefix.empty? && @r.rand < 0.3

        prefix.empty? ? %( xmlns="#{pick(URIS)}") : %( xmlns:#{prefix}="#{pick(URIS)}")
      end
      made.uniq { |d| d[/xmlns(:\w+)?/] }.join
    end

    def name
      @r.rand < 0.5 ? "#{pick(PREFIXES)}:#{pick(%w[x y z])}" : pick(%w[x y z])
    end

    def attributes
      Array.new(@r.rand(3)) { |i| @r.rand < 0.3 ? %( #{pick(PREFIXES)}:at#{i}="v#{i} &amp; &#9;") : %( at#{i}="#{pick(['1', 'a b', '&lt;', 'a:T', 'c:U', 'd:V'])}") }.join
    end

    def text
      pick(["", "t", " ", "a &amp; b", "<![CDATA[<c>]]>", "<!-- c -->", "\n  ", "&#x30C9;"])
    end

    # Content: elements nested up to +depth+, with text between.
    def content(depth)
      out = +""
      open = []
      @r.rand(6).times do
        out << text
        if open.size < depth && @r.rand < 0.5
          tag = name
          out << "<#{tag}#{declarations}#{attributes}>"
          open << tag
        elsif !open.empty? && @r.rand < 0.5
          out << "</#{open.pop}>"
        else
          out << "<#{name}#{declarations}#{attributes}/>"
        end
      end
      out << text << open.reverse.map { |tag| "</#{tag}>" }.join
    end

    def qname
      pick(["a:Q", "b:R", "S", " c:T ", "d:U", "a:b:c", "", "xml:lang"])
    end

    def document
      code = "<code#{declarations}>#{qname}</code>"
      codes = Array.new(@r.rand(3)) { "<code#{declarations}>#{qname}</code>" }.join
      raws = Array.new(@r.rand(3)) { "<raw#{declarations}>#{content(3)}</raw>" }.join
      datas = Array.new(@r.rand(3)) { "<data#{declarations}#{attributes}>#{content(3)}</data>" }.join
      %(<open xmlns:a="urn:1" xmlns:b="urn:2"#{declarations}><raw#{declarations}>#{content(4)}</raw><data#{declarations}#{attributes}>#{content(4)}</data>) +
        "#{code}<codes>#{codes}</codes><raws>#{raws}</raws><datas>#{datas}</datas></open>"
    end
  end

  def test_open_content_decodes_and_encodes_alike
    random = Random.new(random_seed)
    writer = OpenWriter.new(random)
    decoded = 0
    300.times do |i|
      xml = writer.document
      result = agree_on_decode(XML, xml, Open, "open content ##{i}")
      agree(xml, "open content ##{i}, trickled") { |_, backend| XML.decode(TrickleIO.new(xml, seed: i), Open, backend: backend) } if i % 10 == 0
      next unless result.first == :ok

      decoded += 1
      record = XML.decode(xml, Open, backend: :pure)
      encoded = agree(record, "open content ##{i} encoded") { |value, backend| XML.encode(value, backend: backend) }
      # :any keys are relative to the element's namespace, which the source's
      # default namespace set and the model does not: the first encode settles
      # it, and from there a round trip changes nothing.
      settled = XML.decode(encoded[1][0], Open)
      again = XML.encode(settled)
      assert_equal settled, XML.decode(again, Open), "open content ##{i} round-trips: #{again}"
    end
    assert_operator decoded, :>=, 10, "enough random documents decode for the round trip to mean something (about 30 of 300 do)"
  end

  def test_limits_fail_alike
    deep = "<a>\n#{'<b> ' * 30}<b>x</b>#{' </b>' * 30}</a>"
    [1, 5, 9, 12, 40].each do |depth|
      agree_on_decode(XML, deep, :string, "max_depth #{depth}", at: "a", max_depth: depth)
      agree(deep, "check, max_depth #{depth}") { |input, backend| XML.check(input, max_depth: depth, backend: backend) }
    end
    xml = Bench::Generator.issues_xml(2, seed: 3)
    [8, 20, 40, 100, 400].each do |size|
      agree_on_decode(XML, xml, [Bench::Issue], "max_token_size #{size}", at: Bench::ISSUES_PATH, max_token_size: size)
      agree(-> { TrickleIO.new(xml, seed: size, max: 300) }, "trickled max_token_size #{size}") do |input, backend|
        XML.check(input, max_token_size: size, backend: backend)
      end
    end
  end

  # Issue 11: max_attributes and max_namespaces, on every path (fast and slow
  # tags, leaves, declarations undone at end tags, trickled input), and the
  # names Namespaces in XML 1.0 forbids.
  def test_attribute_and_namespace_limits_fail_alike
    attrs = ->(n, slow) { Array.new(n) { |i| %( a#{i}=#{slow ? "'x&amp;'" : '"x"'}) }.join }
    [false, true].each do |slow|
      [1, 2, 3, 5, 11, 12, 13, 30].each do |count|
        xml = "<r>\n <e#{attrs.call(count, slow)}/>\n <f#{attrs.call(count, slow)}>t</f><g#{attrs.call(count, slow)}><h/></g></r>"
        [1, 3, 12, 30].each do |max|
          agree(xml, "max_attributes #{max}, #{count} attributes#{' (slow)' if slow}") do |input, backend|
            XML.check(input, max_attributes: max, backend: backend)
          end
          agree(-> { TrickleIO.new(xml, seed: max) }, "trickled max_attributes #{max}") do |input, backend|
            XML.check(input, max_attributes: max, backend: backend)
          end
        end
      end
    end
    ns = ->(from, n) { Array.new(n) { |i| %( xmlns:p#{from + i}="urn:#{from + i}") }.join }
    xml = "<r#{ns.call(0, 3)}>\n<a#{ns.call(3, 2)}><p4:b/></a><c xmlns='urn:d'#{ns.call(5, 3)}/><d#{ns.call(8, 1)}><e#{ns.call(9, 2)}/></d></r>"
    (1..12).each do |max|
      agree(xml, "max_namespaces #{max}") { |input, backend| XML.check(input, max_namespaces: max, backend: backend) }
      agree(-> { TrickleIO.new(xml, seed: max) }, "trickled max_namespaces #{max}") { |input, backend| XML.check(input, max_namespaces: max, backend: backend) }
    end
  end

  NOT_NAMESPACE_WELL_FORMED = [
    "<a:b:c xmlns:a='urn:a'/>", "<:x/>", "<a:/>", "<r a:b:c='1' xmlns:a='urn:a'/>", "<r :x='1'/>", "<r a:='1'/>",
    "<r xmlns:='urn:x'/>", "<r xmlns:a:b='urn:x'/>", "<r xmlns:xmlns='urn:x'/>", "<r xmlns:xml='urn:x'/>",
    "<r xmlns:p='http://www.w3.org/XML/1998/namespace'/>", "<r xmlns:p='http://www.w3.org/2000/xmlns/'/>",
    "<r xmlns:p=''/>", "<r xmlns='http://www.w3.org/2000/xmlns/'/>", "<xmlns:r/>", "<r><?a:b c?></r>", "<?a:b?><r/>",
    "<r/><?x:y?>", "<p:a xmlns:p='urn:p'><p:1b/></p:a>", "<r p:1b='1' xmlns:p='urn:p'/>", "<r>\n  <a:b:c>text</a:b:c></r>",
    "<r xmlns:p='urn:p' p:a='1' p:a='2'/>", "<r xmlns:p='urn:p' xmlns:q='urn:p' p:a='1' q:a='2'/>"
  ].freeze

  def test_names_namespaces_forbid_fail_alike
    NOT_NAMESPACE_WELL_FORMED.each do |xml|
      result = agree(xml, "not namespace-well-formed") { |input, backend| XML.check(input, backend: backend) }
      assert_equal [:error, "Wirebind::ParseError"], result[0, 2], "#{xml}: #{result.inspect}"
      agree(-> { TrickleIO.new(xml, seed: xml.size) }, "trickled") { |input, backend| XML.check(input, backend: backend) }
    end
  end

  # A depth error points at the tag's start whichever path each tokenizer took
  # (pure's inline fast path, its attribute cache, prefixed names, the slow path).
  def test_depth_errors_point_where_pure_points
    xml = Bench::Generator.issues_xml(2, seed: 3)
    (1..12).each do |depth|
      agree_on_decode(XML, xml, [Bench::Issue], "bench max_depth #{depth}", at: Bench::ISSUES_PATH, max_depth: depth)
      agree(xml, "bench check max_depth #{depth}") { |input, backend| XML.check(input, max_depth: depth, backend: backend) }
    end
    attrs = "<r>#{'<b x="1">' * 6}#{'</b>' * 6}<c y='2'>#{'<b x="1">' * 6}#{'</b>' * 6}</c></r>"
    [3, 5, 7, 8].each do |depth|
      agree(attrs, "cached attributes, max_depth #{depth}") do |input, backend|
        XML.check(input, max_depth: depth, backend: backend)
      end
    end
  end

  # The W3C selection, checked natively: documents without a DOCTYPE are decided
  # by the C tokenizer, the others are handed to pure (which reads DTDs).
  def test_w3c_selection_checks_alike
    shared_path("conformance", "xmlconf") # skips, saying why, without ../shared
    handed = 0
    counter = Module.new do
      define_method(:check) do |source, options|
        handed += 1
        super(source, options)
      end
    end
    Wirebind::XML::Pure.singleton_class.prepend(counter)
    cases = Wirebind::Conformance::XmlConf.cases
    disagreements = []
    native_calls = 0
    cases.each do |c|
      bytes = File.binread(c.path)
      pure = outcome(:pure, -> { StringIO.new(bytes) }) { |io, backend| XML.check(io, dtd: :internal, backend: backend) }
      before = handed
      native = outcome(:native, -> { StringIO.new(bytes) }) { |io, backend| XML.check(io, dtd: :internal, backend: backend) }
      native_calls += 1 if handed == before
      disagreements << "#{c.id}: pure #{pure.inspect} native #{native.inspect}" unless pure == native
    end
    puts format("\nW3C selection through the native backend: %d cases, %d decided by the C tokenizer, %d handed to pure (DOCTYPE)",
                cases.size, native_calls, cases.size - native_calls)
    assert_empty disagreements, disagreements.first(20).join("\n")
  end
end

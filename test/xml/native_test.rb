# frozen_string_literal: true

require "test_helper"
require_relative "xml_test_support"
require "objspace"

# What only the native backend can get wrong: memory safety under the GC (stress,
# compaction), depth without recursion, Ractors, flat memory while streaming, the
# input changing under a block, and the hand-over of DOCTYPE documents to pure.
class NativeTest < Minitest::Test
  include XMLTestHelpers

  class Part
    include Wirebind::Model
    xml_root "part"
    attribute :code, :string, xml: "@code"
    attribute :qty, :integer
    attribute :at, :time
    attribute :price, :decimal
    attribute :day, :date
    attribute :ratio, :float
    attribute :blob, :base64
    attribute :ok, :boolean
  end

  class Order
    include Wirebind::Model
    xml_root "order"
    attribute :id, :string, xml: "@id"
    attribute :note, :string
    attribute :parts, [Part], xml: "parts/part"
    attribute :tags, [:string], xml: "tag"
    attribute :sub, [Order], xml: "sub"
  end

  DOC = <<~XML
    <?xml version="1.0"?>
    <!-- orders -->
    <orders xmlns:x="urn:x">
      <order id="o1"><note>one &amp; <![CDATA[two]]></note>
        <parts>
          <part code="A"><qty>3</qty><at>2014-06-11T08:19:21.5+01:00</at><price>12.50</price><day>2011-09-17</day><ratio>1.5</ratio><blob>QUJD</blob><ok>true</ok></part>
          <part code="B"><qty> 12345678901234567890 </qty><at>2014-06-11T08:19:21Z</at></part>
        </parts>
        <tag>a</tag><tag>é</tag><x:junk>skip</x:junk>
        <sub id="o2"><note/><sub id="o3"/></sub>
      </order>
      <order id="o4"/>
    </orders>
  XML

  def setup
    skip "the native backend is not in use (WIREBIND_BACKEND=native)" unless Wirebind.backend == :native
  end

  def reference
    @reference ||= XML.decode(DOC, [Order], at: "orders/order", backend: :pure)
  end

  SMALL = <<~XML
    <orders><order id="o1"><note>a &amp; <![CDATA[b]]></note><parts>
      <part code="A"><qty>3</qty><at>2014-06-11T08:19:21.5+01:00</at><price>12.50</price><day>2011-09-17</day><ratio>1.5</ratio><blob>QUJD</blob></part>
    </parts><tag>é</tag><sub id="o2"/></order></orders>
  XML

  def test_decodes_under_gc_stress
    # Under rbs's method hooks every call checked allocates, and each allocation is a
    # full collection of a heap the whole suite has filled: hours, testing rbs's checks.
    skip "GC.stress under rbs test's method hooks (rake rbs:test) stresses their checks; rake test runs it" if defined?(RBS::Test::Observer)
    expected = deep_shape(XML.decode(SMALL, [Order], at: "orders/order", backend: :pure))
    XML.decode(SMALL, [Order], at: "orders/order") # plans compiled before the stress: that is Ruby's work
    errors = []
    GC.stress = true
    begin
      result = XML.decode(SMALL, [Order], at: "orders/order")
      each = []
      XML.each(TrickleIO.new(SMALL, seed: 3, max: 200), Order, at: "orders/order") { |order| each << order }
      begin
        XML.decode("<r><v>1</v><v>x3</v></r>", [:integer], at: "r/v")
      rescue Wirebind::DecodeError => e
        errors << e
      end
      begin
        XML.check(SMALL.sub("</note>", "</nope>"))
      rescue Wirebind::ParseError => e
        errors << e
      end
    ensure
      GC.stress = false
    end
    assert_equal expected, deep_shape(result)
    assert_equal expected, deep_shape(each)
    assert_equal ["v", 1, 12], [errors[0].path, errors[0].line, errors[0].column]
    assert_equal Wirebind::ParseError, errors[1].class
  end

  def test_compaction_between_decodes_keeps_cached_plans_valid
    expected = deep_shape(reference)
    assert_equal expected, deep_shape(XML.decode(DOC, [Order], at: "orders/order"))
    plan = Wirebind::XML::Native.plan_for(Order)
    3.times do
      # Garbage between the plans and everything else, so that compaction moves things.
      Array.new(20_000) { |i| "filler #{i}" }
      if GC.respond_to?(:verify_compaction_references)
        GC.verify_compaction_references(double_heap: true, toward: :empty)
      else
        GC.compact
      end
      assert_same plan, Wirebind::XML::Native.plan_for(Order)
      assert_equal expected, deep_shape(XML.decode(DOC, [Order], at: "orders/order"))
    end
  end

  def test_compaction_inside_each_block
    expected = deep_shape(reference)
    seen = []
    XML.each(TrickleIO.new(DOC, seed: 1), Order, at: "orders/order") do |order|
      GC.compact if GC.respond_to?(:compact)
      seen << order
    end
    assert_equal expected, deep_shape(seen)
  end

  def test_deep_documents_are_refused_without_recursion
    depth = 200_000
    xml = "<a>#{'<b>' * depth}#{'</b>' * depth}</a>"
    error = assert_raises(Wirebind::LimitError) { XML.check(xml) }
    assert_match(/max_depth \(1024\)/, error.message)
    assert_equal [1, 4 + (1024 - 1) * 3], [error.line, error.column]
    assert_raises(Wirebind::LimitError) { XML.decode(xml, :string, at: "a/x") }
    # Raised, the limit lets it all through: the C stack does not grow with depth.
    assert XML.check(xml, max_depth: depth + 1)
    assert_equal [], XML.decode(xml, [:string], at: "a/b/c", max_depth: depth + 1)
  end

  def test_compiled_plans_are_frozen_and_shareable
    plan = Wirebind::XML::Native.plan_for(Order)
    assert_predicate plan, :frozen?
    assert_same plan, Ractor.make_shareable(plan)
    assert Ractor.shareable?(plan)
  end

  # C's entry points take their settings as one frozen Struct that C defines,
  # and refuse anything else (a Hash, an unfrozen config) with a TypeError.
  def test_entry_points_take_one_frozen_config
    assert_equal %i[item mode path strict max_depth max_token_size max_attributes max_namespaces reject_dtd missing default_offset],
                 Wirebind::XML::Native::DecodeConfig.members
    assert_equal %i[root item xsi_all declaration], Wirebind::XML::Native::EncodeConfig.members
    config = Wirebind::XML::Native::DecodeConfig.new(item: Order, mode: :first, path: [["order", nil].freeze].freeze, strict: false,
                                                     max_depth: 64, max_token_size: 1 << 20, max_attributes: 100,
                                                     max_namespaces: 100, reject_dtd: true).freeze
    assert Ractor.shareable?(config) if defined?(Ractor)
    source = -> { Wirebind::XML::Native::Source.new(SMALL) }
    [config.dup, config.to_h.freeze].each do |wrong|
      error = assert_raises(TypeError) { Wirebind::XML::Native.decode_source(source.call, wrong, nil, nil) }
      assert_match(/expected a frozen Wirebind::XML::Native::DecodeConfig/, error.message)
    end
    encode = Wirebind::XML::Native::EncodeConfig.new(root: nil, item: nil, xsi_all: false, declaration: false)
    assert_raises(TypeError) { Wirebind::XML::Native.encode_value(Order.new(id: "1"), encode, nil) }
    assert_equal XML.encode(Order.new(id: "1"), backend: :pure), Wirebind::XML::Native.encode_value(Order.new(id: "1"), encode.freeze, nil)
  end

  # Plans (pure and compiled) are shareable, so a Ractor reads the classes' plan
  # caches; the C side holds no per-process state besides IDs and classes.
  def test_decodes_in_a_ractor
    require_ractors
    if ENV["LD_PRELOAD"].to_s.include?("libasan") && !ENV["ASAN_OPTIONS"].to_s.include?("use_sigaltstack=0")
      skip "ASan unmaps the sigaltstack Ruby gave the Ractor's thread: run with ASAN_OPTIONS=use_sigaltstack=0"
    end
    expected = XML.decode(DOC, [Order], at: "orders/order").inspect
    assert Ractor.shareable?(Order.instance_variable_get(:@__wb_plans)), "plans decoded once are shareable"
    experimental = Warning[:experimental]
    Warning[:experimental] = false
    begin
      ractor = Ractor.new(DOC) do |doc|
        [Wirebind::XML.decode(doc, [Order], at: "orders/order").inspect,
         begin
           Wirebind::XML.decode(doc.sub("<qty>3", "<qty>y"), [Order], at: "orders/order")
         rescue Wirebind::DecodeError => e
           e.path
         end]
      end
      assert_equal [expected, "order/parts/part/qty"], ractor.take
    ensure
      Warning[:experimental] = experimental
    end
  end

  # What SOAP stacks send (an xsi:type on every leaf, base64 text for a string,
  # xsi:nil, a multiRef) takes other paths and tables than DOC: each must be
  # readable from another Ractor too.
  TYPED = <<~XML
    <orders xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema">
      <order id="o1"><note xsi:type="xsd:base64Binary">w6k=</note>
        <parts><part code="A"><qty xsi:type="xsd:int">3</qty><price xsi:type="xsd:decimal">1.5</price><ok xsi:type="xsd:boolean"> true </ok>
          <day xsi:nil=" true "/><blob xsi:type="xsd:base64Binary">QUJD</blob></part></parts>
        <tag xsi:type="xsd:string">a</tag>
      </order>
    </orders>
  XML

  def test_decodes_typed_leaves_in_a_ractor
    require_ractors
    expected = XML.decode(TYPED, [Order], at: "orders/order").inspect
    assert_match(/note="é"/, expected)
    experimental = Warning[:experimental]
    Warning[:experimental] = false
    begin
      ractor = Ractor.new(TYPED) { |doc| Wirebind::XML.decode(doc, [Order], at: "orders/order").inspect }
      assert_equal expected, ractor.take
    ensure
      Warning[:experimental] = experimental
    end
  end

  # 100k records through each: what a record leaves behind is collectable.
  def test_each_streams_100k_records_in_flat_memory
    record = "<part code=\"c\"><qty>7</qty><at>2014-06-11T08:19:21Z</at><price>1.25</price></part>\n"
    io = Object.new
    left = 100_000
    io.define_singleton_method(:readpartial) do |size, *|
      raise EOFError if left.negative?

      out = +""
      if left == 100_000
        out << "<parts>\n"
      end
      while out.bytesize < size && left.positive?
        out << record
        left -= 1
      end
      if left.zero?
        out << "</parts>"
        left = -1
      end
      out
    end
    count = XML.each(io, Part, at: "parts/part") { |part| raise "wrong record" unless part.qty == 7 }
    assert_equal 100_000, count
    GC.start
    before = ObjectSpace.count_objects[:TOTAL] - ObjectSpace.count_objects[:FREE]
    count = XML.each(io.tap { left = 100_000 }, Part, at: "parts/part") { nil }
    GC.start
    after = ObjectSpace.count_objects[:TOTAL] - ObjectSpace.count_objects[:FREE]
    assert_equal 100_000, count
    assert_operator after - before, :<, 5_000, "objects left behind by 100k records"
  end

  def test_input_changed_inside_each_is_not_read
    xml = +"<r>#{(1..50).map { |i| "<v>#{i}</v>" }.join}</r>"
    values = []
    XML.each(xml, :integer, at: "r/v") do |v|
      values << v
      xml.replace("garbage" * 100) if v == 1
      GC.start
    end
    assert_equal (1..50).to_a, values
  end

  def test_leaving_each_early_and_raising_inside_it
    taken = []
    XML.each(DOC, Order, at: "orders/order") do |order|
      taken << order.id
      break
    end
    assert_equal ["o1"], taken
    assert_raises(ZeroDivisionError) { XML.each(DOC, Order, at: "orders/order") { 1 / 0 } }
    assert_equal deep_shape(reference), deep_shape(XML.decode(DOC, [Order], at: "orders/order"))
  end

  def test_doctype_documents_go_to_pure_with_everything_read_so_far
    xml = "<?xml version=\"1.0\"?>\n<!-- c -->\n<!DOCTYPE r [<!ENTITY e \"entity &#38;#38; text\">]>\n<r><v>&e;</v><v>x</v></r>"
    [xml, -> { TrickleIO.new(xml, seed: 4) }, -> { StringIO.new(xml) }].each do |input|
      get = -> { input.respond_to?(:call) ? input.call : input }
      assert_equal ["entity & text", "x"], XML.decode(get.call, [:string], at: "r/v", dtd: :internal)
      error = assert_raises(Wirebind::ParseError) { XML.decode(get.call, [:string], at: "r/v") }
      assert_match(/DOCTYPE is not allowed/, error.message)
      assert_equal [3, 1], [error.line, error.column]
    end
    source = Wirebind::XML::Source.new(xml)
    config = Wirebind::XML::Native::DecodeConfig.new(mode: :check, strict: false, max_depth: 1024, max_token_size: 1 << 20,
                                                     max_attributes: 100, max_namespaces: 100, reject_dtd: false).freeze
    assert_equal :doctype, Wirebind::XML::Native.decode_source(source, config, nil, nil)
    assert_equal xml, source.next_chunk, "everything read is given back"
  end

  def test_scalar_records_and_first_and_strict
    assert_equal 3, XML.decode(DOC, :integer, at: "orders/order/parts/part/qty")
    assert_nil XML.decode(DOC, Order, at: "orders/nothing")
    error = assert_raises(Wirebind::DecodeError) { XML.decode(DOC, [Order], at: "orders/order", strict: true) }
    assert_equal "order/junk", error.path
  end
end

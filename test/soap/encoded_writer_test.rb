# frozen_string_literal: true

require_relative "soap_test_support"

# The rpc/encoded writer (Envelope.write with style: :rpc_encoded): each model
# class's records written by source compiled once (EncodedRecordWriter), the
# same bytes as the general path, and a streamed sink handed pieces, not names.
class SOAPEncodedWriterTest < Minitest::Test
  Envelope = Wirebind::SOAP::Envelope

  class Part
    include Wirebind::Model
    xml_type "Part", namespace: "urn:parts"
    attribute :id, :string
    attribute :count, :integer
  end

  class Kit < Part
    xml_type "Kit", namespace: "urn:parts"
    attribute :sealed, :boolean
  end

  class Order
    include Wirebind::Model
    xml_type "Order", namespace: "urn:parts"
    attribute :code, :string, xml: "@code"
    attribute :note, :string
    attribute :total, :integer
    attribute :placed, :time
    attribute :due, :date
    attribute :price, :decimal
    attribute :weight, :float
    attribute :paid, :boolean
    attribute :memo, :string, nil: :xsi
    attribute :main, Part
    attribute :parts, [Part], xml: "parts/*"
    attribute :sizes, [:integer], xml: "sizes/*"
    attribute :tags, [:string], xml: "tag"
    attribute :ship_to, :string, xml: "ship/to"
    attribute :ship_by, :string, xml: "ship/@by"
    attribute :amount, :decimal, xml: "Amt"
    attribute :currency, :string, xml: "Amt/@Ccy"
  end

  # Issue 19: a closed enumeration and an XML Schema type kept as text.
  class Booking
    include Wirebind::Model
    xml_type "Booking", namespace: "urn:parts"
    attribute :status, :string, enum: %w[open closed]
    attribute :hold, :string, format: :duration
    attribute :opens, :string, format: :time_of_day
    attribute :years, [:string], format: :g_year, xml: "years/*"
  end

  # Counts what it is handed, as a streamed body's pieces would take it.
  class CountingSink
    attr_reader :calls, :text

    def initialize
      @calls = 0
      @text = +""
    end

    def <<(piece)
      @calls += 1
      @text << piece
      self
    end
  end

  def order
    shared = Part.new(id: "p1", count: 2)
    Order.new(code: "A&1", note: "<b>& \"q\"", total: 2**40, placed: Time.utc(2024, 5, 6, 7, 8, 9), due: Date.new(2024, 6, 1),
              price: BigDecimal("12.50"), weight: 0.25, paid: true, memo: nil, main: Kit.new(id: "k1", count: 1, sealed: false),
              parts: [shared, shared, nil], sizes: [1, -2], tags: %w[x y], ship_to: "Oslo", ship_by: "air",
              amount: BigDecimal("3.5"), currency: "NOK")
  end

  def body(version, multi_ref, value = order)
    xml = Envelope.write(+"", operation: "getOrderResponse", namespace: "urn:ops", parts: { return: value },
                              style: :rpc_encoded, version: version, multi_ref: multi_ref)
    xml[%r{<soapenv:Body>(.*)</soapenv:Body>}m, 1]
  end

  # Written by the interpreting writer this one replaced, byte for byte:
  # attributes, every scalar type, xsd:long past 32 bits, xsi:nil, a subclass's
  # xsi:type, a shared multiRef, a nil array item, wrappers and simpleContent.
  def test_soap11_multi_ref_bytes
    expected = "<ns1:getOrderResponse soapenv:encodingStyle=\"http://schemas.xmlsoap.org/soap/encoding/\" xmlns:ns1=" \
               "\"urn:ops\"><return href=\"#id0\"/></ns1:getOrderResponse><multiRef id=\"id0\" soapenc:root=\"0\" so" \
               "apenv:encodingStyle=\"http://schemas.xmlsoap.org/soap/encoding/\" xsi:type=\"ns2:Order\" xmlns:ns2=\"" \
               "urn:parts\" code=\"A&amp;1\"><note xsi:type=\"xsd:string\">&lt;b&gt;&amp; \"q\"</note><total xsi:typ" \
               "e=\"xsd:long\">1099511627776</total><placed xsi:type=\"xsd:dateTime\">2024-05-06T07:08:09Z</placed><" \
               "due xsi:type=\"xsd:date\">2024-06-01</due><price xsi:type=\"xsd:decimal\">12.5</price><weight xsi:ty" \
               "pe=\"xsd:double\">0.25</weight><paid xsi:type=\"xsd:boolean\">true</paid><memo xsi:nil=\"true\"/><ma" \
               "in href=\"#id1\"/><parts xsi:type=\"soapenc:Array\" soapenc:arrayType=\"ns2:Part[3]\" xmlns:ns2=\"ur" \
               "n:parts\"><item href=\"#id2\"/><item href=\"#id2\"/><item xsi:nil=\"true\"/></parts><sizes xsi:type=" \
               "\"soapenc:Array\" soapenc:arrayType=\"xsd:long[2]\"><item xsi:type=\"xsd:int\">1</item><item xsi:typ" \
               "e=\"xsd:int\">-2</item></sizes><tag xsi:type=\"xsd:string\">x</tag><tag xsi:type=\"xsd:string\">y</t" \
               "ag><ship by=\"air\"><to xsi:type=\"xsd:string\">Oslo</to></ship><Amt Ccy=\"NOK\">3.5</Amt></multiRef" \
               "><multiRef id=\"id1\" soapenc:root=\"0\" soapenv:encodingStyle=\"http://schemas.xmlsoap.org/soap/enc" \
               "oding/\" xsi:type=\"ns2:Kit\" xmlns:ns2=\"urn:parts\"><id xsi:type=\"xsd:string\">k1</id><count xsi:" \
               "type=\"xsd:int\">1</count><sealed xsi:type=\"xsd:boolean\">false</sealed></multiRef><multiRef id=\"i" \
               "d2\" soapenc:root=\"0\" soapenv:encodingStyle=\"http://schemas.xmlsoap.org/soap/encoding/\" xsi:type" \
               "=\"ns2:Part\" xmlns:ns2=\"urn:parts\"><id xsi:type=\"xsd:string\">p1</id><count xsi:type=\"xsd:int\"" \
               ">2</count></multiRef>"
    assert_equal expected, body("1.1", true)
  end

  def test_soap12_inline_bytes
    expected = "<ns1:getOrderResponse soapenv:encodingStyle=\"http://www.w3.org/2003/05/soap-encoding\" xmlns:ns1=\"" \
               "urn:ops\"><return xsi:type=\"ns2:Order\" xmlns:ns2=\"urn:parts\" code=\"A&amp;1\"><note xsi:type=\"x" \
               "sd:string\">&lt;b&gt;&amp; \"q\"</note><total xsi:type=\"xsd:long\">1099511627776</total><placed xsi" \
               ":type=\"xsd:dateTime\">2024-05-06T07:08:09Z</placed><due xsi:type=\"xsd:date\">2024-06-01</due><pric" \
               "e xsi:type=\"xsd:decimal\">12.5</price><weight xsi:type=\"xsd:double\">0.25</weight><paid xsi:type=\"" \
               "xsd:boolean\">true</paid><memo xsi:nil=\"true\"/><main xsi:type=\"ns2:Kit\" xmlns:ns2=\"urn:parts\">" \
               "<id xsi:type=\"xsd:string\">k1</id><count xsi:type=\"xsd:int\">1</count><sealed xsi:type=\"xsd:boole" \
               "an\">false</sealed></main><parts xsi:type=\"enc:Array\" enc:itemType=\"ns2:Part\" enc:arraySize=\"3\"" \
               " xmlns:ns2=\"urn:parts\"><item xsi:type=\"ns2:Part\" xmlns:ns2=\"urn:parts\"><id xsi:type=\"xsd:stri" \
               "ng\">p1</id><count xsi:type=\"xsd:int\">2</count></item><item xsi:type=\"ns2:Part\" xmlns:ns2=\"urn:" \
               "parts\"><id xsi:type=\"xsd:string\">p1</id><count xsi:type=\"xsd:int\">2</count></item><item xsi:nil" \
               "=\"true\"/></parts><sizes xsi:type=\"enc:Array\" enc:itemType=\"xsd:long\" enc:arraySize=\"2\"><item" \
               " xsi:type=\"xsd:int\">1</item><item xsi:type=\"xsd:int\">-2</item></sizes><tag xsi:type=\"xsd:string" \
               "\">x</tag><tag xsi:type=\"xsd:string\">y</tag><ship by=\"air\"><to xsi:type=\"xsd:string\">Oslo</to>" \
               "</ship><Amt Ccy=\"NOK\">3.5</Amt></return></ns1:getOrderResponse>"
    assert_equal expected, body("1.2", false)
  end

  # rpc/encoded is closed on encode as document/literal is: a value outside an
  # enum: or a format: is refused before anything is written.
  def test_enumerations_and_formats_are_checked_before_writing
    { Booking.new(status: "lost") => '"lost" is not one of', Booking.new(hold: "a while") => "xsd:duration",
      [Booking.new, Booking.new(years: %w[2026 MMXXVI])] => "xsd:gYear" }.each do |value, message|
      %w[1.1 1.2].each do |version|
        out = +""
        error = assert_raises(Wirebind::EncodeError, message) do
          Envelope.write(out, operation: "op", namespace: "urn:ops", parts: { in0: value }, style: :rpc_encoded, version: version)
        end
        assert_includes error.message, message
        assert_empty out
      end
    end
  end

  # A string of an XML Schema type kept as text says that type (a peer maps
  # xsd:duration to a duration class of its own), in lists too.
  def test_a_formatted_string_is_typed_as_its_xsd_type
    xml = body("1.1", false, Booking.new(status: "open", hold: "PT2H", opens: "09:00:00", years: %w[2025 2026]))
    assert_includes xml, '<status xsi:type="xsd:string">open</status><hold xsi:type="xsd:duration">PT2H</hold><opens xsi:type="xsd:time">09:00:00</opens>'
    assert_includes xml, 'soapenc:arrayType="xsd:gYear[2]"><item xsi:type="xsd:gYear">2025</item><item xsi:type="xsd:gYear">2026</item></years>'
  end

  def test_values_of_other_classes_take_the_general_path
    odd = Order.new(note: :sym, sizes: [1, 2**40], main: Order.new(note: "inner"))
    xml = body("1.1", false, odd)
    assert_includes xml, '<note xsi:type="xsd:string">sym</note>'
    assert_includes xml, '<item xsi:type="xsd:long">1099511627776</item>'
    assert_includes xml, '<main xsi:type="ns2:Order" xmlns:ns2="urn:parts"><note xsi:type="xsd:string">inner</note>'
    error = assert_raises(Wirebind::EncodeError) { body("1.1", false, Order.new(placed: "noon")) }
    assert_equal "placed", error.path
  end

  # On the native backend scalars are written by C (XML::Native.append_scalar_text),
  # which leaves to Ruby what it declines: the text and the errors are Ruby's.
  def test_scalar_text_is_what_the_ruby_path_writes
    texts = ["plain", "a<b>&c\r", "caf\u00e9 \u{1F600}", "caf\u00e9".encode("ISO-8859-1"), "ok".b, "\xff".b, "bell\u0007", "\uFFFE"]
    times = [Time.utc(2024, 1, 2, 3, 4, 5), Time.at(Rational(1, 3)).utc, Time.new(2024, 1, 2, 3, 4, 5, "+05:30")]
    values = texts.map { |text| [:note, text] } + times.map { |time| [:placed, time] } +
             [[:total, 0], [:total, -2**31], [:total, 2**31], [:total, 2**70], [:weight, Float::INFINITY], [:weight, -0.0],
              [:weight, 1e300], [:price, BigDecimal("1e-20")], [:due, Date.new(-5, 1, 1)]]
    values.each do |field, value|
      type = Order.attributes.find { |attribute| attribute.name == field }.type
      expected = begin
        Envelope.text(Wirebind::Types.to_xml_text(type, value))
      rescue Wirebind::Types::InvalidValue, Wirebind::EncodeError => e
        e.message
      end
      written = begin
        body("1.1", false, Order.new(field => value))[%r{<#{field} xsi:type="[^"]+">(.*?)</#{field}>}, 1]
      rescue Wirebind::EncodeError => e
        e.message.sub(/ \(at #{field}\)\z/, "")
      end
      assert_equal expected, written, "#{field}: #{value.inspect}"
    end
  end

  def test_a_wrapped_list_holding_a_string_is_an_encode_error
    error = assert_raises(Wirebind::EncodeError) { body("1.1", true, Order.new(parts: "p1")) }
    assert_match(/expected an Array, got String/, error.message)
    assert_equal "parts", error.path
  end

  def test_a_sink_is_handed_pieces_not_names
    orders = Array.new(300) { order }
    sink = CountingSink.new
    [true, false].each do |multi_ref|
      whole = Envelope.write(+"", operation: "r", parts: { return: orders }, style: :rpc_encoded, multi_ref: multi_ref)
      Envelope.write(sink, operation: "r", parts: { return: orders }, style: :rpc_encoded, multi_ref: multi_ref)
      assert_equal whole, sink.text
      assert_operator sink.calls, :<, whole.bytesize / 16_384, "about one << per 64 KiB, not one per name and value"
      sink = CountingSink.new
    end
  end
end

# frozen_string_literal: true

require_relative "xml_test_support"

# Values that used to change silently on the way through (issue 20): each test
# runs on every backend and checks decode(encode(x)) == x, or a clear error.
class XMLFaithfulValuesTest < Minitest::Test
  include XMLTestHelpers

  XSI_NS = "http://www.w3.org/2001/XMLSchema-instance"
  XML_SPACE = [" ", "\t", "\n", "\r"].freeze

  class Nillable
    include Wirebind::Model
    xml_root "n"
    attribute :s, :string
    attribute :i, :integer
    attribute :flag, :boolean, xml: "@flag"
  end

  class DefaultCode
    include Wirebind::Model
    xml_namespace "urn:a"
    xml_root "Fault"
    attribute :code, :qname
  end

  class PrefixedCode
    include Wirebind::Model
    xml_namespace "urn:a", prefix: "a"
    xml_root "Fault"
    attribute :code, :qname
    attribute :codes, [:qname], xml: "codes/code"
  end

  class Envelope
    include Wirebind::Model
    xml_namespace "urn:env"
    attribute :fault, PrefixedCode
  end

  class Party
    include Wirebind::Model
    xml_type "Party", namespace: "urn:p"
    attribute :name, :string
  end

  class Company < Party
    xml_type "Company", namespace: "urn:p"
    attribute :vat, :string
  end

  class Person < Party
    xml_type "Person"
    attribute :born, :date
  end

  class Channel
    include Wirebind::Model
    xml_root "channel"
    attribute :link, :string
    attribute :title, :string
    attribute :image, Channel, xml: "image"
  end

  class AtomEntry
    include Wirebind::Model
    xml_namespace "http://www.w3.org/2005/Atom"
    xml_root "entry"
    attribute :title, :string
    attribute :id, :string
  end

  def backends
    Wirebind.backend == :native ? %i[native pure] : %i[pure]
  end

  def blank(random)
    Array.new(random.rand(3)) { XML_SPACE.sample(random: random) }.join
  end

  # Item 5: XML Schema collapses white space in xs:boolean, xsi:nil's type.
  def test_xsi_nil_and_booleans_collapse_white_space
    random = Random.new(random_seed)
    40.times do
      word = %w[true 1 false 0].sample(random: random)
      padded = "#{blank(random)}#{word}#{blank(random)}".gsub("\t", "&#9;").gsub("\n", "&#10;").gsub("\r", "&#13;")
      nil_expected = %w[true 1].include?(word)
      xml = %(<n xmlns:xsi="#{XSI_NS}" flag="#{padded}"><s xsi:nil="#{padded}"/><i xsi:nil="#{padded}">7</i></n>)
      backends.each do |backend|
        record = XML.decode(xml, Nillable, backend: backend)
        assert_nil record.s, "#{backend}: xsi:nil=#{padded.inspect} is nil" if nil_expected
        assert_equal "", record.s, "#{backend}: xsi:nil=#{padded.inspect} is not nil" unless nil_expected
        if nil_expected
          assert_nil record.i, "#{backend}: #{padded.inspect}"
        else
          assert_equal 7, record.i, "#{backend}: #{padded.inspect}"
        end
        assert_equal %w[true 1].include?(word), record.flag, "#{backend}: flag=#{padded.inspect}"
      end
    end
  end

  # Item 2: an unprefixed QName takes the default namespace in scope.
  def test_qname_without_namespace_reads_back_as_written
    random = Random.new(random_seed)
    30.times do
      local = "X#{random.rand(1000)}"
      namespace = [nil, "urn:a", "urn:other#{random.rand(3)}"].sample(random: random)
      value = Wirebind::QName.new(namespace, local)
      fault = PrefixedCode.new(code: value, codes: [value, Wirebind::QName.new(nil, "Y")])
      [fault, Envelope.new(fault: fault)].each do |record|
        backends.each do |backend|
          xml = XML.encode(record, backend: backend)
          assert_equal record, XML.decode(xml, record.class, backend: backend), "#{backend}: #{xml}"
          assert_equal record, XML.decode(xml, record.class, backend: :pure), "#{backend} → pure: #{xml}"
        end
      end
    end
  end

  def test_qname_without_namespace_in_an_unprefixed_default_namespace_element_is_an_error
    backends.each do |backend|
      error = assert_raises(Wirebind::EncodeError) { XML.encode(DefaultCode.new(code: Wirebind::QName.new(nil, "X")), backend: backend) }
      assert_includes error.message, "has no namespace"
      assert_includes error.message, "Fault/code"
      xml = XML.encode(DefaultCode.new(code: Wirebind::QName.new("urn:b", "X")), backend: backend)
      assert_equal Wirebind::QName.new("urn:b", "X"), XML.decode(xml, DefaultCode, backend: backend).code
    end
  end

  # Item 3: the top of a document says a subclass's type, as an attribute of a model does.
  def test_top_level_subclass_records_keep_their_type
    random = Random.new(random_seed)
    20.times do
      records = Array.new(1 + random.rand(4)) do
        case random.rand(3)
        when 0 then Party.new(name: "p#{random.rand(100)}")
        when 1 then Company.new(name: "c", vat: "V#{random.rand(100)}")
        else Person.new(name: "h", born: Date.new(1990, 1, 1 + random.rand(28)))
        end
      end
      backends.each do |backend|
        records.each do |record|
          xml = XML.encode(record, backend: backend)
          assert_equal record, XML.decode(xml, Party, backend: backend), "#{backend}: #{xml}"
          assert_equal record, XML.decode(xml, Party, backend: :pure), "#{backend} → pure: #{xml}"
        end
        xml = XML.encode(records, root: "parties", item: "party", backend: backend)
        assert_equal records, XML.decode(xml, [Party], backend: backend), "#{backend}: #{xml}"
        assert_equal records, XML.decode(xml, [Party], backend: :pure), "#{backend} → pure: #{xml}"
        assert_equal XML.encode(records, root: "parties", item: "party", backend: :pure), xml
      end
    end
  end

  def test_top_level_base_record_has_no_xsi_type
    backends.each do |backend|
      refute_includes XML.encode(Party.new(name: "p"), backend: backend), "xsi:type"
      assert_includes XML.encode(Company.new(name: "c"), backend: backend), %(xsi:type="wb)
    end
  end

  ATOM = "http://www.w3.org/2005/Atom"

  # Item 1: a plain name prefers the record's own namespace (or none) over another one.
  def test_a_plain_name_prefers_its_own_namespace_whatever_the_order
    random = Random.new(random_seed)
    30.times do
      children = [%(<atom:link href="http://x/feed" rel="self"/>), "<link>http://x/</link>", "<atom:title>other</atom:title>",
                  "<title>T</title>", "<media:title xmlns:media=\"urn:media\">m</media:title>",
                  "<image><atom:link href='i'/><link>http://x/i</link></image>"].shuffle(random: random)
      xml = %(<channel xmlns:atom="#{ATOM}">#{children.join}</channel>)
      backends.each do |backend|
        channel = XML.decode(xml, Channel, backend: backend)
        assert_equal ["http://x/", "T", "http://x/i"], [channel.link, channel.title, channel.image.link], "#{backend}: #{xml}"
        error = assert_raises(Wirebind::DecodeError, "#{backend}: #{xml}") { XML.decode(xml, Channel, strict: true, backend: backend) }
        assert_match(/matches "(link|title)" in the record's own namespace \(or none\) and in another one/, error.message)
      end
    end
  end

  def test_a_plain_name_still_reads_another_namespace_when_it_is_all_there_is
    xml = %(<feed xmlns="#{ATOM}" xmlns:o="urn:o"><o:title>first</o:title><title>T</title><link>L</link><o:link>M</o:link></feed>)
    backends.each do |backend|
      channel = XML.decode(xml, Channel, backend: backend)
      # The model has no namespace: Atom and urn:o are both elsewhere, so the first one stays.
      assert_equal %w[first L], [channel.title, channel.link], backend
      entry = XML.decode(%(<entry xmlns="#{ATOM}" xmlns:o="urn:o"><o:title>o</o:title><title>T</title><o:id>1</o:id></entry>), AtomEntry,
                         backend: backend)
      assert_equal %w[T 1], [entry.title, entry.id], backend
    end
  end

  class Entry
    include Wirebind::Model
    xml_root "entry"
    attribute :content, :any
  end

  # Random mixed content: interleaved names and text between children (no
  # empty elements: :any writes <b></b> for those).
  def mixed_content(random, depth)
    Array.new(1 + random.rand(4)) do
      if depth < 3 && random.rand(2).zero?
        name = %w[b i p].sample(random: random)
        "<#{name}>#{mixed_content(random, depth + 1)}</#{name}>"
      else
        %w[x yz w&amp;v].sample(random: random) + (random.rand(2).zero? ? " " : "")
      end
    end.join
  end

  # Item 4: :any writes children and text back in document order.
  def test_any_keeps_document_order_of_children_and_text
    random = Random.new(random_seed)
    60.times do
      xml = "<entry><content><div>#{mixed_content(random, 0)}</div></content></entry>"
      backends.each do |backend|
        entry = XML.decode(xml, Entry, backend: backend)
        written = XML.encode(entry, backend: backend)
        assert_equal xml, written, backend
        assert_equal entry, XML.decode(written, Entry, backend: backend)
        assert_equal entry, XML.decode(written, Entry, backend: :pure)
      end
    end
  end

  def test_any_ordered_content_is_beside_the_readable_shape
    xml = "<entry><content><div>Hello <b>bold</b> and <i>it</i>, <b>again</b>.</div><p>1</p><q>2</q><p>3</p></content></entry>"
    backends.each do |backend|
      content = XML.decode(xml, Entry, backend: backend).content
      assert_equal %w[bold again], content["div"]["b"]
      assert_equal "Hello  and , .", content["div"]["#text"]
      assert_equal ["Hello ", { "b" => "bold" }, " and ", { "i" => "it" }, ", ", { "b" => "again" }, "."], content["div"]["#content"]
      assert_equal [{ "p" => "1" }, { "q" => "2" }, { "p" => "3" }], content["#content"].drop(1)
      # In order already: no "#content".
      refute XML.decode("<entry><content><p>1</p><p>2</p><q>3</q></content></entry>", Entry, backend: backend).content.key?("#content")
    end
  end

  class TypedRef
    include Wirebind::Model
    xml_root "baseRef"
    attribute :internal_id, :string, xml: "@internalId"
    attribute :xsi_type, :qname, xml: "@{#{XSI_NS}}type"
    attribute :kind, :qname, xml: "@kind"
    attribute :unit, :qname, xml: "amount/@unit"
    attribute :amount, :string, xml: "amount/value"
  end

  class DefaultTypedRef
    include Wirebind::Model
    xml_namespace "urn:d"
    attribute :kind, :qname, xml: "@kind"
  end

  # Item 2: :qname on XML attributes (xsi:type values), read where they appear.
  def test_qname_attributes_read_back_as_written
    xml = %(<baseRef xmlns:xsi="#{XSI_NS}" xmlns="urn:default" xmlns:ns2="urn:core" internalId="1" xsi:type="ns2:RecordRef" ) +
          %(kind="Plain"><amount unit="ns2:EUR"><value>3</value></amount></baseRef>)
    random = Random.new(random_seed)
    backends.each do |backend|
      ref = XML.decode(xml, TypedRef, backend: backend)
      assert_equal [Wirebind::QName.new("urn:core", "RecordRef"), Wirebind::QName.new("urn:default", "Plain"),
                    Wirebind::QName.new("urn:core", "EUR")], [ref.xsi_type, ref.kind, ref.unit]
      20.times do
        values = Array.new(3) { Wirebind::QName.new([nil, "urn:core", "urn:x#{random.rand(3)}", "urn:core"].sample(random: random), "N#{random.rand(9)}") }
        record = TypedRef.new(internal_id: "1", xsi_type: values[0], kind: values[1], unit: values[2], amount: "3")
        written = XML.encode(record, backend: backend)
        assert_equal record, XML.decode(written, TypedRef, backend: backend), "#{backend}: #{written}"
        assert_equal record, XML.decode(written, TypedRef, backend: :pure), "#{backend} → pure: #{written}"
        assert_equal XML.encode(record, backend: :pure), written
      end
      error = assert_raises(Wirebind::EncodeError) { XML.encode(DefaultTypedRef.new(kind: Wirebind::QName.new(nil, "X")), backend: backend) }
      assert_includes error.message, "has no namespace"
      assert_equal Wirebind::QName.new("urn:d", "X"),
                   XML.decode(XML.encode(DefaultTypedRef.new(kind: Wirebind::QName.new("urn:d", "X")), backend: backend), DefaultTypedRef).kind
    end
  end
end

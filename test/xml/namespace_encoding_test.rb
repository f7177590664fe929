# frozen_string_literal: true

require_relative "xml_test_support"
# nokogiri's JRuby build warns while loading (a method redefined): its warning, not ours.
verbose = $VERBOSE
$VERBOSE = nil
require "nokogiri"
$VERBOSE = verbose

# Namespaces on encode (issue 13, item 13): the output names every element and
# attribute with the same expanded name (namespace URI + local name) as the
# document the records were read from, declares each namespace once, on the
# outermost element (the document element: what a tree of classes can use is
# worked out per class), with the prefixes the models declare, and never
# declares the xml namespace. Expanded names are read back with Nokogiri (an
# independent parser); both backends must write the same bytes.
class XMLNamespaceEncodingTest < Minitest::Test
  include XMLTestHelpers

  XSI = "http://www.w3.org/2001/XMLSchema-instance"
  XML_NS = "http://www.w3.org/XML/1998/namespace"
  NETSUITE = "netsuite-0.9.3/spec/support/fixtures"
  HAPPYMAPPER = "nokogiri-happymapper-0.5.9/spec/fixtures"

  # Every element of a document as [path of expanded names from the top,
  # sorted expanded names of its attributes], in document order; an xsi:type
  # value is resolved where it appears ({uri}local), the way a reader must.
  class ExpandedNames < Nokogiri::XML::SAX::Document
    attr_reader :elements, :declarations

    def initialize
      super
      @elements = []
      @declarations = [] # [prefix, uri] of every xmlns attribute, in document order
      @path = []
      @scopes = [{ "xml" => XML_NS }]
    end

    def start_element_namespace(name, attrs = [], _prefix = nil, uri = nil, ns = [])
      scope = @scopes.last.merge(ns.to_h)
      @declarations.concat(ns)
      @scopes << scope
      @path << "{#{uri}}#{name}"
      attributes = attrs.map do |attribute|
        expanded = "@{#{attribute.uri}}#{attribute.localname}"
        expanded += "=#{resolve(attribute.value, scope)}" if attribute.uri == XSI && attribute.localname == "type"
        expanded
      end
      @elements << [@path.join("/"), attributes.sort]
    end

    def end_element_namespace(*)
      @path.pop
      @scopes.pop
    end

    def error(message)
      raise "not namespace-well-formed: #{message}"
    end

    private

    def resolve(qname, scope)
      prefix, local = qname.include?(":") ? qname.split(":", 2) : [nil, qname]
      "{#{scope[prefix]}}#{local}"
    end
  end

  def expanded_names(xml)
    reader = ExpandedNames.new
    Nokogiri::XML::SAX::Parser.new(reader).parse(xml)
    reader
  end

  # The elements under (and including) the first element whose expanded-name
  # path ends with +top+, their paths starting there.
  def subtree(elements, top)
    start = elements.index { |path, _| path == top || path.end_with?("/#{top}") } or flunk "no #{top} in the document"
    base = elements[start][0].size - top.size
    inside = elements.drop(start).take_while { |path, _| path[base..] == top || path[base..].start_with?("#{top}/") }
    inside.map { |path, attributes| [path[base..], attributes] }
  end

  # Asserts that every element the encoder wrote, with its attributes, is in
  # the input with the same expanded names, in the same order (the input may
  # hold more: what the models do not map), and returns how many matched.
  def assert_namespace_equivalent(input, output, top)
    wanted = subtree(expanded_names(input).elements, top)
    written = expanded_names(output).elements
    assert_equal top, written.first[0], "the document element's expanded name"
    position = 0
    written.each do |path, attributes|
      found = (position...wanted.size).find { |i| wanted[i][0] == path && (attributes - wanted[i][1]).empty? }
      flunk "#{path} #{attributes.inspect} is not in the input (in order) for\n#{output}" unless found
      position = found + 1
    end
    written.size
  end

  # Encodes on each backend; asserts identical bytes, that each namespace is
  # declared once, and that the xml namespace never is.
  def encode_everywhere(record, **options)
    backends = Wirebind.backend == :native ? %i[pure native] : %i[pure]
    outputs = backends.map { |backend| XML.encode(record, backend: backend, **options) }
    assert_equal 1, outputs.uniq.size, "the backends write different bytes"
    xml = outputs.first
    declarations = expanded_names(xml).declarations.reject { |prefix, uri| prefix == "xsi" && uri == XSI }
    assert_equal declarations.uniq, declarations, "a namespace declared twice: #{xml}"
    refute_includes xml, XML_NS, "the xml namespace is never declared"
    xml
  end

  def fixture(path)
    File.read(fixture_gem_path(*path.split("/", 2)))
  end

  # ---- HappyMapper: several namespaces, an attribute in one -----------------------------------

  ARTICLE = "http://www.wetpaint.com/alfresco/article"
  PHOTO = "http://www.wetpaint.com/alfresco/photo"
  GALLERY = "http://www.wetpaint.com/alfresco/gallery"
  ALFRESCO = "http://www.alfresco.org"

  class ArticleOptions
    include Wirebind::Model
    xml_namespace ARTICLE, prefix: "article"
    attribute :author, :string
    attribute :draft, :boolean
    attribute :scheduled_day, :date
  end

  class PhotoOptions < ArticleOptions
    xml_namespace PHOTO, prefix: "photo"
  end

  class Photo
    include Wirebind::Model
    xml_namespace PHOTO, prefix: "photo"
    xml_root "Photo"
    attribute :title, :string
    attribute :publish_options, PhotoOptions
  end

  class Gallery
    include Wirebind::Model
    xml_namespace GALLERY, prefix: "gallery"
    xml_root "Gallery"
    attribute :title, :string
    attribute :photo, Photo, xml: "{#{PHOTO}}Photo"
  end

  class Article
    include Wirebind::Model
    xml_namespace ARTICLE, prefix: "article"
    xml_prefix "alf", ALFRESCO
    xml_root "Article"
    attribute :name, :string, xml: "@{#{ALFRESCO}}name"
    attribute :title, :string
    attribute :text, :string
    attribute :publish_options, ArticleOptions
    attribute :photo, Photo, xml: "{#{PHOTO}}Photo"
    attribute :gallery, Gallery, xml: "{#{GALLERY}}Gallery"
  end

  def test_happymapper_subclass_namespaces
    input = fixture("#{HAPPYMAPPER}/subclass_namespace.xml")
    article = XML.decode(input, Article)
    assert_equal "Stephanie", article.gallery.photo.publish_options.author
    xml = encode_everywhere(article)

    assert_operator assert_namespace_equivalent(input, xml, "{#{ARTICLE}}Article"), :>=, 18
    # The prefixes the models declare, all on the document element, and nowhere else.
    assert_match(/\A<article:Article xmlns:article="#{ARTICLE}" xmlns:alf="#{ALFRESCO}" xmlns:photo="#{PHOTO}" /o, xml)
    assert_match(/\A<[^>]* xmlns:gallery="#{GALLERY}" alf:name="title">/o, xml)
    assert_equal 4, xml.scan("xmlns:").size
    assert_includes xml, "<gallery:Gallery><gallery:title>gallery title</gallery:title><photo:Photo><photo:title>"
    assert_equal article, XML.decode(xml, Article)
  end

  BOOKS = "urn:loc.gov:books"
  PEOPLE = "urn:loc.gov:people"
  ISBN = "urn:ISBN:0-395-36341-6"

  class Book
    include Wirebind::Model
    xml_namespace BOOKS, prefix: "bk"
    xml_prefix "p", PEOPLE
    xml_root "book"
    attribute :author, :string, xml: "{#{PEOPLE}}author"
    attribute :title, :string
    attribute :number, :integer, xml: "{#{ISBN}}number"
  end

  def test_happymapper_default_namespace_combination
    input = fixture("#{HAPPYMAPPER}/default_namespace_combi.xml")
    book = XML.decode(input, Book)
    assert_equal 1_568_491_379, book.number
    xml = encode_everywhere(book)

    assert_equal 4, assert_namespace_equivalent(input, xml, "{#{BOOKS}}book")
    isbn = Wirebind::XML::Escape.automatic_prefix(ISBN) # no prefix declared for it
    assert_equal %(<bk:book xmlns:bk="#{BOOKS}" xmlns:p="#{PEOPLE}" xmlns:#{isbn}="#{ISBN}"><p:author>Frank Gilbreth</p:author>) +
                 %(<bk:title>Cheaper by the Dozen</bk:title><#{isbn}:number>1568491379</#{isbn}:number></bk:book>), xml
  end

  # ---- SOAP fixtures -------------------------------------------------------------------------

  SOAP_ENV = "http://schemas.xmlsoap.org/soap/envelope/"
  WSDL_TC = "http://taxcloud.net"

  def test_soap_fault_round_trips_with_its_expanded_names
    input = File.read(shared_path("fixtures", "soap", "soap_fault.xml"))
    fault_class = Class.new do
      include Wirebind::Model
      xml_root "Fault"
      xml_namespace SOAP_ENV, prefix: "soap"
      attribute :code, :string, xml: "{}faultcode"
      attribute :message, :string, xml: "{}faultstring"
    end
    fault = XML.decode(input, fault_class, at: "Envelope/Body/Fault")
    assert_equal "soap:Server", fault.code
    xml = encode_everywhere(fault)

    # faultcode and faultstring are unqualified: no prefix, and no default namespace to reset.
    assert_equal 3, assert_namespace_equivalent(input, xml, "{#{SOAP_ENV}}Fault")
    assert_match(%r{\A<soap:Fault xmlns:soap="#{SOAP_ENV}"><faultcode>soap:Server</faultcode><faultstring>}o, xml)
  end

  class TaxCloudMessage
    include Wirebind::Model
    xml_namespace WSDL_TC
    attribute :type, :string, xml: "ResponseType"
    attribute :text, :string, xml: "Message"
  end

  class TaxCloudResult
    include Wirebind::Model
    xml_namespace WSDL_TC
    attribute :type, :string, xml: "ResponseType"
    attribute :messages, [TaxCloudMessage], xml: "Messages/ResponseMessage"
  end

  class TaxCloudLookup
    include Wirebind::Model
    xml_namespace WSDL_TC
    xml_root "LookupResponse"
    attribute :result, TaxCloudResult, xml: "LookupResult"
  end

  def test_soap_response_in_a_default_namespace_keeps_it
    input = File.read(shared_path("fixtures", "soap", "taxcloud.xml"))
    response = XML.decode(input, TaxCloudLookup, at: "Envelope/Body/LookupResponse")
    assert_equal ["Invalid apiLoginID and/or apiKey"], response.result.messages.map(&:text)
    xml = encode_everywhere(response)

    assert_equal 7, assert_namespace_equivalent(input, xml, "{#{WSDL_TC}}LookupResponse")
    assert_equal %(<LookupResponse xmlns="#{WSDL_TC}"><LookupResult><ResponseType>Error</ResponseType><Messages><ResponseMessage>) +
                 %(<ResponseType>Error</ResponseType><Message>Invalid apiLoginID and/or apiKey</Message></ResponseMessage></Messages>) +
                 %(</LookupResult></LookupResponse>), xml
  end

  # ---- NetSuite: a document/literal response with xsi:type -------------------------------------

  MESSAGES = "urn:messages_2011_2.platform.webservices.netsuite.com"
  CORE = "urn:core_2011_2.platform.webservices.netsuite.com"
  RELATIONSHIPS = "urn:relationships_2011_2.lists.webservices.netsuite.com"

  class Status
    include Wirebind::Model
    attribute :success, :boolean, xml: "@isSuccess"
  end

  class Record
    include Wirebind::Model
    attribute :internal_id, :string, xml: "@internalId"
    attribute :external_id, :string, xml: "@externalId"
  end

  class RecordRef
    include Wirebind::Model
    xml_prefix "platformCore", CORE
    attribute :internal_id, :string, xml: "@internalId"
    attribute :name, :string, xml: "{#{CORE}}name"
  end

  class Address
    include Wirebind::Model
    xml_namespace RELATIONSHIPS, prefix: "listRel"
    attribute :default_shipping, :boolean
    attribute :label, :string
    attribute :city, :string
    attribute :zip, :string
    attribute :internal_id, :integer
  end

  class Customer < Record
    xml_type "Customer", namespace: RELATIONSHIPS
    xml_namespace RELATIONSHIPS, prefix: "listRel"
    attribute :entity_id, :string
    attribute :company_name, :string
    attribute :entity_status, RecordRef
    attribute :date_created, :time
    attribute :balance, :decimal
    attribute :addresses, [Address], xml: "addressbookList/addressbook"
  end

  class ReadResponse
    include Wirebind::Model
    xml_namespace MESSAGES
    xml_prefix "platformMsgs", MESSAGES
    xml_prefix "platformCore", CORE
    xml_root "readResponse"
    attribute :status, Status, xml: "{#{CORE}}status"
    attribute :record, Record
  end

  def test_netsuite_get_customer_round_trips_with_its_expanded_names
    input = fixture("#{NETSUITE}/get/get_customer.xml")
    response = XML.decode(input, ReadResponse, at: "Envelope/Body/getResponse/readResponse")
    customer = response.record
    assert_instance_of Customer, customer
    assert_equal ["988", "Test Inc.", "CUSTOMER-Closed Won", "Chicago"],
                 [customer.internal_id, customer.company_name, customer.entity_status.name, customer.addresses.first.city]
    xml = encode_everywhere(response)

    assert_operator assert_namespace_equivalent(input, xml, "{#{MESSAGES}}readResponse"), :>=, 14
    # Record has no namespace, so messages takes the prefix the model names; the
    # record's own namespace (a subclass: not known in advance) is declared on it, once.
    assert_match(/\A<platformMsgs:readResponse xmlns:platformMsgs="#{MESSAGES}" xmlns:platformCore="#{CORE}">/o, xml)
    assert_includes xml, %(<platformMsgs:record xsi:type="listRel:Customer" xmlns:listRel="#{RELATIONSHIPS}" xmlns:xsi="#{XSI}" internalId="988")
    assert_equal 1, xml.scan(%(xmlns:listRel=)).size
    assert_equal response, XML.decode(xml, ReadResponse)
  end

  def test_a_soap_literal_part_of_a_subclass_declares_its_namespace_once
    out = +""
    customer = Customer.new(internal_id: "1", company_name: "c")
    Wirebind::SOAP::Envelope.write(out, operation: "add", namespace: MESSAGES, parts: { record: customer }, types: { record: Record },
                                        style: :document)

    assert XML.check(out)
    assert_includes out, %(<record xsi:type="listRel:Customer" xmlns:xsi="#{XSI}" xmlns:listRel="#{RELATIONSHIPS}" xmlns:platformCore=)
    assert_equal 1, out.scan("xmlns:listRel=").size
  end

  # ---- the rules, on small models -------------------------------------------------------------

  class Plain
    include Wirebind::Model
    attribute :name, :string
    attribute :lang, :string, xml: "@xml:lang"
  end

  class DefaultHolder
    include Wirebind::Model
    xml_namespace "urn:d"
    xml_root "holder"
    attribute :size, :integer
  end

  class DefaultWithPlain < DefaultHolder
    attribute :plain, Plain
    attribute :plains, [Plain], xml: "plains/*"
  end

  def test_a_default_namespace_stays_the_default_when_nothing_is_unqualified
    assert_equal %(<holder xmlns="urn:d"><size>1</size></holder>), encode_everywhere(DefaultHolder.new(size: 1))
  end

  def test_a_model_without_a_namespace_under_one_writes_its_children_unqualified
    record = DefaultWithPlain.new(size: 1, plain: Plain.new(name: "a", lang: "en"), plains: [Plain.new(name: "b")])
    xml = encode_everywhere(record)
    names = expanded_names(xml).elements.map(&:first)

    d = Wirebind::XML::Escape.automatic_prefix("urn:d")
    assert_equal %(<#{d}:holder xmlns:#{d}="urn:d"><#{d}:size>1</#{d}:size><#{d}:plain xml:lang="en"><name>a</name></#{d}:plain>) +
                 %(<#{d}:plains><Plain><name>b</name></Plain></#{d}:plains></#{d}:holder>), xml
    assert_equal ["{urn:d}holder", "{urn:d}holder/{urn:d}size", "{urn:d}holder/{urn:d}plain", "{urn:d}holder/{urn:d}plain/{}name",
                  "{urn:d}holder/{urn:d}plains", "{urn:d}holder/{urn:d}plains/{}Plain", "{urn:d}holder/{urn:d}plains/{}Plain/{}name"], names
    assert_equal record, XML.decode(xml, DefaultWithPlain)
  end

  def test_a_prefix_taken_by_another_namespace_is_declared_where_it_is_used
    one = Class.new { include Wirebind::Model; xml_root "one"; xml_namespace "urn:one", prefix: "ns"; attribute :a, :string }
    two = Class.new { include Wirebind::Model; xml_root "two"; xml_namespace "urn:two", prefix: "ns"; attribute :b, :string }
    outer = Class.new do
      include Wirebind::Model
      xml_root "outer"
      attribute :one, one
      attribute :two, two
    end
    xml = encode_everywhere(outer.new(one: one.new(a: "1"), two: two.new(b: "2")))

    assert_equal %(<outer xmlns:ns="urn:one"><one><ns:a>1</ns:a></one><two xmlns:ns="urn:two"><ns:b>2</ns:b></two></outer>), xml
    assert_equal ["{}outer/{}two/{urn:two}b"], expanded_names(xml).elements.map(&:first).grep(/b\z/)
  end

  def test_a_record_named_with_a_prefix_its_content_rebinds_is_an_encode_error
    inner = Class.new { include Wirebind::Model; xml_namespace "urn:two", prefix: "ns"; attribute :b, :string }
    outer = Class.new do
      include Wirebind::Model
      xml_root "outer"
      xml_namespace "urn:one", prefix: "ns"
      attribute :inner, inner
    end
    backends = Wirebind.backend == :native ? %i[pure native] : %i[pure]
    errors = backends.map { |backend| assert_raises(Wirebind::EncodeError) { XML.encode(outer.new(inner: inner.new(b: "x")), backend: backend) } }

    assert_equal 1, errors.map { |e| [e.message, e.path] }.uniq.size, "both backends say the same"
    assert_match(/the prefix "ns" of <ns:inner> stands for "urn:one", and its content needs it for "urn:two"/, errors.first.message)
    assert_equal "ns:outer/ns:inner", errors.first.path
  end

  # Plans are made again after any model's change, the namespace set with them:
  # a namespace a held class gained later is declared once, on the document element.
  def test_a_nested_class_changed_after_the_set_was_worked_out_is_in_the_new_set
    inner = Class.new { include Wirebind::Model; xml_root "i"; attribute :x, :string }
    outer = Class.new { include Wirebind::Model; xml_root "o"; attribute :inner, inner }
    encode_everywhere(outer.new(inner: inner.new(x: "1")))
    inner.xml_namespace "urn:late", prefix: "late"

    assert_equal %(<o xmlns:late="urn:late"><inner><late:x>1</late:x></inner></o>), encode_everywhere(outer.new(inner: inner.new(x: "1")))
  end

  def test_a_list_declares_on_its_wrapper
    xml = encode_everywhere([Book.new(author: "a"), Book.new(title: "t")], root: "books")

    assert_equal %(<books xmlns:bk="#{BOOKS}" xmlns:p="#{PEOPLE}" xmlns:#{Wirebind::XML::Escape.automatic_prefix(ISBN)}="#{ISBN}">) +
                 %(<bk:book><p:author>a</p:author></bk:book><bk:book><bk:title>t</bk:title></bk:book></books>), xml
  end

  def test_xml_prefix_declarations
    assert_equal({ PEOPLE => "p" }, Book.xml_prefixes)
    assert_equal({ PEOPLE => "p" }, Class.new(Book).xml_prefixes, "inherited")
    assert_raises(Wirebind::SchemaError) { Class.new(Book) { xml_prefix "xmlns", "urn:x" } }
    assert_raises(Wirebind::SchemaError) { Class.new(Book) { xml_prefix "a:b", "urn:x" } }
    assert_raises(Wirebind::SchemaError) { Class.new(Book) { xml_prefix "x", "" } }
    assert_raises(Wirebind::SchemaError) { Class.new(Book) { xml_prefix "x", XML_NS } }
    error = assert_raises(Wirebind::SchemaError) { Class.new(Book) { xml_prefix "bk", "urn:other" } }
    assert_match(/"bk" already stands for "#{BOOKS}"/, error.message)
    assert_raises(Wirebind::SchemaError) { Class.new(Book) { xml_prefix "p", "urn:other" } }
  end

  # ---- generated models ------------------------------------------------------------------------

  URIS = ["urn:a", "urn:b", "urn:c&d", "http://example.com/x?q=1"].freeze

  # A random tree of model classes: each with no namespace, one with a prefix,
  # or one without (the default namespace where it can be), children named
  # plainly, {uri}local or {}local, XML attributes with or without a namespace,
  # nested models single or in lists, and some xml_prefix declarations.
  def gen_classes(random, count)
    classes = Array.new(count) do |n|
      Class.new do
        include Wirebind::Model
        xml_root "m#{n}"
      end
    end
    classes.each_with_index do |klass, n|
      case random.rand(3)
      when 1 then klass.xml_namespace URIS.sample(random: random), prefix: "n#{n}" # no prefix stands for two namespaces
      when 2 then klass.xml_namespace URIS.sample(random: random)
      end
      klass.xml_prefix "p#{n}", URIS.sample(random: random) if random.rand(3).zero?
      random.rand(1..5).times do |i|
        name = ->(local) { [local, "{#{URIS.sample(random: random)}}#{local}", "{}#{local}"][random.rand(3)] }
        case random.rand(5)
        when 0 then klass.attribute :"s#{i}", :string, xml: name.call("s#{i}")
        when 1 then klass.attribute :"t#{i}", :string, xml: random.rand(2).zero? ? "@t#{i}" : "@{#{URIS.sample(random: random)}}t#{i}"
        when 2 then klass.attribute :"l#{i}", [:integer], xml: name.call("l#{i}")
        else
          # Only classes later in the list: the tree ends.
          next if n == count - 1

          child = classes[random.rand((n + 1)...count)]
          random.rand(2).zero? ? klass.attribute(:"c#{i}", child, xml: name.call("c#{i}")) : klass.attribute(:"c#{i}", [child], xml: name.call("c#{i}"))
        end
      end
    end
    classes
  end

  def gen_record(klass, random)
    values = klass.attributes.to_h do |attribute|
      value =
        if attribute.model?
          item = -> { gen_record(attribute.type, random) }
          attribute.list? ? Array.new(random.rand(0..2)) { item.call } : item.call
        elsif attribute.list?
          Array.new(random.rand(0..2)) { random.rand(100) }
        else
          random.rand(4).zero? ? nil : "v#{random.rand(10)}"
        end
      [attribute.name, value]
    end
    klass.new(**values)
  end

  # The expanded names the schema says a record is written with, worked out
  # from the declarations alone: its element (named by the parent), its XML
  # attributes, then its children in declaration order.
  def expected_names(record, klass, element, path = nil, out = [])
    path = path ? "#{path}/#{element}" : element
    attributes = klass.attributes.select { |a| a.xml.start_with?("@") && !record.public_send(a.name).nil? }.map do |attribute|
      attribute.xml.start_with?("@{") ? attribute.xml : "@{}#{attribute.xml[1..]}"
    end
    out << [path, attributes.sort]
    klass.attributes.each do |attribute|
      next if attribute.xml.start_with?("@")

      name = attribute.xml.start_with?("{") ? attribute.xml : "{#{klass.xml_namespace_uri}}#{attribute.xml}"
      value = record.public_send(attribute.name)
      (attribute.list? ? value : [value].compact).each do |item|
        if attribute.model?
          expected_names(item, attribute.type, name, path, out)
        else
          out << ["#{path}/#{name}", []]
        end
      end
    end
    out
  end

  def test_generated_models_write_the_expanded_names_their_schema_says
    random = Random.new(random_seed)
    40.times do
      classes = gen_classes(random, random.rand(1..5))
      root = classes.first
      3.times do
        record = gen_record(root, random)
        xml = encode_everywhere(record)
        assert XML.check(xml)
        assert_equal expected_names(record, root, "{#{root.xml_namespace_uri}}#{root.xml_root}"), expanded_names(xml).elements,
                     "expanded names of\n#{xml}"
        assert_equal record, XML.decode(xml, root)
        assert_equal xml, encode_everywhere(XML.decode(xml, root)), "stable after a round trip"
      end
    end
  end
end

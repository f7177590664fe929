# frozen_string_literal: true

require_relative "xml_test_support"

# The pure backend's streaming tokenizer: the events it reports through its
# hooks, and what it accepts and refuses as XML 1.0 + Namespaces.
class XMLPureTokenizerTest < Minitest::Test
  include XMLTestHelpers

  Tokenizer = Wirebind::XML::Tokenizer

  # Records every hook call. Text is wanted everywhere unless told otherwise.
  class Recorder < Tokenizer
    attr_reader :events

    def initialize(input, want_text: true, **options)
      super(input, **Wirebind::XML::DEFAULT_LIMITS.merge(dtd: :reject).merge(options))
      @events = []
      @wants = want_text
      @want_text = want_text
    end

    def on_start(local, uri, attrs)
      @events << [:start, local, uri, attrs&.to_a]
      @want_text = @wants
    end

    def on_leaf(local, uri, attrs, text)
      @events << [:leaf, local, uri, attrs&.to_a, text.dup]
    end

    def on_text(text)
      @events << [:text, text.dup]
    end

    def on_end
      @events << [:end]
    end
  end

  def events(input, **options)
    recorder = Recorder.new(input, **options)
    recorder.run
    recorder.events
  end

  # The same events whatever the chunking: a leaf is a start, its text and an end;
  # adjacent texts are one text; empty texts are none.
  def normalized(events)
    out = []
    events.each do |event|
      parts =
        if event[0] == :leaf
          [[:start, *event[1..3]], [:text, event[4]], [:end]]
        else
          [event]
        end
      parts.each do |part|
        next if part[0] == :text && part[1].empty?

        if part[0] == :text && out.last && out.last[0] == :text
          out[-1] = [:text, out.last[1] + part[1]]
        else
          out << part
        end
      end
    end
    out
  end

  def norm_events(input, **options)
    normalized(events(input, **options))
  end

  # ---- events -------------------------------------------------------------------------

  def test_a_leaf_is_one_event
    assert_equal [[:leaf, "a", nil, nil, "text"]], events("<a>text</a>")
    assert_equal [[:leaf, "a", nil, nil, ""]], events("<a/>")
    assert_equal [[:leaf, "a", nil, nil, ""]], events("<a></a>")
  end

  def test_nested_elements
    expected = [
      [:start, "a", nil, nil], [:text, "\n "], [:start, "b", nil, nil], [:text, "x"], [:end], [:text, "y"],
      [:start, "c", nil, nil], [:end], [:text, "\n"], [:end]
    ]

    assert_equal expected, norm_events("<a>\n <b>x</b>y<c/>\n</a>")
  end

  def test_attributes_are_local_uri_value_triples_in_order
    xml = %(<a xmlns:p="urn:p" z="1" p:y='2' x="&lt;&#65;"/>)

    assert_equal [[:leaf, "a", nil, ["z", nil, "1", "y", "urn:p", "2", "x", nil, "<A"], ""]], events(xml)
  end

  def test_namespace_declarations_are_not_attributes
    xml = %(<a xmlns="urn:d" xmlns:p="urn:p"><p:b/><c xmlns=""/></a>)
    recorded = norm_events(xml)

    assert_equal [:start, "a", "urn:d", nil], recorded[0]
    assert_equal [:start, "b", "urn:p", nil], recorded[1]
    assert_equal [:start, "c", nil, nil], recorded[3]
  end

  def test_namespace_scopes_end_with_their_element
    xml = %(<a><b xmlns="urn:b"><c/></b><d/></a>)
    starts = norm_events(xml).select { |e| e[0] == :start }.map { |e| e[1..2] }

    assert_equal [["a", nil], ["b", "urn:b"], ["c", "urn:b"], ["d", nil]], starts
  end

  def test_attribute_value_normalization
    xml = %(<a x="1\t2\n3\r\n4\r5" y="&#9;&#10;&#13;" z="  spaced  "/>)
    attrs = events(xml).first[3]

    assert_equal ["x", nil, "1 2 3 4 5", "y", nil, "\t\n\r", "z", nil, "  spaced  "], attrs
  end

  def test_text_references_cdata_and_line_ends
    xml = "<a>1 &lt; 2 &amp;&#x41;&#66;<![CDATA[<&>]]>\r\nend\r</a>"

    assert_equal [[:start, "a", nil, nil], [:text, "1 < 2 &AB<&>\nend\n"], [:end]], norm_events(xml)
  end

  def test_comments_and_pis_are_not_reported
    xml = "<?xml version='1.0'?><!--c--><?pi x?><a><!-- in --><?pi?>t<!---->u</a><!--after-->"

    assert_equal [[:start, "a", nil, nil], [:text, "tu"], [:end]], norm_events(xml)
  end

  def test_text_is_not_reported_when_not_wanted
    recorded = events("<a>x<b>y</b>&amp;<![CDATA[z]]>]</a>", want_text: false)

    assert(recorded.none? { |e| e[0] == :text }, recorded.inspect)
    assert_equal [:start, "a", nil, nil], recorded.first
  end

  def test_the_same_events_whatever_the_chunking
    xml = <<~XML
      <?xml version="1.0" encoding="UTF-8"?>
      <!-- a comment -->
      <root xmlns="urn:r" xmlns:p="urn:p" a="1" p:b='two &amp; &#x33;'>
        <p:item id="é">text &lt; more <![CDATA[<raw> & ]] ]]> 日本 😀</p:item>\r
        <empty/><empty></empty>
        <?pi data?>
        <deep><deeper><deepest attr="x&#10;y">]]</deepest></deeper></deep>
        tail text\r\n
      </root>
    XML
    expected = norm_events(xml)
    (1..7).each do |max|
      3.times do |seed|
        assert_equal expected, norm_events(TrickleIO.new(xml, seed: seed, max: max)), "reads of up to #{max} bytes, seed #{seed}"
      end
    end
    assert_equal expected, norm_events(StringIO.new(xml))
  end

  def test_random_documents_give_the_same_events_whatever_the_chunking
    random = Random.new(random_seed)
    30.times do
      xml = random_document(random)
      expected = norm_events(xml)
      2.times do
        seed = random.rand(1 << 30)
        assert_equal expected, norm_events(TrickleIO.new(xml, seed: seed, max: random.rand(1..9))), "seed #{seed}: #{xml}"
      end
    end
  end

  TEXTS = ["plain", " ", "\n", "\r\n", "&lt;", "&amp;", "&#233;", "&#x1F600;", "é", "日本", "😀", "]", "]]", "a]b",
           "<![CDATA[c<d>]]>", "<!-- note -->", "<?pi x?>", "\t"].freeze

  def random_document(random)
    out = +"<?xml version=\"1.0\"?>\n<root xmlns:p=\"urn:p\">"
    depth = 1
    random.rand(5..30).times do
      case random.rand(6)
      when 0
        attrs = Array.new(random.rand(0..2)) { |i| %( a#{i}="#{TEXTS.sample(random: random).delete('<&')}") }.join
        name = ["item", "p:item", "x", "é"].sample(random: random)
        out << "<#{name}#{attrs}>#{TEXTS.sample(random: random)}</#{name}>"
      when 1
        out << "<n#{depth}>"
        depth += 1
      when 2
        if depth > 1
          depth -= 1
          out << "</n#{depth}>"
        end
      when 3 then out << "<empty#{' e="1"' if random.rand(2).zero?}/>"
      else out << TEXTS.sample(random: random)
      end
    end
    (depth - 1).downto(1) { |d| out << "</n#{d}>" }
    out << "</root>\n"
  end

  # ---- well-formedness ------------------------------------------------------------------------

  WELL_FORMED = [
    "<a/>",
    "<a></a>",
    "<?xml version='1.0'?><a/>",
    "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n<a/>\n",
    "<?xml version='1.1'?><a/>",
    "\n\n<!-- c --><?pi?>\n<a/><!-- c -->\n<?pi x?>\n",
    "<a>]]</a>",
    "<a>]</a>",
    "<a>>></a>",
    "<a b=\"'\" c='\"'/>",
    "<a\n  b = 'x'\n/>",
    "<a ></a >",
    "<日本語 属性='値'>テキスト</日本語>",
    "<_a-b.c d-e='1'/>",
    "<a><!----></a>",
    "<a><!-- - --></a>",
    "<a><![CDATA[]]></a>",
    "<a><![CDATA[<!-- not a comment -->]]></a>",
    "<a><?pi?></a>",
    "<a><?pi-with-dash  data  ?></a>",
    "<a>&#x10FFFF;&#xFFFD;&#9;</a>",
    "<a xml:lang='en'/>",
    "<a xmlns='urn:x'><b xmlns=''/></a>",
    "\uFEFF<a/>",
    "<a>#{'x' * 200_000}</a>",
    "<a>#{'<b/>' * 10_000}</a>"
  ].freeze

  NOT_WELL_FORMED = [
    "", " ", "text", "<a>", "</a>", "<a></b>", "<a/><b/>", "<a/>text", "<a>&</a>", "<a>&x</a>", "<a>&#;</a>",
    "<a>&#x;</a>", "<a>&#xZZ;</a>", "<a>&#8;</a>", "<a>]]></a>", "<a b></a>", "<a b=c/>", "<a b='1' b='1'/>",
    "<a b='<'/>", "<a b='&'/>", "<a b=\"1\"c=\"2\"/>", "<a><!-- -- --></a>", "<a><!-- ---></a>", "<a><?xml ?></a>",
    "<?xml version='1.0'?><?xml version='1.0'?><a/>", "<?XML version='1.0'?><a/>", "<?xml encoding='UTF-8'?><a/>",
    "<?xml version='1.0' standalone='maybe'?><a/>", "<a><?></a>", "<a><![CDATA[</a>", "<a><![cdata[x]]></a>",
    "<1/>", "<-a/>", "<.a/>", "<a><b></a></b>", "< a/>", "<a/ >", "<a></ a>", "<a>\u0000</a>", "<a>\u001B</a>",
    "<a>\uFFFE</a>", "<p:a/>", "<a p:b='1'/>", "<a xmlns:p=''/>", "<a xmlns:p='urn:x' xmlns:q='urn:x' p:c='' q:c=''/>",
    "<a><!DOCTYPE a></a>", "<!DOCTYPE a><a/>", "<a/><!DOCTYPE a>"
  ].freeze

  def test_well_formed_documents
    failures = []
    WELL_FORMED.each do |xml|
      { "String" => xml, "trickled" => TrickleIO.new(xml, seed: 11), "1-byte reads" => TrickleIO.new(xml, max: 1) }.each do |kind, input|
        XML.check(input)
      rescue Wirebind::ParseError => e
        failures << "#{xml[0, 40].inspect} (#{kind}): #{e.message}"
      end
    end

    assert_empty failures, "well-formed documents refused"
  end

  def test_not_well_formed_documents
    failures = []
    NOT_WELL_FORMED.each do |xml|
      { "String" => xml, "trickled" => TrickleIO.new(xml, seed: 12, max: 2) }.each do |kind, input|
        XML.check(input)
        failures << "#{xml.inspect} (#{kind}) was accepted"
      rescue Wirebind::ParseError
        nil
      end
    end

    assert_empty failures
  end

  def test_the_shared_attack_fixtures_without_a_dtd
    %w[simple.xml simple-ns.xml].each do |name|
      xml = File.read(shared_path("fixtures", "xml_attacks", name))

      assert_same true, XML.check(xml), name
    end
    recorded = norm_events(File.read(shared_path("fixtures", "xml_attacks", "simple-ns.xml")))
    assert_equal [:start, "root", "namespace", nil], recorded.first
    assert_includes recorded, [:start, "element", "namespace", ["key", nil, "value"]]
  end

  # ---- tokens across chunk boundaries ---------------------------------------------------------

  def test_comments_straddling_reads
    xml = "<a><!-- a comment that is long enough to straddle several reads --><b/></a>"

    (1..7).each do |max|
      assert XML.check(TrickleIO.new(xml, seed: max, max: max)), "reads of up to #{max} bytes"
    end
    assert XML.check(TrickleIO.new("<!-- prolog comment --><a/>", max: 2))
    assert XML.check(TrickleIO.new("<a/><!-- epilog comment -->", max: 2))
  end

  def test_pis_and_cdata_straddling_reads
    xml = "<a><?target some data here?><![CDATA[ some <cdata> text ]]></a>"

    (1..7).each do |max|
      assert_equal norm_events(xml), norm_events(TrickleIO.new(xml, seed: max, max: max)), "reads of up to #{max} bytes"
    end
  end

  def test_a_doctype_straddling_reads
    xml = %(<!DOCTYPE a [<!ENTITY e "expanded">]><a>&e;</a>)
    expected = norm_events(xml, dtd: :internal)

    assert_equal [[:start, "a", nil, nil], [:text, "expanded"], [:end]], expected
    (1..7).each do |max|
      assert_equal expected, norm_events(TrickleIO.new(xml, seed: max, max: max), dtd: :internal), "reads of up to #{max} bytes"
    end
  end

  def test_references_straddling_reads
    xml = "<a x='&amp;&#x1F600;'>&amp;&lt;&#233;&#x1F600;</a>"

    (1..5).each do |max|
      assert_equal norm_events(xml), norm_events(TrickleIO.new(xml, seed: max, max: max))
    end
  end

  def test_the_xml_declaration_straddling_reads
    xml = %(<?xml version="1.0" encoding="UTF-8" standalone="yes"?><a/>)

    (1..3).each do |max|
      assert XML.check(TrickleIO.new(xml, seed: max, max: max))
    end
    assert_raises(Wirebind::ParseError) { XML.check(TrickleIO.new(%(<?xml version="1.0" standalone="maybe"?><a/>), max: 2)) }
  end

  # ---- depth ---------------------------------------------------------------------------------------

  def test_depth_costs_no_ruby_stack
    depth = 100_000
    xml = ("<a>" * depth) + ("</a>" * depth)

    assert XML.check(xml, max_depth: depth)
    recorder = Recorder.new(xml, want_text: false, max_depth: depth)
    recorder.run
    assert_equal(depth - 1, recorder.events.count { |e| e[0] == :start })
  end
end

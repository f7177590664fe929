# frozen_string_literal: true

require_relative "xml_test_support"
require_relative "../support/linear_time"
require "minitest/mock"

# SOAP 1.1 encoding references (href/id, Axis multiRefs), decoded with
# references: true on either backend.
class XMLReferencesTest < Minitest::Test
  include Wirebind::LinearTime

  ENV_OPEN = %(<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" ) +
             %(xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema" ) +
             %(xmlns:soapenc="http://schemas.xmlsoap.org/soap/encoding/"><soapenv:Body>)
  ENV_CLOSE = "</soapenv:Body></soapenv:Envelope>"
  AT = "Envelope/Body/resp/return/*"

  class History
    include Wirebind::Model
    attribute :date, :time
    attribute :location, :string
    attribute :mail_id, :integer
    attribute :reference_id, :integer
    attribute :subject, :string
  end

  class Version
    include Wirebind::Model
    attribute :name, :string
  end

  class Issue
    include Wirebind::Model
    attribute :key, :string
    attribute :votes, :integer
    attribute :versions, [Version], xml: "versions/*"
    attribute :fix, Version
  end

  class Node
    include Wirebind::Model
    attribute :name, :string
    attribute :next_node, Node, xml: "next"
  end

  def doc(body)
    ENV_OPEN + body + ENV_CLOSE
  end

  # Decodes with the backend in use and, where the extension is loaded, with the
  # other one too: both must give the same values or the same error.
  def decode(xml, type, at: AT, **options)
    results = backends.map do |backend|
      Wirebind::XML.decode(xml, type, at: at, references: true, backend: backend, **options)
    rescue Wirebind::Error => e
      e
    end
    if results.size == 2
      if results[0].is_a?(Exception)
        assert_equal [results[0].class, results[0].message], [results[1].class, results[1].message]
      else
        assert_equal results[0], results[1]
      end
    end
    raise results[0] if results[0].is_a?(Exception)

    results[0]
  end

  def backends
    Wirebind.backend == :native ? %i[native pure] : %i[pure]
  end

  def test_savon_multi_ref_fixture
    xml = File.read(shared_path("fixtures", "soap", "multi_ref.xml"))
    entries = decode(xml, [History], at: "Envelope/Body/listResponse/listReturn/*")
    assert_equal [708_021, 855_763, 972_219], entries.map(&:mail_id)
    assert_equal [0, 0, 0], entries.map(&:reference_id)
    assert_equal ["Mail from 04-29-2009: Technical support", "Mail from 09-22-2009: Misc", "Mail from 12-17-2009: Misc"], entries.map(&:subject)
    assert_equal Time.utc(2009, 4, 30, 6, 38, 34), entries[0].date
    # From a trickling IO too, and through each, in document order.
    backends.each do |backend|
      seen = []
      count = Wirebind::XML.each(Wirebind::CodecTestHelpers::TrickleIO.new(xml, seed: 5), History, at: "Envelope/Body/listResponse/listReturn/*",
                                                                                                   references: true, backend: backend) { |h| seen << h }
      assert_equal 3, count
      assert_equal entries, seen
    end
    assert_equal entries[0], decode(xml, History, at: "Envelope/Body/listResponse/listReturn/*")
  end

  def test_without_references_hrefs_are_left_alone
    xml = File.read(shared_path("fixtures", "soap", "multi_ref.xml"))
    entries = Wirebind::XML.decode(xml, [History], at: "Envelope/Body/listResponse/listReturn/*")
    assert_equal [nil, nil, nil], entries.map(&:mail_id)
  end

  def test_shared_nested_and_scalar_references
    xml = doc(<<~XML)
      <resp><return soapenc:arrayType="ns:Issue[3]" xsi:type="soapenc:Array">
        <item href="#a"/><item href="#b"/><item href="#a"/>
      </return></resp>
      <multiRef id="a" soapenc:root="0"><key>A-1</key><votes href="#v1"/><versions><item href="#ver"/><item href="#ver2"/></versions><fix href="#ver"/></multiRef>
      <multiRef id="b" soapenc:root="0"><key>B-2</key><votes>3</votes><versions><item href="#ver2"/></versions></multiRef>
      <multiRef id="v1" soapenc:root="0" xsi:type="xsd:long">42</multiRef>
      <multiRef id="ver" soapenc:root="0"><name>1.0</name></multiRef>
      <multiRef id="ver2" soapenc:root="0"><name>2.0</name></multiRef>
    XML
    issues = decode(xml, [Issue])
    assert_equal %w[A-1 B-2 A-1], issues.map(&:key)
    assert_same issues[0], issues[2]
    assert_equal 42, issues[0].votes
    assert_equal %w[1.0 2.0], issues[0].versions.map(&:name)
    assert_same issues[0].fix, issues[0].versions[0]
    assert_same issues[0].versions[1], issues[1].versions[0]
    assert_equal 3, issues[1].votes
  end

  def test_referent_before_its_reference_is_read_by_its_xsi_type
    xml = doc(<<~XML)
      <resp><return><item href="#a"/></return></resp>
      <multiRef id="n" soapenc:root="0" xsi:type="xsd:int">7</multiRef>
      <multiRef id="a" soapenc:root="0"><key>K</key><votes href="#n"/></multiRef>
    XML
    assert_equal [7], decode(xml, [Issue]).map(&:votes)
  end

  def test_referent_before_its_reference_without_a_known_type_dangles
    xml = doc(<<~XML)
      <resp><return><item href="#a"/></return></resp>
      <multiRef id="n" soapenc:root="0">7</multiRef>
      <multiRef id="a" soapenc:root="0"><key>K</key><votes href="#n"/></multiRef>
    XML
    error = assert_raises(Wirebind::DecodeError) { decode(xml, [Issue]) }
    assert_match(/href="#n" references no element/, error.message)
  end

  def test_root_zero_elements_are_not_results
    xml = doc(<<~XML)
      <Issue><key>inline</key><versions><item href="#v"/></versions></Issue>
      <multiRef id="v" soapenc:root="0"><name>9</name></multiRef>
    XML
    issues = decode(xml, [Issue], at: "Envelope/Body/*")
    assert_equal ["inline"], issues.map(&:key)
    assert_equal ["9"], issues[0].versions.map(&:name)
  end

  def test_single_record_reference
    xml = doc(%(<resp><return><item href="#a"/><item href="#b"/></return></resp>) +
              %(<multiRef id="b"><key>B</key></multiRef><multiRef id="a"><key>A</key></multiRef>))
    assert_equal "A", decode(xml, Issue).key
  end

  class Pair
    include Wirebind::Model
    attribute :first, Version
    attribute :second, Version
    attribute :others, [Version], xml: "others/item"
  end

  # PHP SoapServer writes id on the first copy of a repeated value and href on
  # the later ones, inside the response (every style, literal too).
  def test_href_to_an_element_with_an_id_inside_the_body
    xml = doc(%(<resp><return><first id="ref1"><name>a</name></first><second href="#ref1"/>) +
              %(<others><item href="#ref1"/><item><name>b</name></item></others></return></resp>))
    pair = decode(xml, Pair, at: "Envelope/Body/resp/return")
    assert_equal "a", pair.first.name
    assert_same pair.first, pair.second
    assert_equal %w[a b], pair.others.map(&:name)
    assert_same pair.first, pair.others[0]
    # A reference before the element with its id resolves too.
    xml = doc(%(<resp><return><first href="#ref1"/><second id="ref1"><name>a</name></second></return></resp>))
    pair = decode(xml, Pair, at: "Envelope/Body/resp/return")
    assert_equal %w[a a], [pair.first.name, pair.second.name]
    # Across the records of a list, through each too.
    xml = doc(%(<resp><return><first id="ref1"><name>a</name></first></return><return><second href="#ref1"/></return></resp>))
    assert_equal([["a", nil], [nil, "a"]], decode(xml, [Pair], at: "Envelope/Body/resp/return").map { |p| [p.first&.name, p.second&.name] })
    backends.each do |backend|
      seen = []
      Wirebind::XML.each(xml, Pair, at: "Envelope/Body/resp/return", references: true, backend: backend) { |p| seen << p }
      assert_equal [nil, "a"], [seen[1].first, seen[1].second.name]
    end
    error = assert_raises(Wirebind::DecodeError) do
      decode(doc(%(<resp><return><first id="ref1"><name>a</name></first><second href="#ref2"/></return></resp>)), Pair, at: "Envelope/Body/resp/return")
    end
    assert_match(/href="#ref2"/, error.message)
    # One id on two records: left alone unless an href names it.
    pairs = %(<first id="x"><name>a</name></first><second id="x"><name>b</name></second>)
    pair = decode(doc("<resp><return>#{pairs}</return></resp>"), Pair, at: "Envelope/Body/resp/return")
    assert_equal %w[a b], [pair.first.name, pair.second.name]
    [%(<resp><return>#{pairs}<others><item href="#x"/></others></return></resp>),
     %(<resp><return><others><item href="#x"/></others></return><return>#{pairs}</return></resp>)].each do |body|
      xml = doc(body)
      error = assert_raises(Wirebind::DecodeError) { decode(xml, [Pair], at: "Envelope/Body/resp/return") }
      assert_match(/id="x"/, error.message)
    end
  end

  class SharedLists
    include Wirebind::Model
    attribute :first, [:integer], xml: "first/*"
    attribute :second, [:integer], xml: "second/item"
    attribute :third, [Version], xml: "third/*"
  end

  # SOAP::Lite writes a list held twice as hrefs on the wrappers to one
  # top-level soapenc:Array: its items, not [].
  def test_href_on_a_list_wrapper_to_a_top_level_array
    array = %(<soapenc:Array id="ref-1" soapenc:arrayType="xsd:int[3]" xsi:type="soapenc:Array">) +
            %(<item xsi:type="xsd:int">1</item><item xsi:type="xsd:int">2</item><item>3</item></soapenc:Array>)
    versions = %(<soapenc:Array id="ref-2"><item><name>v1</name></item><item><name>v2</name></item></soapenc:Array>)
    xml = doc(%(<resp><return><first href="#ref-1" soapenc:arrayType="xsd:int[3]" xsi:type="soapenc:Array"/>) +
              %(<second href="#ref-1"></second><third href="#ref-2"/></return></resp>#{array}#{versions}))
    lists = decode(xml, SharedLists, at: "Envelope/Body/resp/return")
    assert_equal [[1, 2, 3], [1, 2, 3], %w[v1 v2]], [lists.first, lists.second, lists.third.map(&:name)]
    assert_same lists.first, lists.second
    error = assert_raises(Wirebind::DecodeError) { decode(doc(%(<resp><return><first href="#ref-9"/></return></resp>#{array})), SharedLists, at: "Envelope/Body/resp/return") }
    assert_match(/href="#ref-9"/, error.message)
  end

  # SOAP 1.2 encoding (Part 2 section 3.1.5): enc:ref="x" (no "#") and enc:id,
  # read like SOAP 1.1's href and id; top-level referents and ids inside the body.
  ENC12 = "http://www.w3.org/2003/05/soap-encoding"

  def test_soap12_enc_ref_and_enc_id
    xml = doc(%(<resp xmlns:enc="#{ENC12}"><return>) +
              %(<item enc:ref="a"/><item enc:ref="b"/><item enc:ref="a"/></return></resp>) +
              %(<e:Issue xmlns:e="urn:x" xmlns:enc="#{ENC12}" enc:id="a"><key>A-1</key><votes enc:ref="v1"/><fix enc:ref="ver"/></e:Issue>) +
              %(<Issue xmlns:enc="#{ENC12}" enc:id="b"><key>B-2</key><versions><item enc:ref="ver"/></versions></Issue>) +
              %(<v xmlns:enc="#{ENC12}" enc:id="v1" xsi:type="xsd:int">42</v>) +
              %(<Version xmlns:enc="#{ENC12}" enc:id="ver"><name>1.0</name></Version>))
    issues = decode(xml, [Issue])
    assert_equal %w[A-1 B-2 A-1], issues.map(&:key)
    assert_same issues[0], issues[2]
    assert_equal 42, issues[0].votes
    assert_same issues[0].fix, issues[1].versions[0]
    assert_equal "1.0", issues[0].fix.name
    # An enc:id inside the body, referenced later (as PHP writes over SOAP 1.2).
    xml = doc(%(<resp xmlns:enc="#{ENC12}"><return><first enc:id="r1"><name>a</name></first><second enc:ref="r1"/></return></resp>))
    pair = decode(xml, Pair, at: "Envelope/Body/resp/return")
    assert_same pair.first, pair.second
    assert_equal "a", pair.second.name
    # A missing target is a DecodeError naming it.
    xml = doc(%(<resp xmlns:enc="#{ENC12}"><return><item enc:ref="nowhere"/></return></resp>))
    error = assert_raises(Wirebind::DecodeError) { decode(xml, [Issue]) }
    assert_match(/nowhere/, error.message)
    # enc:ref in SOAP 1.1's encoding namespace, or without one, is not a reference.
    xml = doc(%(<resp><return><first id="r1"><name>a</name></first><second soapenc:ref="r1"/></return></resp>))
    assert_nil decode(xml, Pair, at: "Envelope/Body/resp/return").second.name
  end

  def test_dangling_reference
    xml = doc(%(<resp><return><item href="#nowhere"/></return></resp>))
    error = assert_raises(Wirebind::DecodeError) { decode(xml, [Issue]) }
    assert_match(/nowhere/, error.message)
  end

  def test_cycles_are_errors
    xml = doc(%(<resp><return><item href="#a"/></return></resp>) +
              %(<multiRef id="a"><name>a</name><next href="#b"/></multiRef><multiRef id="b"><name>b</name><next href="#a"/></multiRef>))
    error = assert_raises(Wirebind::DecodeError) { decode(xml, [Node]) }
    assert_match(/cycle/, error.message)
    self_loop = doc(%(<resp><return><item href="#a"/></return></resp><multiRef id="a"><name>a</name><next href="#a"/></multiRef>))
    assert_raises(Wirebind::DecodeError) { decode(self_loop, [Node]) }
  end

  def test_duplicate_ids
    xml = doc(%(<resp><return><item href="#a"/></return></resp><multiRef id="a"><key>1</key></multiRef><multiRef id="a"><key>2</key></multiRef>))
    assert_raises(Wirebind::DecodeError) { decode(xml, [Issue]) }
  end

  def test_max_references
    items = (1..20).map { |i| %(<item href="#r#{i}"/>) }.join
    refs = (1..20).map { |i| %(<multiRef id="r#{i}"><key>#{i}</key></multiRef>) }.join
    xml = doc("<resp><return>#{items}</return></resp>#{refs}")
    assert_equal 20, decode(xml, [Issue], max_references: 20).size
    error = assert_raises(Wirebind::DecodeError) { decode(xml, [Issue], max_references: 19) }
    assert_match(/max_references/, error.message)
    assert_raises(ArgumentError) { decode(xml, [Issue], max_references: 0) }
  end

  # each yields a record as soon as it and everything it references were read
  # (depth-first multiRefs), not at the end of the document; a shared nested
  # referent stays the same object across records yielded apart.
  def test_each_yields_records_once_complete_and_keeps_shared_referents
    xml = doc(<<~XML)
      <resp><return><item href="#a"/><item href="#b"/><item href="#c"/></return></resp>
      <multiRef id="a" soapenc:root="0"><key>A</key><votes href="#n"/><fix href="#v"/></multiRef>
      <multiRef id="v" soapenc:root="0"><name>1.0</name></multiRef>
      <multiRef id="n" soapenc:root="0" xsi:type="xsd:long">4</multiRef>
      <multiRef id="b" soapenc:root="0"><key>B</key><votes href="#n"/><fix href="#v"/></multiRef>
      <multiRef id="c" soapenc:root="0"><key>C</key><versions><item href="#v"/><item href="#w"/></versions></multiRef>
      <multiRef id="w" soapenc:root="0"><name>2.0</name></multiRef>
    XML
    backends.each do |backend|
      issues = []
      count = Wirebind::XML.each(xml, Issue, at: AT, references: true, backend: backend) { |issue| issues << issue }
      assert_equal 3, count
      assert_equal %w[A B C], issues.map(&:key)
      assert_equal [4, 4, nil], issues.map(&:votes)
      assert_same issues[0].fix, issues[1].fix
      assert_same issues[0].fix, issues[2].versions[0]
      assert_equal %w[1.0 2.0], issues[2].versions.map(&:name)
    end
  end

  def test_each_yields_before_the_document_ends
    items = (0...50).map { |i| %(<item href="#i#{i}"/>) }.join
    refs = (0...50).map do |i|
      %(<multiRef id="i#{i}" soapenc:root="0"><key>K#{i}</key><fix href="#v#{i}"/></multiRef>) +
        %(<multiRef id="v#{i}" soapenc:root="0"><name>#{i}</name></multiRef>)
    end.join
    xml = doc("<resp><return>#{items}</return></resp>#{refs}")
    backends.each do |backend|
      io = Wirebind::CodecTestHelpers::TrickleIO.new(xml, seed: random_seed)
      positions = []
      Wirebind::XML.each(io, Issue, at: AT, references: true, backend: backend) { positions << io.pos }
      assert_equal 50, positions.size
      assert_operator positions[0], :<, xml.bytesize / 2, "#{backend}: the first record waited for the document's end"
    end
  end

  # A record yielded and let go is taken back by a later reference however
  # long ago: among the last RECENT let go as it is, older from the spill; the
  # same object while the caller holds it, else an equal one. each and decode
  # read the document alike.
  def test_each_later_references_to_records_let_go
    xml = doc(<<~XML)
      <resp><return><item href="#a"/><item href="#b"/></return></resp>
      <multiRef id="a" soapenc:root="0"><name>a</name></multiRef>
      <multiRef id="b" soapenc:root="0"><name>b</name><next href="#a"/></multiRef>
    XML
    count = Wirebind::XML::References::RECENT + 1000
    items = (0...count).map { |i| %(<item href="#r#{i}"/>) }.join
    refs = (0...count).map { |i| %(<multiRef id="r#{i}"><name>#{i}</name><next href="#c#{i}"/></multiRef><multiRef id="c#{i}"><name>c#{i}</name></multiRef>) }.join
    tail = %(<multiRef id="tail"><name>tail</name><next href="#r0"/></multiRef>)
    old = doc(%(<resp><return>#{items}<item href="#tail"/></return></resp>#{refs}#{tail}))
    expected = decode(old, [Node])
    assert_equal %w[0 c0], [expected.last.next_node.name, expected.last.next_node.next_node.name]
    backends.each do |backend|
      nodes = []
      Wirebind::XML.each(xml, Node, at: AT, references: true, backend: backend) { |node| nodes << node }
      assert_equal %w[a b], nodes.map(&:name)
      assert_same nodes[0], nodes[1].next_node
      # Kept by the caller: the same object.
      nodes = []
      assert_equal count + 1, Wirebind::XML.each(old, Node, at: AT, references: true, backend: backend) { |node| nodes << node }
      assert_equal expected, nodes
      assert_same nodes[0], nodes.last.next_node
      # Dropped by the caller: an equal one (read back when the GC took the original).
      last = nil
      Wirebind::XML.each(old, Node, at: AT, references: true, backend: backend) do |node|
        last = node
        GC.start if node.name == "4500"
      end
      assert_equal expected.last, last
    end
  end

  # Records Marshal cannot dump (a model class without a name) stay in memory
  # instead of going to the spill file: still taken back.
  def test_each_keeps_what_it_cannot_spill
    anonymous = Class.new { include Wirebind::Model }
    anonymous.attribute :name, :string
    anonymous.attribute :next_node, anonymous, xml: "next"
    count = Wirebind::XML::References::RECENT + 1000
    items = (0...count).map { |i| %(<item href="#r#{i}"/>) }.join
    refs = (0...count).map { |i| %(<multiRef id="r#{i}"><name>#{i}</name></multiRef>) }.join
    xml = doc(%(<resp><return>#{items}<item href="#tail"/></return></resp>#{refs}<multiRef id="tail"><name>tail</name><next href="#r0"/></multiRef>))
    backends.each do |backend|
      last = nil
      Wirebind::XML.each(xml, anonymous, at: AT, references: true, backend: backend) { |node| last = node }
      assert_equal %w[tail 0], [last.name, last.next_node.name]
    end
  end

  # No temporary directory for the spill file: a DecodeError saying so.
  def test_spill_file_errors
    Dir.stub(:tmpdir, File.join(Dir.tmpdir, "wirebind-no-such-directory")) do
      error = assert_raises(Wirebind::DecodeError) { Wirebind::XML::References::Spill.new }
      assert_match(/each could not keep the multiRefs it let go in a temporary file \(Errno::ENOENT/, error.message)
    end
  end

  # What the spill writes and reads back: a copy whose referents are their ids,
  # made the same objects again when read back.
  def test_spill_copies_keep_shared_referents_shared
    spill_class = Wirebind::XML::References::Spill
    shared = Version.new(name: "1.0")
    other = Version.new(name: "2.0")
    issue = Issue.new(key: "K", votes: 4, versions: [shared, other, shared], fix: shared)
    copy = spill_class.copy(issue, { shared => "v" }.compare_by_identity)
    assert_equal [spill_class::Ref.new("v")] * 2, [copy.fix, copy.versions[0]]
    assert_same issue.key, copy.key
    refute_same other, copy.versions[1]
    assert_same shared, issue.fix # the original is untouched
    back = Marshal.load(Marshal.dump(copy))
    spill_class.resolve(back, { "v" => shared })
    assert_equal issue, back
    assert_same shared, back.fix
    assert_same shared, back.versions[2]
  end

  # A QName read back from the spill file (a Marshal dump) is frozen, as every QName is.
  def test_a_qname_read_back_from_the_spill_is_frozen
    qname = Wirebind::QName.new("urn:x", "code", prefix: "x")
    back = Marshal.load(Marshal.dump([qname]))[0]
    assert_predicate back, :frozen?
    assert_equal [qname, "x"], [back, back.prefix]
    assert_predicate back.local_name, :frozen?
  end

  # One referent shared by the first and the last of many records: each and
  # decode agree, and the shared one is one object. Past max_references
  # referents let go, each says so.
  def test_each_reference_from_the_last_record_to_the_first
    count = 6000
    items = (0...count).map { |i| %(<item href="#i#{i}"/>) }.join
    refs = (0...count).map do |i|
      fix = i.zero? || i == count - 1 ? "#shared" : "#v#{i}"
      extra = i == count - 1 ? %(<versions><item href="#v1"/><item href="#shared"/></versions>) : ""
      %(<multiRef id="i#{i}"><key>K#{i}</key><votes href="#n"/><fix href="#{fix}"/>#{extra}</multiRef>) +
        (i.zero? ? %(<multiRef id="shared"><name>shared</name></multiRef>) : %(<multiRef id="v#{i}"><name>#{i}</name></multiRef>))
    end.join
    xml = doc(%(<resp><return>#{items}</return></resp><multiRef id="n" xsi:type="xsd:long">7</multiRef>#{refs}))
    expected = decode(xml, [Issue])
    assert_same expected.first.fix, expected.last.fix
    backends.each do |backend|
      issues = []
      Wirebind::XML.each(xml, Issue, at: AT, references: true, backend: backend) { |issue| issues << issue }
      assert_equal expected, issues
      assert_same issues.first.fix, issues.last.fix
      assert_same issues.first.fix, issues.last.versions[1]
      assert_same issues[1].fix, issues.last.versions[0]
      error = assert_raises(Wirebind::DecodeError) do
        Wirebind::XML.each(xml, Issue, at: AT, references: true, backend: backend, max_references: 6100) { |issue| issue }
      end
      assert_equal "each keeps more than 6100 multiRefs let go, for later references to take back (max_references)", error.message
    end
  end

  def test_each_cycles_dangling_and_max_references
    cycle = doc(%(<resp><return><item href="#z"/><item href="#a"/></return></resp>) +
                %(<multiRef id="z"><name>z</name></multiRef>) +
                %(<multiRef id="a"><name>a</name><next href="#b"/></multiRef><multiRef id="b"><name>b</name><next href="#a"/></multiRef>))
    dangling = doc(%(<resp><return><item href="#a"/></return></resp><multiRef id="a"><name>a</name><next href="#gone"/></multiRef>))
    items = (1..20).map { |i| %(<item href="#r#{i}"/>) }.join
    many = doc("<resp><return>#{items}</return></resp>#{(1..20).map { |i| %(<multiRef id="r#{i}"><name>#{i}</name></multiRef>) }.join}")
    backends.each do |backend|
      each = ->(xml, **options) { Wirebind::XML.each(xml, Node, at: AT, references: true, backend: backend, **options) { |n| n } }
      assert_match(/cycle/, assert_raises(Wirebind::DecodeError) { each.call(cycle) }.message)
      assert_match(/gone/, assert_raises(Wirebind::DecodeError) { each.call(dangling) }.message)
      assert_equal 20, each.call(many, max_references: 20)
      assert_match(/max_references/, assert_raises(Wirebind::DecodeError) { each.call(many, max_references: 19) }.message)
    end
  end

  # A chain of 20,000 references, each referent pointing at the next, resolved
  # and checked for cycles without recursion, in time linear in its length.
  def test_long_chains_neither_recurse_nor_slow_down
    chain = lambda do |n|
      refs = (0...n).map { |i| %(<multiRef id="n#{i}"><name>#{i}</name>#{%(<next href="#n#{i + 1}"/>) if i + 1 < n}</multiRef>) }.join
      doc(%(<resp><return><item href="#n0"/></return></resp>#{refs}))
    end
    backends.each do |backend|
      raw = ->(xml) { Wirebind::XML.decode(xml, [Node], at: AT, references: true, backend: backend) }
      node = raw.call(chain.call(20_000)).first
      names = []
      while node
        names << node.name
        node = node.next_node
      end
      assert_equal (0...20_000).map(&:to_s), names
      assert_linear_time("a chain of references (#{backend})", 2_000, runs: 3) do |n|
        xml = chain.call(n)
        -> { raw.call(xml) }
      end
    end
  end
end

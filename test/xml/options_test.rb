# frozen_string_literal: true

require_relative "xml_test_support"

# The options of decode/each/check: limits, DTD policy, backend choice, inputs.
class XMLOptionsTest < Minitest::Test
  include XMLTestHelpers
  include XMLTestModels

  def attack(name)
    File.read(shared_path("fixtures", "xml_attacks", name))
  end

  def nested(depth, leaf: false)
    if leaf
      ("<a>" * (depth - 1)) + "<a/>" + ("</a>" * (depth - 1))
    else
      ("<a>" * depth) + ("</a>" * depth)
    end
  end

  # ---- max_depth -----------------------------------------------------------------

  def test_max_depth_is_the_deepest_nesting_accepted
    [1, 2, 10, 100].each do |limit|
      assert XML.check(nested(limit), max_depth: limit)
      assert XML.check(nested(limit, leaf: true), max_depth: limit), "a leaf at the limit"
      assert_raises(Wirebind::LimitError, limit.to_s) { XML.check(nested(limit + 1), max_depth: limit) }
      assert_raises(Wirebind::LimitError, "leaf past #{limit}") { XML.check(nested(limit + 1, leaf: true), max_depth: limit) }
    end
  end

  def test_max_depth_defaults_to_one_thousand_and_twenty_four
    assert XML.check(nested(1024))
    assert XML.check(nested(1024, leaf: true))
    error = assert_raises(Wirebind::LimitError) { XML.check(nested(1025)) }
    assert_match(/1024/, error.message)
    assert_raises(Wirebind::LimitError) { XML.check(nested(1025, leaf: true)) }
    assert XML.check(nested(5000), max_depth: 5000), "the limit can be raised"
  end

  def test_max_depth_applies_to_decode_and_each_and_ignored_subtrees
    deep_junk = "<Issue><key>k</key>#{nested(50)}</Issue>"

    assert_equal "k", XML.decode(deep_junk, Issue, max_depth: 51).key
    assert_raises(Wirebind::LimitError) { XML.decode(deep_junk, Issue, max_depth: 50) }
    assert_raises(Wirebind::LimitError) { XML.each(deep_junk, Issue, max_depth: 50) { nil } }
    assert_raises(Wirebind::LimitError) { Issue.from_xml(deep_junk, max_depth: 50) }
    assert_raises(Wirebind::LimitError) { XML.decode(TrickleIO.new(deep_junk), Issue, max_depth: 50) }
  end

  def test_a_very_deep_document_fails_fast_and_cleanly
    xml = "<a>" * 200_000

    assert_raises(Wirebind::LimitError) { XML.check(xml) }
    assert_raises(Wirebind::LimitError) { XML.decode(StringIO.new(xml), Issue) }
  end

  # ---- max_token_size -------------------------------------------------------------------

  def test_max_token_size_limits_tags_comments_pis_and_doctypes
    big = "x" * 5000
    [
      "<a b='#{big}'/>",
      "<a><b c='#{big}'>t</b></a>",
      "<a#{big}/>",
      "<a><!--#{big}--></a>",
      "<a><?pi #{big}?></a>",
      "<!--#{big}--><a/>"
    ].each do |xml|
      assert XML.check(xml), "#{xml[0, 20]} is fine under the default limit"
      [xml, StringIO.new(xml), TrickleIO.new(xml)].each do |input|
        assert_raises(Wirebind::LimitError, "#{xml[0, 20]} as #{input.class}") { XML.check(input, max_token_size: 1000) }
      end
    end
  end

  def test_max_token_size_lets_smaller_tokens_through
    xml = "<a b='#{'x' * 900}'><!--#{'y' * 900}--></a>"
    [xml, StringIO.new(xml), TrickleIO.new(xml)].each do |input|
      assert XML.check(input, max_token_size: 1000)
    end
  end

  def test_long_text_read_in_pieces_is_one_value_for_max_token_size
    # Text is read in pieces, but the value assembled is what max_token_size bounds.
    text = "z" * 300_000

    assert_raises(Wirebind::LimitError) { XML.decode(StringIO.new("<a>#{text}</a>"), :string, max_token_size: 1000) }
    assert_equal text, XML.decode(StringIO.new("<a>#{text}</a>"), :string, max_token_size: 300_000)
  end

  # ---- dtd: ---------------------------------------------------------------------------------

  def test_doctypes_are_refused_by_default
    ["<!DOCTYPE a><a/>", "<!DOCTYPE a [<!ENTITY e 'x'>]><a>&e;</a>", attack("dtd.xml"), attack("xmlbomb.xml"),
     attack("external.xml"), attack("quadratic.xml"), attack("cyclic.xml")].each do |xml|
      error = assert_raises(Wirebind::ParseError, xml[0, 30]) { XML.check(xml) }
      assert_instance_of Wirebind::ParseError, error
      assert_match(/DOCTYPE/, error.message)
      assert_raises(Wirebind::ParseError) { XML.decode(xml, :string) }
      assert_raises(Wirebind::ParseError) { XML.check(xml, dtd: :reject) }
    end
  end

  def test_dtd_internal_accepts_a_doctype_and_never_reads_an_external_one
    html = attack("dtd.xml")
    body = XML.decode(html, :string, at: "html/body", dtd: :internal)

    assert_equal "text", body
  end

  def test_dtd_internal_expands_internal_entities
    xml = <<~XML
      <!DOCTYPE Issue [
        <!ENTITY proj "PROJ">
        <!ENTITY num "4">
        <!ENTITY amp2 "&#38;#38;">
      ]>
      <Issue lang="&proj;-x"><key>&proj;-1</key><votes>&num;2</votes><labels/><label>a&amp2;b</label></Issue>
    XML
    issue = decode_everywhere(xml, Issue, dtd: :internal)

    assert_equal "PROJ-1", issue.key
    assert_equal "PROJ-x", issue.lang
    assert_equal 42, issue.votes
    assert_equal ["a&b"], issue.labels
  end

  def test_entities_with_markup
    xml = %(<!DOCTYPE Issue [<!ENTITY k "<key>K</key><label>x</label>">]><Issue>&k;<votes>1</votes>&k;</Issue>)
    issue = XML.decode(xml, Issue, dtd: :internal)

    assert_equal "K", issue.key
    assert_equal %w[x x], issue.labels
    assert_equal 1, issue.votes
  end

  def test_an_entity_used_twice_gives_the_same_text_each_time
    xml = %(<!DOCTYPE r [<!ENTITY a "x">]><r><k>&a;y</k><k>&a;</k><k>z&a;</k><k>&a;&a;</k></r>)

    assert_equal %w[xy x zx xx], XML.decode(xml, [:string], at: "r/k", dtd: :internal)
  end

  def test_the_billion_laughs_fixture_expands_exactly
    bomb = attack("xmlbomb.xml")
    text = XML.decode(bomb, :string, dtd: :internal)

    assert_equal "1234567890" * 64, text
  end

  def test_max_entity_expansions_counts_references
    bomb = attack("xmlbomb.xml") # &c; -> 8 x &b; -> 64 x &a;: 73 references

    assert XML.check(bomb, dtd: :internal, max_entity_expansions: 73)
    error = assert_raises(Wirebind::LimitError) { XML.check(bomb, dtd: :internal, max_entity_expansions: 72) }
    assert_match(/max_entity_expansions \(72\)/, error.message)
  end

  def test_max_entity_depth_counts_nesting
    bomb = attack("xmlbomb.xml") # c > b > a: three levels

    assert XML.check(bomb, dtd: :internal, max_entity_depth: 3)
    assert_raises(Wirebind::LimitError) { XML.check(bomb, dtd: :internal, max_entity_depth: 2) }
  end

  def test_max_entity_bytes
    bomb = attack("xmlbomb.xml") # 640 bytes of text in the end

    assert XML.check(bomb, dtd: :internal, max_entity_bytes: 100_000)
    error = assert_raises(Wirebind::LimitError) { XML.check(bomb, dtd: :internal, max_entity_bytes: 100) }
    assert_match(/max_entity_bytes/, error.message)
  end

  def test_the_default_limits_stop_blow_ups
    quadratic = attack("quadratic.xml")
    error = assert_raises(Wirebind::LimitError) { XML.check(quadratic, dtd: :internal) }
    assert_match(/max_entity/, error.message)
    laughs = %(<!DOCTYPE r [<!ENTITY a "#{'x' * 100}">) +
             (1..9).map { |i| %(<!ENTITY #{(97 + i).chr} "#{"&#{(96 + i).chr};" * 10}">) }.join + "]><r>&j;</r>"
    assert_raises(Wirebind::LimitError) { XML.check(laughs, dtd: :internal) }
    assert_raises(Wirebind::LimitError) { XML.decode(laughs, :string, dtd: :internal) }
  end

  def test_external_entities_are_never_read
    [attack("external.xml"), attack("external_file.xml"),
     %(<!DOCTYPE r [<!ENTITY e SYSTEM "/etc/passwd">]><r>&e;</r>),
     %(<!DOCTYPE r [<!ENTITY e PUBLIC "-//x//y" "http://example.com/e.xml">]><r>&e;</r>),
     %(<!DOCTYPE r [<!ENTITY e SYSTEM "/etc/passwd">]><r a="&e;"/>)].each do |xml|
      error = assert_raises(Wirebind::ParseError, xml) { XML.check(xml, dtd: :internal) }
      assert_match(/external|entity/, error.message)
      refute_kind_of Wirebind::LimitError, error
    end
  end

  def test_undeclared_entities_are_errors
    error = assert_raises(Wirebind::ParseError) { XML.check(%(<!DOCTYPE r [<!ENTITY a "x">]><r>&b;</r>), dtd: :internal) }
    assert_match(/'b'/, error.message)
    # An external DTD might declare it, but it is never read.
    assert_raises(Wirebind::ParseError) { XML.check(%(<!DOCTYPE r SYSTEM "r.dtd"><r>&b;</r>), dtd: :internal) }
    assert_raises(Wirebind::ParseError) { XML.check(%(<r>&b;</r>), dtd: :internal) }
    assert_raises(Wirebind::ParseError) { XML.check(%(<r a="&b;"/>), dtd: :internal) }
  end

  def test_cyclic_entities_are_errors
    assert_raises(Wirebind::ParseError) { XML.check(attack("cyclic.xml"), dtd: :internal) }
    assert_raises(Wirebind::ParseError) { XML.check(%(<!DOCTYPE r [<!ENTITY a "&a;">]><r>&a;</r>), dtd: :internal) }
    assert_raises(Wirebind::ParseError) { XML.check(%(<!DOCTYPE r [<!ENTITY a "&a;">]><r x="&a;"/>), dtd: :internal) }
  end

  def test_internal_parameter_entities
    xml = %(<!DOCTYPE r [<!ENTITY % decl "<!ENTITY e 'from-pe'>"> %decl;]><r>&e;</r>)

    assert_equal "from-pe", XML.decode(xml, :string, dtd: :internal)
  end

  def test_attribute_defaults_from_the_internal_subset
    xml = %(<!DOCTYPE Issue [<!ATTLIST Issue lang CDATA "de">]><Issue><key>k</key></Issue>)

    assert_equal "de", XML.decode(xml, Issue, dtd: :internal).lang
    assert_equal "fr", XML.decode(xml.sub("<Issue>", %(<Issue lang="fr">)), Issue, dtd: :internal).lang
  end

  def test_predefined_entities_need_no_dtd
    assert_equal %(<>&'"), XML.decode("<a>&lt;&gt;&amp;&apos;&quot;</a>", :string)
  end

  def test_a_doctype_after_the_root_is_an_error_under_any_policy
    assert_raises(Wirebind::ParseError) { XML.check("<a/><!DOCTYPE a>", dtd: :internal) }
    assert_raises(Wirebind::ParseError) { XML.check("<!DOCTYPE a><!DOCTYPE a><a/>", dtd: :internal) }
  end

  # ---- backend: -------------------------------------------------------------------------------

  def test_backend_pure
    xml = "<Issue><key>k</key></Issue>"

    assert_equal XML.decode(xml, Issue), XML.decode(xml, Issue, backend: :pure)
    assert_equal XML.encode(Issue.new(key: "k")), XML.encode(Issue.new(key: "k"), backend: :pure)
    assert_equal ["k"], XML.each("<l>#{xml}</l>", Issue, backend: :pure).map(&:key)
  end

  def test_backend_native_only_when_built
    xml = "<Issue><key>k</key></Issue>"
    if Wirebind.backend == :native
      assert_equal XML.decode(xml, Issue, backend: :pure), XML.decode(xml, Issue, backend: :native)
    else
      assert_raises(ArgumentError) { XML.decode(xml, Issue, backend: :native) }
      assert_raises(ArgumentError) { XML.encode(Issue.new, backend: :native) }
    end
    assert_includes %i[pure native], Wirebind.backend
  end

  # The same checks, and messages, as JSON's front door (Wirebind::Options).
  def test_options_are_checked_and_named
    xml = "<Issue><key>k</key></Issue>"

    assert_error(ArgumentError, /\Astrict: must be true or false, not "no"\z/) { XML.decode(xml, Issue, strict: "no") }
    assert_error(ArgumentError, /\Astrict: must be true or false, not nil\z/) { XML.each(xml, Issue, strict: nil) { nil } }
    assert_error(ArgumentError, /\Aio: must be nil or answer write, not Integer\z/) { XML.encode(Issue.new, io: 5) }
    assert_error(ArgumentError, /\Adeclaration: must be true or false, not 1\z/) { XML.encode(Issue.new, declaration: 1) }
    assert_error(ArgumentError, /\Anil: must be one of :omit, :xsi, not :none\z/) { XML.encode(Issue.new, nil: :none) }
    assert_error(ArgumentError, /\Amax_depth: must be a positive Integer, not 0\z/) { XML.decode(xml, Issue, max_depth: 0) }
    assert_error(ArgumentError, /\Adtd: must be one of :internal, :reject, not :all\z/) { XML.check(xml, dtd: :all) }
    assert_error(ArgumentError, /\Abackend: must be one of :pure, :native, not :fast\z/) { XML.decode(xml, Issue, backend: :fast) }
    assert_error(ArgumentError, /\Aunknown option: max_size\z/) { XML.decode(xml, Issue, max_size: 10) }
  end

  # ---- inputs -------------------------------------------------------------------------------------

  def test_ios_are_read_in_64_kib_chunks
    xml = "<r>#{'<item><key>k</key></item>' * 10_000}</r>"
    partial = TrickleIO.new(xml, max: 70_000)
    XML.decode(partial, [Issue], at: "r/item")

    assert_equal [64 * 1024], partial.requested.uniq
    read_only = ReadOnlyIO.new(xml, max: 70_000)
    XML.decode(read_only, [Issue], at: "r/item")
    assert_equal [64 * 1024], read_only.requested.uniq
  end

  def test_an_io_is_read_to_its_end_only_as_needed
    xml = "<r><item><key>k</key></item></r>"
    io = TrickleIO.new(xml)

    assert_equal 1, XML.decode(io, [Issue], at: "r/item").size
    assert_predicate io, :eof?
  end

  def test_check
    assert_same true, XML.check("<a/>")
    assert_same true, XML.check(StringIO.new("<a><b/>text</a>"))
    assert_same true, XML.check(TrickleIO.new(attack("simple-ns.xml")))
    assert_same true, XML.check(attack("simple.xml"))
    assert_raises(Wirebind::ParseError) { XML.check("<a>") }
    assert_raises(ArgumentError) { XML.check(42) }
  end

  def test_check_is_about_well_formedness_only
    assert XML.check("<Issue><votes>many</votes></Issue>")
    assert XML.check("<anything xmlns='urn:x'><p:x xmlns:p='urn:p' p:a='1' a='2'/></anything>")
  end
end

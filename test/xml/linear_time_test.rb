# frozen_string_literal: true

require "test_helper"
require "stringio"
require_relative "../support/linear_time"
require_relative "../support/codec_test_helpers"

# Hostile shapes of XML decode in time linear in their size, on both backends
# (issue 11): attribute names crafted to collide in a hash, many attributes, many
# namespace declarations in scope, long names, a big text node in a String.
class XMLLinearTimeTest < Minitest::Test
  include Wirebind::LinearTime

  BACKENDS = Wirebind.backend == :native ? %i[pure native] : %i[pure]

  # Attribute names whose FNV-1a hashes (the native tokenizer's duplicate check
  # before it was keyed) agree in their low 16 bits: the old table (linear
  # probing, 2n slots, n <= 32768 here) put them all in one cluster. The low bits
  # of an FNV-1a state depend only on the low bits of the state before and the
  # byte, so a name made of blocks that each lead to the same low state, whatever
  # the choice, collides with every other such name: two choices per block,
  # 2**k names of k blocks.
  module FloodNames
    FNV_PRIME = 16_777_619
    FNV_BASIS = 2_166_136_261
    MASK = 0xFFFF

    module_function

    def fnv(state, bytes)
      bytes.each_byte { |b| state = ((state ^ b) * FNV_PRIME) & 0xFFFF_FFFF }
      state
    end

    # Two different three-letter blocks that lead from +state+ to the same low bits.
    def colliding_blocks(state)
      seen = {}
      letters = ("a".."z").to_a
      letters.product(letters, letters) do |chars|
        block = chars.join
        low = fnv(state, block) & MASK
        return [seen[low], block] if seen[low]

        seen[low] = block
      end
      raise "no colliding blocks"
    end

    # 2**bits names, all colliding in the low 16 bits of the old hash.
    def names(bits)
      state = fnv(FNV_BASIS, "a")
      blocks = Array.new(bits) do
        pair = colliding_blocks(state)
        state = fnv(state, pair[0]) & MASK
        pair
      end
      blocks.inject(["a"]) { |names, (x, y)| names.flat_map { |n| [n + x, n + y] } }
    end
  end

  # The native backend is quick enough that one call is too short to time well:
  # it is timed over several calls (the same number at N and 4N).
  def check_all(backend, xml, io: false)
    calls = backend == :native && !io ? 16 : 1
    -> { calls.times { Wirebind::XML.check(io ? StringIO.new(xml) : xml, backend: backend) } }
  end

  def test_flood_names_collide_under_the_old_hash
    names = FloodNames.names(11)
    assert_equal 2048, names.uniq.size
    lows = names.map { |n| FloodNames.fnv(FloodNames::FNV_BASIS, n) & FloodNames::MASK }.uniq
    assert_equal 1, lows.size, "every name lands in the same slot of the old table"
  end

  def test_attribute_names_crafted_to_collide
    BACKENDS.each do |backend|
      assert_linear_time("colliding attribute names (#{backend})", 2048) do |n|
        check_all(backend, tag_with(FloodNames.names(n.bit_length - 1)))
      end
    end
  end

  def test_many_attributes_and_many_prefixed_attributes
    BACKENDS.each do |backend|
      assert_linear_time("many attributes (#{backend})", 2000) do |n|
        check_all(backend, tag_with(Array.new(n) { |i| "p:a#{i}" }, 'xmlns:p="urn:p"'))
      end
    end
  end

  # An <!ATTLIST> of n attributes applied to a tag of n attributes (dtd: :internal;
  # the native backend hands DOCTYPEs to pure): each rule found by name, not by a
  # scan of the tag (n * n).
  def test_an_attlist_of_many_attributes_on_a_tag_of_many
    assert_linear_time("ATTLIST rules against many attributes", 1000) do |n|
      rules = Array.new(n) { |i| "a#{i} NMTOKEN #IMPLIED" }.join(" ")
      xml = "<!DOCTYPE r [<!ATTLIST r #{rules}>]>#{tag_with(Array.new(n) { |i| "a#{i}" })}"
      -> { Wirebind::XML.check(xml, dtd: :internal, backend: :pure) }
    end
  end

  # n declarations on the root, n elements using them, then n elements that each
  # declare one more (a copy of everything in scope per element would be n * n).
  def namespaces_document(n)
    declarations = Array.new(n) { |i| %( xmlns:p#{i}="urn:#{i}") }.join
    uses = Array.new(n) { |i| %(<p#{i}:e p#{n - 1 - i}:a="v"/>) }.join
    nested = Array.new(n) { |i| %(<q:e xmlns:q="urn:q#{i}"/>) }.join
    "<root#{declarations}>#{uses}#{nested}</root>"
  end

  def test_many_namespace_declarations_in_scope
    BACKENDS.each do |backend|
      assert_linear_time("namespace declarations (#{backend})", 2000) { |n| check_all(backend, namespaces_document(n)) }
    end
  end

  # Past the caches at both sizes (1 and 4 MB): a name that fits in L2 is no measure.
  def test_long_names
    BACKENDS.each do |backend|
      assert_linear_time("long names (#{backend})", 1024 * 1024) do |n|
        name = "n#{'x' * n}"
        check_all(backend, %(<#{name} #{name}="v" p:#{name}="w" xmlns:p="urn:p"><p:#{name} xmlns:p="urn:q"/></#{name}>))
      end
    end
  end

  # Issue 11, item 10: a String input is at least as fast as the same bytes read
  # through an IO (pure used to take ten times longer on a big text node).
  def test_big_text_node_from_a_string_is_as_fast_as_from_an_io
    klass = Class.new do
      include Wirebind::Model
      xml_root "doc"
      attribute :body, :string
    end
    xml = "<doc><body>#{'x' * (8 * 1024 * 1024)}</body></doc>"
    BACKENDS.each do |backend|
      assert_equal 8 * 1024 * 1024, Wirebind::XML.decode(xml, klass, backend: backend).body.bytesize
      string = Array.new(3) { GC.start; cpu_time { Wirebind::XML.decode(xml, klass, backend: backend) } }.min
      io = Array.new(3) { GC.start; cpu_time { Wirebind::XML.decode(StringIO.new(xml), klass, backend: backend) } }.min
      assert_operator string, :<, io * 1.5 + 0.005, format("%s: String %.3fs, StringIO %.3fs", backend, string, io)
    end
  end

  def test_text_runs_grow_linearly
    BACKENDS.each do |backend|
      assert_linear_time("text runs (#{backend})", 2 * 1024 * 1024) do |n|
        check_all(backend, "<doc>#{'x' * n}&amp;#{'y' * n}<!--#{'c' * n}--></doc>")
      end
    end
  end

  # A comment, CDATA section or PI read in many 64 KiB pieces: pure searched the
  # whole token again, and copied it, on every read.
  def test_tokens_straddling_many_reads_grow_linearly
    BACKENDS.each do |backend|
      assert_linear_time("tokens across reads (#{backend})", 1024 * 1024) do |n|
        check_all(backend, "<doc><!--#{'c' * n}--><![CDATA[#{'d' * n}]]><?pi #{'p' * n}?></doc>", io: true)
      end
    end
  end

  # A token cut across many small reads (1 to 8 bytes each): pure searched a start
  # tag, a reference and a DOCTYPE again from their start after every read.
  def test_tokens_trickling_in_a_few_bytes_per_read_grow_linearly
    documents = {
      "many attributes" => ->(n) { tag_with(Array.new(n) { |i| "a#{i}" }) },
      "long attribute value" => ->(n) { %(<r a="#{'v' * (8 * n)}" b='#{'w' * (8 * n)}'/>) },
      "long element name" => ->(n) { "<#{'n' * (8 * n)}></#{'n' * (8 * n)}>" },
      "long entity reference" => ->(n) { %(<!DOCTYPE r [<!ENTITY #{'e' * (4 * n)} "x">]><r>&#{'e' * (4 * n)};</r>) },
      "big internal subset" => lambda { |n|
        declarations = Array.new(n / 8) { |i| %(<!ENTITY e#{i} "]>x"><!-- ]> --><?pi ]>?>) }.join
        %(<!DOCTYPE r SYSTEM "a]>" [#{declarations}]><r/>)
      }
    }
    BACKENDS.each do |backend|
      documents.each do |shape, document|
        assert_linear_time("#{shape} trickling in (#{backend})", 1000, runs: 3) do |n|
          xml = document.call(n)
          -> { Wirebind::XML.check(Wirebind::CodecTestHelpers::TrickleIO.new(xml, seed: n, max: 8), dtd: :internal, backend: backend) }
        end
      end
    end
  end

  private

  def tag_with(names, extra = "")
    "<r #{extra} #{names.map { |n| %(#{n}="1") }.join(' ')}/>"
  end
end

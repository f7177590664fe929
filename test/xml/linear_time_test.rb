# frozen_string_literal: true

require "test_helper"
require "stringio"
require_relative "../support/linear_time"

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

  def decode_all(backend, xml)
    Wirebind::XML.check(xml, backend: backend)
  end

  def test_flood_names_collide_under_the_old_hash
    names = FloodNames.names(11)
    assert_equal 2048, names.uniq.size
    lows = names.map { |n| FloodNames.fnv(FloodNames::FNV_BASIS, n) & FloodNames::MASK }.uniq
    assert_equal 1, lows.size, "every name lands in the same slot of the old table"
  end

  def test_attribute_names_crafted_to_collide
    small = tag_with(FloodNames.names(11))
    large = tag_with(FloodNames.names(13))
    BACKENDS.each do |backend|
      assert_linear_growth("#{backend}: colliding attribute names", -> { decode_all(backend, small) }, -> { decode_all(backend, large) })
    end
  end

  def test_many_attributes_and_many_prefixed_attributes
    BACKENDS.each do |backend|
      build = ->(n) { tag_with(Array.new(n) { |i| "p:a#{i}" }, 'xmlns:p="urn:p"') }
      small = build.call(2000)
      large = build.call(8000)
      assert_linear_growth("#{backend}: many attributes", -> { decode_all(backend, small) }, -> { decode_all(backend, large) })
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
    small = namespaces_document(2000)
    large = namespaces_document(8000)
    BACKENDS.each do |backend|
      assert_linear_growth("#{backend}: namespace declarations", -> { decode_all(backend, small) }, -> { decode_all(backend, large) })
    end
  end

  def test_long_names
    build = ->(n) { name = "n#{'x' * n}"; %(<#{name} #{name}="v" p:#{name}="w" xmlns:p="urn:p"><p:#{name} xmlns:p="urn:q"/></#{name}>) }
    # Past the caches at both sizes: a name that fits in L2 is no measure.
    small = build.call(1024 * 1024)
    large = build.call(4 * 1024 * 1024)
    BACKENDS.each do |backend|
      assert_linear_growth("#{backend}: long names", -> { decode_all(backend, small) }, -> { decode_all(backend, large) })
    end
  end

  # Issue 11, item 10: a String input is at least as fast as the same bytes read
  # through an IO (pure used to take 15x longer on a 32 MB text node).
  def test_big_text_node_from_a_string_is_as_fast_as_from_an_io
    klass = Class.new do
      include Wirebind::Model
      xml_root "doc"
      attribute :body, :string
    end
    xml = "<doc><body>#{'x' * (8 * 1024 * 1024)}</body></doc>"
    BACKENDS.each do |backend|
      assert_equal 8 * 1024 * 1024, Wirebind::XML.decode(xml, klass, backend: backend).body.bytesize
      string = fastest(3) { timed(1) { Wirebind::XML.decode(xml, klass, backend: backend) } }
      io = fastest(3) { timed(1) { Wirebind::XML.decode(StringIO.new(xml), klass, backend: backend) } }
      assert_operator string, :<, io * 1.5 + 0.005, format("%s: String %.3fs, StringIO %.3fs", backend, string, io)
    end
  end

  def test_text_runs_grow_linearly
    build = ->(n) { "<doc>#{'x' * n}&amp;#{'y' * n}<!--#{'c' * n}--></doc>" }
    small = build.call(2 * 1024 * 1024)
    large = build.call(8 * 1024 * 1024)
    BACKENDS.each do |backend|
      assert_linear_growth("#{backend}: text runs", -> { decode_all(backend, small) }, -> { decode_all(backend, large) })
    end
  end

  # A comment, CDATA section or PI read in many 64 KiB pieces: pure searched the
  # whole token again, and copied it, on every read.
  def test_tokens_straddling_many_reads_grow_linearly
    build = ->(n) { "<doc><!--#{'c' * n}--><![CDATA[#{'d' * n}]]><?pi #{'p' * n}?></doc>" }
    small = build.call(1024 * 1024)
    large = build.call(4 * 1024 * 1024)
    BACKENDS.each do |backend|
      assert_linear_growth("#{backend}: tokens across reads", -> { decode_all(backend, StringIO.new(small)) },
                           -> { decode_all(backend, StringIO.new(large)) })
    end
  end

  private

  def tag_with(names, extra = "")
    "<r #{extra} #{names.map { |n| %(#{n}="1") }.join(' ')}/>"
  end
end

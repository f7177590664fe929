# frozen_string_literal: true

require_relative "json_test_support"

# The Source: UTF-8 chunks from Strings and IOs, characters cut by reads held
# back, a byte order mark dropped, invalid bytes reported after the valid text.
class JSONSourceTest < Minitest::Test
  include JSONTestHelpers

  Source = Wirebind::JSON::Source

  def chunks(source)
    out = []
    while (chunk = source.next_chunk)
      out << chunk
    end
    out
  end

  def test_a_utf8_string_is_handed_out_whole_and_in_place
    text = +"[\"日本語\"]"
    source = Source.new(text)
    chunk = source.next_chunk
    assert_same text, chunk
    assert_nil source.next_chunk
  end

  def test_a_binary_string_is_viewed_as_utf8_without_changing_it
    text = "[\"é\"]".b
    chunk = Source.new(text).next_chunk
    assert_equal Encoding::UTF_8, chunk.encoding
    assert_equal Encoding::BINARY, text.encoding
    assert_equal "[\"é\"]", chunk
  end

  def test_characters_cut_by_reads_are_held_back
    text = "\"é日本語🚀\"" * 50
    (1..7).each do |max|
      got = chunks(Source.new(TrickleIO.new(text, seed: max, max: max)))
      assert(got.all?(&:valid_encoding?))
      assert_equal text, got.join
    end
  end

  def test_a_byte_order_mark_is_dropped_however_the_reads_cut_it
    [1, 2, 3].each do |max|
      source = Source.new(TrickleIO.new("\uFEFF[1]", max: max))
      assert_equal "[1]", chunks(source).join
      assert_equal 3, source.bom_size
    end
    assert_equal "[1]", Source.new("\uFEFF[1]").next_chunk
  end

  def test_invalid_bytes_end_the_text_and_raise_on_the_next_call
    source = Source.new("[\"ab\xFFcd\"]".b)
    assert_equal "[\"ab", source.next_chunk
    error = assert_raises(Source::Invalid) { source.next_chunk }
    assert_match(/invalid UTF-8 \(byte 0xFF\)/, error.message)
    long = ("a" * 10_000) + "\xC3" + ("b" * 10_000)
    assert_equal "a" * 10_000, Source.new(long.b).next_chunk
  end

  def test_an_io_ending_inside_a_character
    source = Source.new(StringIO.new("[\"\xE2\x82".b))
    assert_equal "[\"", chunks_until_error(source)
  end

  def chunks_until_error(source)
    out = +""
    loop do
      chunk = source.next_chunk
      return out unless chunk

      out << chunk
    end
  rescue Source::Invalid
    out
  end

  def test_reads_are_64_kib
    sizes = []
    io = StringIO.new("x" * 200_000)
    io.define_singleton_method(:readpartial) do |size, *rest|
      sizes << size
      super(size, *rest)
    end
    assert_equal 200_000, chunks(Source.new(io)).join.bytesize
    assert_equal [65_536], sizes.uniq
  end
end

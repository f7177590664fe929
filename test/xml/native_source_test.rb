# frozen_string_literal: true

require "test_helper"
require_relative "../support/codec_test_helpers"

# Native::Source checks each chunk in one C pass (Native.scan_clean_text) and
# leaves anything unusual to Wirebind::XML::Source. Both must hand out the same text and
# raise the same errors at the same positions, chunk boundaries included.
class NativeSourceTest < Minitest::Test
  include Wirebind::CodecTestHelpers

  def setup
    skip "the native extension is not loaded" unless Wirebind.backend == :native
  end

  # Pieces that reach every branch of the scan: ASCII runs (longer than a word),
  # line ends, tabs, each UTF-8 length, and each way of being invalid.
  PIECES = [
    "a", "plain ascii text, longer than a word", "<x y='1'>", "\n", "\t", "\r", "\r\n", " ",
    "é", "€", "😀", "\u{10FFFF}", "\u{FFFD}", "\u{FFFE}", "\u{FFFF}", "\u007F", "\u0085",
    "\x00", "\x01", "\x0B", "\x0C", "\x1F",
    "\xC0\x80", "\xC1\xBF", "\xE0\x80\x80", "\xED\xA0\x80", "\xF4\x90\x80\x80", "\xF5\x80\x80\x80",
    "\x80", "\xBF", "\xC3", "\xE2\x82", "\xF0\x9F\x98", "\xFF"
  ].map { |piece| piece.b.freeze }.freeze

  def test_the_scan_agrees_with_ruby_on_random_text
    random = Random.new(random_seed)
    2000.times do
      text = Array.new(random.rand(0..24)) { PIECES.sample(random: random) }.join.force_encoding(Encoding::UTF_8)
      expected = expected_scan(text)
      actual = Wirebind::XML::Native.scan_clean_text(text)
      if expected
        assert_equal expected, actual, text.b.inspect
      else
        assert_nil actual, text.b.inspect
      end
    end
  end

  def test_sources_hand_out_the_same_text_and_errors
    random = Random.new(random_seed)
    300.times do |round|
      bytes = Array.new(random.rand(1..60)) { PIECES.sample(random: random) }.join
      inputs = [bytes, TrickleIO.new(bytes, seed: round, max: 9)]
      inputs.each do |input|
        copy = input.is_a?(String) ? input.dup : TrickleIO.new(bytes, seed: round, max: 9)
        assert_equal drain(Wirebind::XML::Source, input), drain(Wirebind::XML::Native::Source, copy), bytes.inspect
      end
    end
  end

  private

  def expected_scan(text)
    return nil unless text.valid_encoding?
    return nil if text.match?(/[\x00-\x08\x0B-\x1F\u{FFFE}\u{FFFF}]/)

    newlines = text.count("\n")
    tail = newlines.zero? ? text.length : text.length - text.rindex("\n") - 1
    [newlines, tail]
  end

  # The text a source hands out, joined, or the error it raises with its position.
  def drain(klass, input)
    source = klass.new(input)
    text = +""
    while (chunk = source.next_chunk)
      text << chunk
    end
    [:text, text]
  rescue Wirebind::ParseError => e
    [:error, e.class, e.message, e.line, e.column, e.offset]
  end
end

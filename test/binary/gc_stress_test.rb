# frozen_string_literal: true

require "test_helper"
require "wirebind/http2"
require_relative "../support/gc_stress"

# The C buffer, record engine and Huffman coder under GC.stress and
# compaction, each answer checked against the pure backend's. Slow:
# `rake test:gc_stress` runs it (WIREBIND_GC_STRESS=1).
class BinaryGCStressTest < Minitest::Test
  include Wirebind::GCStress

  def setup
    require_gc_stress
  end

  FRAME = ([0, 5, 0, 1, 3].pack("CnCCN") + "hello").b

  def test_records_buffers_and_huffman_under_stress
    plan = Wirebind::Binary::Plan.for(Wirebind::HTTP2::Frame)
    expected = plan.codec.decode(Wirebind::Binary::Pure::Buffer.read_only(FRAME), 0).to_h.transform_values { |v| v.respond_to?(:get_u8) ? v.to_s : v }
    huffman = Wirebind::HTTP2::HPACK::Huffman.encode("www.example.com")
    stressed do
      frame = Wirebind::Binary.decode(FRAME.dup, Wirebind::HTTP2::Frame)
      assert_equal(expected, frame.to_h.transform_values { |v| v.respond_to?(:get_u8) ? v.to_s : v })
      assert_equal FRAME, Wirebind::Binary.encode(frame).to_s
      buffer = Wirebind::Buffer.new
      buffer.append("ab").append_u64(2**64 - 1)
      assert_equal "ab", buffer.slice(0, 2).to_s
      assert_equal huffman, Wirebind::HTTP2::HPACK::Native.encode("www.example.com")
      assert_equal "www.example.com", Wirebind::HTTP2::HPACK::Native.decode(huffman)
    end
  end

  def test_views_across_compaction
    views = Array.new(100) { |i| Wirebind::Buffer.read_only("#{i}-" * (i % 7 + 1)) }
    GC.verify_compaction_references(double_heap: true, toward: :empty) if GC.respond_to?(:verify_compaction_references)
    views.each_with_index { |view, i| assert_equal "#{i}-" * (i % 7 + 1), view.to_s }
  end
end

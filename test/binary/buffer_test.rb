# frozen_string_literal: true

require "test_helper"

# The Buffer contract, on the backend in use (Wirebind::Buffer).
class BufferTest < Minitest::Test
  Buffer = Wirebind::Buffer

  def test_append_and_get_every_type_in_both_byte_orders
    values = { u8: 255, i8: -128, u16: 65_535, i16: -32_768, u24: 0xABCDEF, u32: 2**32 - 1,
               i32: -2**31, u64: 2**64 - 1, i64: -2**63, f32: 1.5, f64: -0.1 }
    %i[big little].each do |endian|
      buf = Buffer.new(endian: endian)
      values.each { |type, value| buf.public_send(:"append_#{type}", value) }
      offset = 0
      values.each do |type, value|
        assert_equal value, buf.public_send(:"get_#{type}", offset), "#{type} #{endian}"
        offset += { u8: 1, i8: 1, u16: 2, i16: 2, u24: 3, u32: 4, i32: 4, u64: 8, i64: 8, f32: 4, f64: 8 }[type]
      end
      assert_equal offset, buf.length
      assert_equal endian, buf.endian
    end
  end

  def test_byte_order_matches_pack
    buf = Buffer.new
    buf.append_u32(0x01020304).append_u32(0x01020304, :little).append_u16(0x0102).append_u24(0x010203)
    buf.append_f64(3.25, :little).append_f32(-2.5)
    assert_equal [0x01020304].pack("N") + [0x01020304].pack("V") + "\x01\x02\x01\x02\x03".b +
                 [3.25].pack("E") + [-2.5].pack("g"), buf.to_s
    assert_equal 0x04030201, buf.get_u32(0, :little)
    assert_equal Encoding::BINARY, buf.to_s.encoding
  end

  def test_set_overwrites_in_place
    buf = Buffer.new
    buf.append("\0".b * 16)
    buf.set_u16(1, 0xBEEF).set_i8(0, -1).set_u64(8, 2**63).set_f32(4, 0.5, :little)
    assert_equal 0xBEEF, buf.get_u16(1)
    assert_equal 255, buf.get_u8(0)
    assert_equal 2**63, buf.get_u64(8)
    assert_equal(-2**63, buf.get_i64(8))
    assert_equal 0.5, buf.get_f32(4, :little)
  end

  def test_bit_fields_msb_first
    buf = Buffer.new
    buf.append("\x80\x00\x00\x05\xFF".b)
    assert_equal 1, buf.get_bits(0, 1)
    assert_equal 5, buf.get_bits(1, 31)
    buf.set_bits(0, 1, 0).set_bits(1, 31, 2**31 - 1).set_bits(36, 3, 0)
    assert_equal "\x7F\xFF\xFF\xFF\xF1".b, buf.to_s
    assert_equal 0x7FFFFFFFF1, buf.get_bits(0, 40)
    buf.append_u64(2**64 - 1)
    assert_equal 2**64 - 1, buf.get_bits(40, 64)
    assert_equal 2**64 - 1, buf.get_bits(40, 64)
  end

  def test_every_access_is_bounds_checked
    buf = Buffer.new
    buf.append("abc")
    assert_equal 0x616263, buf.get_u24(0)
    [-> { buf.get_u32(0) }, -> { buf.get_u8(3) }, -> { buf.get_u8(-1) }, -> { buf.get_u8(2**70) },
     -> { buf.set_u16(2, 1) }, -> { buf.get_bits(17, 8) }, -> { buf.get_bits(0, 65) },
     -> { buf.get_bits(0, 0) }, -> { buf.slice(2, 2) }, -> { buf.get_bytes(1, 3) },
     -> { buf.set_bytes(2, "xy") }, -> { buf.set_u8(0, 256) }, -> { buf.set_i8(0, 128) },
     -> { buf.append_u64(2**64) }, -> { buf.append_i64(2**63) }, -> { buf.append_u8(-1) },
     -> { buf.set_bits(0, 2, 4) }].each do |access|
      error = assert_raises(Wirebind::Buffer::RangeError) { access.call }
      assert_kind_of Wirebind::Error, error
    end
    assert_equal "abc", buf.to_s
    assert_match(/4 bytes at offset 0 are out of range \(length 3\)/, assert_raises(Wirebind::Buffer::RangeError) { buf.get_u32(0) }.message)
  end

  def test_read_only_view_shares_the_string
    string = ("x".b * 100) + [7].pack("N")
    view = Buffer.read_only(string)
    assert view.read_only?
    assert view.view?
    assert_equal 7, view.get_u32(100)
    assert_raises(Wirebind::Buffer::ReadOnlyError) { view.set_u8(0, 1) }
    assert_raises(Wirebind::Buffer::ReadOnlyError) { view.append_u8(1) }
    assert_raises(Wirebind::Buffer::ReadOnlyError) { view.set_bits(0, 1, 1) }
    string.setbyte(103, 9) # the caller's String may change; the view does not
    assert_equal 7, view.get_u32(100)
    slice = view.slice(98, 6)
    assert_equal 6, slice.length
    assert_equal 7, slice.get_u32(2)
    assert_equal "xx\0\0\0\a".b, slice.to_s
    assert slice.read_only?
    assert_raises(Wirebind::Buffer::RangeError) { slice.get_u8(6) }
  end

  def test_slice_of_a_growable_buffer_is_a_writable_view
    buf = Buffer.new
    buf.append("0123456789")
    slice = buf.slice(2, 4)
    assert_equal "2345", slice.to_s
    slice.set_u8(0, 0x41)
    assert_equal "01A3456789", buf.to_s
    assert_raises(Wirebind::Buffer::ReadOnlyError) { slice.append_u8(1) }
    buf.append("x" * 10_000) # the storage moves; the slice follows it
    assert_equal "A345", slice.to_s
    buf.clear
    assert_raises(Wirebind::Buffer::RangeError) { slice.get_u8(0) }
    assert_equal 0, buf.length
  end

  def test_views_survive_compaction
    strings = Array.new(50) { |i| "#{i}-".b * 20 } # embedded and heap Strings
    views = strings.map { |string| Buffer.read_only(string.dup) }
    owner = Buffer.new
    owner.append("0123456789")
    slices = Array.new(20) { owner.slice(2, 4) }
    GC.compact if GC.respond_to?(:compact)
    views.each_with_index { |view, i| assert_equal strings[i], view.to_s }
    slices.each { |slice| assert_equal "2345", slice.to_s }
  end

  def test_bad_arguments
    buf = Buffer.new
    assert_raises(ArgumentError) { Buffer.new(endian: :middle) }
    assert_raises(ArgumentError) { buf.append_u16(1, :middle) }
    assert_raises(TypeError) { buf.append_u8("1") }
    assert_raises(TypeError) { buf.get_u8("0") }
    assert_raises(TypeError) { Buffer.read_only(nil) }
  end

  # ---- dup, clone, freeze, initialize again ----

  def test_dup_and_clone_are_equal_and_independent
    buf = Buffer.new(endian: :little)
    buf.append("abcdef")
    %i[dup clone].each do |copy_with|
      copy = buf.public_send(copy_with)
      assert_equal buf, copy, copy_with.to_s
      assert_equal :little, copy.endian
      copy.set_u8(0, 0x7a)
      copy.append("g")
      assert_equal "abcdef", buf.to_s, "#{copy_with}: the original is untouched"
      assert_equal "zbcdefg", copy.to_s
    end
    slice = buf.slice(1, 3)
    copy = slice.dup
    copy.set_u8(0, 0x78)
    assert_equal "bcd", slice.to_s, "a copy of a writable view writes to its own bytes"
    assert_equal "abcdef", buf.to_s
  end

  def test_a_copy_of_a_read_only_buffer_stays_read_only
    view = Buffer.read_only("hello")
    [view.dup, view.clone, view.slice(1, 2).dup].each do |copy|
      assert copy.read_only?
      assert_raises(Wirebind::Binary::ReadOnlyError) { copy.set_u8(0, 1) }
    end
    assert_equal "hello", view.dup.to_s
  end

  def test_a_frozen_buffer_refuses_writes
    buf = Buffer.new
    buf.append("abc")
    buf.freeze
    assert_equal "abc", buf.to_s
    assert_equal 0x61, buf.get_u8(0)
    [-> { buf.set_u8(0, 1) }, -> { buf.append_u16(1) }, -> { buf.append("x") }, -> { buf.set_bytes(0, "x") },
     -> { buf.set_bits(0, 1, 1) }, -> { buf.clear }, -> { buf.slice(0, 1).set_u8(0, 1) }].each do |write|
      error = assert_raises(Wirebind::Binary::ReadOnlyError) { write.call }
      assert_match(/frozen|read-only/, error.message)
    end
    assert_equal "abc", buf.to_s
  end

  def test_clone_honours_freeze
    buf = Buffer.new
    buf.append("abc")
    assert buf.clone(freeze: true).frozen?
    buf.freeze
    assert buf.clone.frozen?
    refute buf.clone(freeze: false).frozen?
    thawed = buf.clone(freeze: false)
    thawed.set_u8(0, 0x41)
    assert_equal "Abc", thawed.to_s
    refute buf.dup.frozen?
  end

  def test_initialize_cannot_be_called_again
    buf = Buffer.new(16)
    buf.append("abc")
    view = buf.slice(0, 3)
    error = assert_raises(Wirebind::Binary::ReadOnlyError) { buf.send(:initialize, 4) }
    assert_match(/already initialized/, error.message)
    assert_raises(Wirebind::Binary::ReadOnlyError) { Buffer.read_only("xyz").send(:initialize) }
    assert_equal "abc", buf.to_s
    assert_equal "abc", view.to_s
  end

  def test_initialize_copy_again_resets_to_a_copy
    buf = Buffer.new
    buf.append("abcdef")
    view = buf.slice(2, 4)
    buf.send(:initialize_copy, Buffer.read_only("xy"))
    assert_equal "xy", buf.to_s
    assert buf.read_only?
    assert_raises(Wirebind::Binary::RangeError) { view.to_s }
  end
end

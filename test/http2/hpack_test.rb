# frozen_string_literal: true

require "test_helper"
require "wirebind/http2"

# HPACK against RFC 7541 Appendix C (the bytes written here from the RFC's
# text), malformed blocks, and a seeded round trip.
class HPACKTest < Minitest::Test
  HPACK = Wirebind::HTTP2::HPACK

  def hex(text)
    [text.delete(" \n")].pack("H*")
  end

  DATE1 = "Mon, 21 Oct 2013 20:13:21 GMT"
  DATE2 = "Mon, 21 Oct 2013 20:13:22 GMT"
  COOKIE = "foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1"
  REQUESTS = [
    [[":method", "GET"], [":scheme", "http"], [":path", "/"], [":authority", "www.example.com"]],
    [[":method", "GET"], [":scheme", "http"], [":path", "/"], [":authority", "www.example.com"], ["cache-control", "no-cache"]],
    [[":method", "GET"], [":scheme", "https"], [":path", "/index.html"], [":authority", "www.example.com"], ["custom-key", "custom-value"]]
  ].freeze
  RESPONSES = [
    [[":status", "302"], ["cache-control", "private"], ["date", DATE1], ["location", "https://www.example.com"]],
    [[":status", "307"], ["cache-control", "private"], ["date", DATE1], ["location", "https://www.example.com"]],
    [[":status", "200"], ["cache-control", "private"], ["date", DATE2], ["location", "https://www.example.com"],
     ["content-encoding", "gzip"], ["set-cookie", COOKIE]]
  ].freeze

  # [blocks, expected headers, table sizes after each, table limit, huffman]
  SEQUENCES = {
    "C.3" => [["8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d",
               "8286 84be 5808 6e6f 2d63 6163 6865",
               "8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65"],
              REQUESTS, [57, 110, 164], 4096, false],
    "C.4" => [["8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff",
               "8286 84be 5886 a8eb 1064 9cbf",
               "8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf"],
              REQUESTS, [57, 110, 164], 4096, true],
    "C.5" => [["4803 3330 3258 0770 7269 7661 7465 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 " \
               "3120 474d 546e 1768 7474 7073 3a2f 2f77 7777 2e65 7861 6d70 6c65 2e63 6f6d",
               "4803 3330 37c1 c0bf",
               "88c1 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3220 474d 54c0 5a04 677a 6970 " \
               "7738 666f 6f3d 4153 444a 4b48 514b 425a 584f 5157 454f 5049 5541 5851 5745 4f49 553b 206d 6178 2d61 " \
               "6765 3d33 3630 303b 2076 6572 7369 6f6e 3d31"],
              RESPONSES, [222, 222, 215], 256, false],
    "C.6" => [["4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6 2d1b ff6e 919d 29ad " \
               "1718 63c7 8f0b 97c8 e9ae 82ae 43d3",
               "4883 640e ffc1 c0bf",
               "88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab 77ad 94e7 821d d7f2 " \
               "e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f 9587 3160 65c0 03ed 4ee5 b106 3d50 07"],
              RESPONSES, [222, 222, 215], 256, true]
  }.freeze

  def test_rfc_7541_appendix_c_2_single_representations
    assert_equal [%w[custom-key custom-header]], HPACK::Decoder.new.decode(hex("400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572"))
    decoder = HPACK::Decoder.new
    assert_equal [[":path", "/sample/path"]], decoder.decode(hex("040c 2f73 616d 706c 652f 7061 7468"))
    assert_equal 0, decoder.table_size
    assert_equal [%w[password secret]], decoder.decode(hex("1008 7061 7373 776f 7264 0673 6563 7265 74"))
    assert_equal [[":method", "GET"]], decoder.decode(hex("82"))
    assert_equal 0, decoder.table_size
  end

  def test_rfc_7541_appendix_c_3_to_c_6_sequences_decode_and_encode
    SEQUENCES.each do |name, (blocks, headers, sizes, limit, huffman)|
      decoder = HPACK::Decoder.new(max_table_size: limit)
      encoder = HPACK::Encoder.new(huffman: huffman, max_table_size: limit)
      blocks.each_with_index do |block, i|
        assert_equal headers[i], decoder.decode(hex(block)), "#{name}.#{i + 1} decode"
        assert_equal sizes[i], decoder.table_size, "#{name}.#{i + 1} table size"
        assert_equal hex(block), encoder.encode(headers[i]), "#{name}.#{i + 1} encode"
      end
    end
  end

  def test_huffman_coders_agree_with_the_rfc_and_each_other
    assert_equal hex("f1e3 c2e5 f23a 6ba0 ab90 f4ff"), HPACK::Huffman.encode("www.example.com")
    random = Random.new(random_seed)
    coders = [HPACK::Huffman]
    coders << HPACK::Native if defined?(HPACK::Native)
    500.times do
      string = random.bytes(random.rand(40))
      encoded = HPACK::Huffman.encode(string)
      coders.each do |coder|
        assert_equal encoded, coder.encode(string)
        assert_equal string, coder.decode(encoded)
      end
      garbage = random.bytes(random.rand(12))
      assert_equal HPACK::Huffman.decode(garbage), coders.last.decode(garbage), garbage.inspect
    end
  end

  def test_string_literals_and_integers_agree_between_coders
    assert_equal hex("8c f1e3 c2e5 f23a 6ba0 ab90 f4ff"), HPACK::Huffman.append_string("".b, "www.example.com", true) # C.4.1
    assert_equal hex("1f9a0a"), HPACK::Huffman.append_integer("".b, 1337, 5, 0) # C.1.2
    random = Random.new(random_seed)
    coders = [HPACK::Huffman]
    coders << HPACK::Native if defined?(HPACK::Native)
    300.times do
      # bytes Huffman makes longer, and text it makes shorter, around the 7-bit prefix's limit
      string = random.rand(2).zero? ? random.bytes(random.rand(200)) : "abcdefgh-0123"[0, 5] * random.rand(40)
      value = [random.rand(300), random.rand(2**32)].sample(random: random)
      prefix = random.rand(1..8)
      first = random.rand(256) & ~((1 << prefix) - 1) & 0xff
      results = coders.map do |coder|
        [coder.append_string("x".b, string, true), coder.append_string("".b, string, false),
         coder.append_integer("".b, value, prefix, first), coder.append_literal("".b, nil, string, "v#{string}", true),
         coder.append_literal("y".b, value, "ignored", string, false)]
      end
      assert_equal results.first, results.last, [string, value, prefix, first].inspect
      raw = results.first[1]
      assert_equal string.b, raw.byteslice(raw.bytesize - string.bytesize, string.bytesize), "a raw literal ends with the string"
    end
  end

  def test_malformed_blocks_are_compression_errors
    {
      "80" => /index 0/,
      "be" => /index 62 is not in the tables/,
      "ff" => /ends inside an integer/,
      "ff ff ff ff ff ff 7f" => /integer overflow/,
      "3fe1 1f" => /table size update to 4096/, # 4096 is fine: next case is above
      "3fe2 1f" => /above the limit 4096/,
      "82 20" => /after a header field/,
      "400a 6375" => /runs past the block/,
      "4081 00 00" => /EOS or an invalid code|padding/, # a Huffman name of one zero byte
      "4081 fe 00" => /padding/,
      "40" => /ends before a string/,
      "4084 ffff ffff 00" => /EOS/
    }.each do |block, message|
      if message.source.include?("4096") && block == "3fe1 1f"
        assert_equal [], HPACK::Decoder.new.decode(hex(block))
        next
      end
      error = assert_raises(Wirebind::HTTP2::CompressionError, block) { HPACK::Decoder.new.decode(hex(block)) }
      assert_match message, error.message, block
      assert_equal :COMPRESSION_ERROR, error.code
      assert_kind_of Wirebind::Error, error
    end
  end

  def test_max_table_size_can_shrink_and_the_encoder_signals_it
    decoder = HPACK::Decoder.new
    encoder = HPACK::Encoder.new
    decoder.decode(encoder.encode([%w[x-long-header-name value-one]]))
    assert_operator decoder.table_size, :>, 0
    encoder.max_table_size = 0
    decoder.decode(encoder.encode([%w[x-other v]]))
    assert_equal 0, decoder.table_size
    decoder.max_table_size = 100
    assert_raises(Wirebind::HTTP2::CompressionError) { decoder.decode(hex("3f 46")) } # 101 > 100
  end

  def test_round_trip_property
    random = Random.new(random_seed)
    names = %w[:path :method content-type x-request-id cookie accept user-agent x-a x-b] + [":status"]
    encoder = HPACK::Encoder.new(huffman: true, max_table_size: 512)
    plain = HPACK::Encoder.new(huffman: false, max_table_size: 512)
    decoder = HPACK::Decoder.new(max_table_size: 512)
    plain_decoder = HPACK::Decoder.new(max_table_size: 512)
    400.times do
      headers = Array.new(random.rand(12)) do
        name = random.rand(4).zero? ? random.bytes(random.rand(1..20)) : names.sample(random: random)
        [name.b, random.rand(3).zero? ? random.bytes(random.rand(60)) : "v#{random.rand(30)}".b]
      end
      assert_equal headers, decoder.decode(encoder.encode(headers))
      assert_equal headers, plain_decoder.decode(plain.encode(headers))
      assert_operator decoder.table_size, :<=, 512
    end
    assert_equal [%w[a 1], %w[b 2]], HPACK::Decoder.new.decode(HPACK::Encoder.new.encode({ "a" => "1", "b" => "2" }))
  end
end

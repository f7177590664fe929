# frozen_string_literal: true

require "test_helper"
require "wirebind/http2"
require_relative "support/models"

# Wirebind::Backend: one switch. Every front door takes backend: and runs the
# half it names; a bad name, or :native without the extension, is the same
# ArgumentError everywhere.
class BackendTest < Minitest::Test
  include Wirebind::TestModels

  class Frame
    include Wirebind::Model
    binary do
      field :length, :u16
      payload :data, length: :length
    end
  end

  HPACK = Wirebind::HTTP2::HPACK
  HEADERS = [[":method", "GET"], [":path", "/a/longer/path/that/huffman/shortens"]].freeze

  # Counts the calls each Huffman coder gets while the block runs.
  def huffman_calls
    calls = Hash.new(0)
    spies = Wirebind::Backend.concepts.include?(:hpack) ? %i[pure native].filter_map { |b| pair_half(:hpack, b) } : []
    spies.each do |coder|
      spy = Module.new do
        %i[decode append_literal append_integer].each do |name|
          define_method(name) do |*args|
            calls[coder] += 1
            super(*args)
          end
        end
      end
      coder.singleton_class.prepend(spy)
      (@spied ||= []) << spy
    end
    [yield, calls]
  ensure
    @spied&.each { |spy| spy.instance_methods.each { |m| spy.send(:remove_method, m) } }
  end

  def pair_half(concept, backend)
    Wirebind::Backend.implementation(concept, backend)
  rescue ArgumentError
    nil
  end

  def backends
    Wirebind.backend == :native ? %i[pure native] : %i[pure]
  end

  def test_every_concept_has_a_pair
    assert_equal %i[binary buffer hpack json serializer xml], Wirebind::Backend.concepts.sort
    assert_equal Wirebind::Binary::Pure::Buffer, Wirebind::Backend.implementation(:buffer, :pure)
    assert_equal Wirebind::Buffer, Wirebind::Backend.implementation(:buffer)
  end

  def test_bad_names_are_refused_alike
    refused = [
      -> { Wirebind::XML.decode("<Issue/>", Issue, backend: :fast) },
      -> { Wirebind::JSON.decode("{}", Issue, backend: :fast) },
      -> { Wirebind::Binary.decode("\x00\x00".b, Frame, backend: :fast) },
      -> { Wirebind::Binary.encode(Frame.new(length: nil, data: nil), backend: :fast) },
      -> { Wirebind::Binary.buffer_class(backend: :fast) },
      -> { HPACK::Encoder.new(backend: :fast) },
      -> { HPACK::Decoder.new(backend: :fast) }
    ]
    messages = refused.map { |call| assert_raises(ArgumentError, &call).message }
    assert_equal ["backend: must be one of :pure, :native, not :fast"], messages.uniq
  end

  def test_binary_records_and_buffers_follow_backend
    backends.each do |backend|
      buffer_class = Wirebind::Binary.buffer_class(backend: backend)
      assert_equal Wirebind::Backend.implementation(:buffer, backend), buffer_class
      encoded = Wirebind::Binary.encode(Frame.new(length: nil, data: buffer_class.read_only("hi")), backend: backend)
      assert_instance_of buffer_class, encoded, backend
      assert_equal "\x00\x02hi".b, encoded.to_s
      frame = Wirebind::Binary.decode(encoded.to_s, Frame, backend: backend)
      assert_instance_of buffer_class, frame.data, backend
      assert_equal "hi", frame.data.to_s
      # the Ruby codec reads either backend's Buffer
      other = Wirebind::Binary.buffer_class(backend: :pure).read_only("\x00\x01!".b)
      assert_equal "!", Wirebind::Binary.decode(other, Frame, backend: backend).data.to_s
    end
  end

  def test_hpack_follows_backend
    backends.each do |backend|
      coder = Wirebind::Backend.implementation(:hpack, backend)
      (block, decoded), calls = huffman_calls do
        block = HPACK::Encoder.new(backend: backend).encode(HEADERS)
        [block, HPACK::Decoder.new(backend: backend).decode(block)]
      end
      assert_equal HEADERS, decoded
      refute_empty block
      assert_operator calls[coder], :>, 0, "#{backend}: its Huffman coder ran"
      assert_equal [coder], calls.keys, "#{backend}: only its Huffman coder ran"
    end
  end

  def test_native_is_refused_without_the_extension
    skip "the native backend is in use" if Wirebind.backend == :native

    error = assert_raises(ArgumentError) { Wirebind::Binary.decode("\x00\x00".b, Frame, backend: :native) }
    assert_equal "the native backend is not available (pure is in use)", error.message
    assert_raises(ArgumentError) { HPACK::Encoder.new(backend: :native) }
  end
end

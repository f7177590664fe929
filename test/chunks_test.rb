# frozen_string_literal: true

require_relative "test_helper"
require "stringio"

# Wirebind::Chunks: how every format reads its input and writes to an IO.
class ChunksTest < Minitest::Test
  BACKENDS = Wirebind.backend == :native ? %i[pure native].freeze : %i[pure].freeze

  class Tag
    include Wirebind::Model
    xml_root "tag"
    attribute :name, :string
    attribute :weight, :integer
  end

  class Row
    include Wirebind::Model
    xml_root "row"
    attribute :id, :integer
    attribute :title, :string
    attribute :labels, [:string]
    attribute :tag, Tag
  end

  class RowSerializer < Wirebind::Serializer
    type "row"
    attributes :id, :title, :labels
  end

  # A sink that keeps every String it is given, as a Rack body, an Enumerator
  # or a queue does, and a copy of what it held when it was given.
  class KeepingSink
    attr_reader :pieces, :at_write

    def initialize
      @pieces = []
      @at_write = []
    end

    def write(piece)
      @pieces << piece
      @at_write << piece.dup
      piece.bytesize
    end
  end

  # An IO whose reads answer something other than a String or nil.
  class OddIO
    def initialize(answer, method)
      @answer = answer
      define_singleton_method(method) { |_length| @answer }
    end
  end

  def test_a_read_that_is_not_a_string_is_an_argument_error_naming_the_io
    [[5, :readpartial, "Integer"], [:sym, :read, "Symbol"], [[1], :read, "Array"]].each do |answer, method, answer_class|
      BACKENDS.each do |backend|
        message = /\AChunksTest::OddIO##{method} returned #{answer_class}, not a String or nil\z/
        error = assert_raises(ArgumentError) { Wirebind::XML.decode(OddIO.new(answer, method), Row, backend: backend) }
        assert_match message, error.message
        error = assert_raises(ArgumentError) { Wirebind::XML.each(OddIO.new(answer, method), Row, backend: backend) { nil } }
        assert_match message, error.message
        error = assert_raises(ArgumentError) { Wirebind::JSON.decode(OddIO.new(answer, method), Row, backend: backend) }
        assert_match message, error.message
        error = assert_raises(ArgumentError) { Wirebind::JSON.each(OddIO.new(answer, method), Row, backend: backend) { nil } }
        assert_match message, error.message
      end
    end
  end

  def rows(count = 3_000)
    Array.new(count) { |i| Row.new(id: i, title: "row #{i} #{'x' * (i % 50)}", labels: %w[a b], tag: Tag.new(name: "t#{i}", weight: i)) }
  end

  def assert_kept_pieces_intact(expected, sink, context)
    assert_operator sink.pieces.size, :>, 2, "#{context}: the output should come in several pieces"
    assert_equal sink.pieces.size, sink.pieces.map(&:object_id).uniq.size, "#{context}: the same String was handed out twice"
    assert_equal sink.at_write, sink.pieces, "#{context}: a piece changed after it was written"
    assert_equal expected.b, sink.pieces.join.b, "#{context}: the pieces do not make the document"
  end

  def test_every_encoder_hands_the_io_strings_it_never_touches_again
    list = rows
    BACKENDS.each do |backend|
      sink = KeepingSink.new
      written = Wirebind::XML.encode(list, root: "rows", io: sink, backend: backend)
      expected = Wirebind::XML.encode(list, root: "rows", backend: backend)

      assert_equal expected.bytesize, written
      assert_kept_pieces_intact expected, sink, "XML (#{backend})"

      sink = KeepingSink.new
      Wirebind::JSON.encode(list, io: sink, backend: backend)
      assert_kept_pieces_intact Wirebind::JSON.encode(list, backend: backend), sink, "JSON (#{backend})"

      %i[plain hal json_api siren].each do |format|
        serializer = RowSerializer.new(list, format: format, backend: backend)
        sink = KeepingSink.new
        serializer.to_json(io: sink)
        assert_kept_pieces_intact serializer.to_json, sink, "serializer #{format} (#{backend})"
      end
    end
  end

  def test_pieces_are_exactly_the_piece_size_whatever_the_writes
    size = Wirebind::Chunks::SIZE
    seed = random_seed
    random = Random.new(seed)
    document = +""
    pieces = []
    writer = Wirebind::Chunks::Pieces.new { |piece| pieces << piece }
    until document.bytesize > 3 * size
      text = "é" * random.rand(1..(size / 3))
      document << text
      random.rand(2).zero? ? writer.write(text) : (writer << text)
    end
    writer.write("tail".b)
    document << "tail"
    writer.finish

    assert_equal [size] * (pieces.size - 1), pieces[0...-1].map(&:bytesize), "seed #{seed}"
    assert_operator pieces.last.bytesize, :<=, size
    assert_equal document.b, pieces.join.b, "seed #{seed}"
    assert(pieces.all? { |piece| piece.encoding == Encoding::UTF_8 })
    assert_equal pieces.size, pieces.map(&:object_id).uniq.size, "a new String per piece"
    assert_equal "", writer.rest
  end
end

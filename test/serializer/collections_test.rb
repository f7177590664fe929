# frozen_string_literal: true

require_relative "serializer_test_support"
require_relative "../support/backend_differential"
require "set"

# Any each-able list of records: an Enumerator, a Set, a Relation-like object
# answering find_each (read through it, in batches: never each or to_a) are
# written as the Array of the same records is, in every format, on both
# backends, errors with the item's index; a Hash or a Struct stays a record.
class SerializerCollectionsTest < Minitest::Test
  include SerializerTestSupport
  include Wirebind::BackendDifferential

  FORMATS = %i[plain hal json_api siren].freeze

  # What ActiveRecord::Relation offers a serializer: find_each in batches.
  # each and to_a would load every row at once: they fail here.
  class FakeRelation
    include Enumerable

    attr_reader :batches

    def initialize(records, batch_size: 2)
      @records = records
      @batch_size = batch_size
      @batches = 0
    end

    def find_each(&block)
      @records.each_slice(@batch_size) do |batch|
        @batches += 1
        batch.each(&block)
      end
    end

    def each
      raise "each loads the whole relation"
    end

    def to_a
      raise "to_a loads the whole relation"
    end
  end

  def lists
    records = issues
    {
      "Enumerator" => -> { records.each },
      "lazy" => -> { records.lazy.map { |issue| issue } },
      "Set" => -> { Set.new(records) },
      "relation" => -> { FakeRelation.new(records, batch_size: 1) }
    }
  end

  def test_each_able_lists_are_written_as_the_array_is
    FORMATS.each do |format|
      expected = IssueSerializer.new(issues, format: format, backend: Wirebind.backend).to_json
      lists.each do |name, list|
        assert_equal expected, IssueSerializer.new(list.call, format: format, backend: Wirebind.backend).to_json, "#{format} #{name}"
      end
    end
  end

  def test_a_relation_is_read_in_batches
    relation = FakeRelation.new(issues * 3, batch_size: 2)
    written = parse(IssueSerializer.new(relation, format: :json_api, backend: Wirebind.backend).to_json)
    assert_equal 6, written["data"].size
    assert_equal 6, relation.batches # walked twice (JSON:API marks the primary data first)
    io = StringIO.new
    relation = FakeRelation.new(issues * 3, batch_size: 4)
    IssueSerializer.new(relation, backend: Wirebind.backend).to_json(io: io)
    assert_equal 6, parse(io.string).size
    assert_equal 2, relation.batches
  end

  class Row
    include Wirebind::Model
    attribute :id, :string
    attribute :summary, :string
  end

  class RowSerializer < Wirebind::Serializer
    type "row"
    attributes :summary
  end

  # Made a batch at a time, as find_each does: the rows alive while one is
  # written (after a full GC) stay within a batch or two, whatever the count.
  class GeneratedRelation
    attr_reader :most_alive

    def initialize(batches, size)
      @batches = batches
      @size = size
      @most_alive = 0
    end

    def find_each(&block)
      @batches.times do |b|
        GC.start
        @most_alive = [@most_alive, ObjectSpace.each_object(Row).count].max
        Array.new(@size) { |i| Row.new(id: "#{b}-#{i}", summary: "row #{i}") }.each(&block)
      end
    end
  end

  def test_a_relation_is_never_held_whole
    %i[plain json_api].each do |format|
      relation = GeneratedRelation.new(8, 500)
      io = File.open(File::NULL, "w")
      begin
        RowSerializer.new(relation, format: format, backend: Wirebind.backend).to_json(io: io)
      ensure
        io.close
      end
      assert_operator relation.most_alive, :<=, 1000, "#{format}: #{relation.most_alive} rows alive at once (of 4000)"
    end
  end

  def test_an_error_has_the_items_index_on_both_backends
    bad = [issues.first, issues.first, Issue.new(key: "WB-9", votes: "many")]
    write = ->(list, backend) { IssueSerializer.new(list, backend: backend).to_json }
    outcome = Wirebind.backend == :native ? agree(-> { bad.each }, "enumerator with a wrong record", &write) : outcome(:pure, -> { bad.each }, &write)
    assert_equal :error, outcome[0], outcome.inspect
    assert_match(/\(at \[2\]\.votes\)/, outcome[2])
  end

  def test_every_format_agrees_on_both_backends
    require_native_backend
    FORMATS.each do |format|
      lists.each do |name, list|
        outcome = agree(list, "#{format} #{name}") { |input, backend| IssueSerializer.new(input, format: format, backend: backend).to_json }
        assert_equal :ok, outcome[0]
      end
    end
  end

  def test_a_hash_or_a_struct_is_a_record
    refute Wirebind::Serializer::Values.collection?({ a: 1 })
    refute Wirebind::Serializer::Values.collection?(Struct.new(:summary).new("s"))
    written = parse(Class.new(Wirebind::Serializer) { attributes :summary }.new(Struct.new(:summary).new("s")).to_json)
    assert_equal({ "summary" => "s" }, written)
  end
end

# frozen_string_literal: true

require "test_helper"

# Model.encodable copies records whose formatted times (or lists of lists) the
# encoders write as wire values: only for classes that can hold one, so that a
# class declaring format: somewhere does not make every other encode walk its
# records (issue 20).
class ModelEncodableTest < Minitest::Test
  class Plain
    include Wirebind::Model
    attribute :name, :string
    attribute :tags, [:string]
  end

  class Holder
    include Wirebind::Model
    attribute :items, [Plain]
    attribute :one, Plain
  end

  class Stamped
    include Wirebind::Model
    attribute :at, :time, format: :epoch
  end

  def allocations
    before = GC.stat(:total_allocated_objects)
    yield
    GC.stat(:total_allocated_objects) - before
  end

  def test_records_that_hold_no_formatted_value_are_not_walked
    holders = Array.new(50) { |i| Holder.new(items: [Plain.new(name: "p#{i}"), Plain.new(name: "q")], one: Plain.new(tags: %w[a b])) }
    refute Wirebind::Model.wire_walk?(Holder)
    assert Wirebind::Model.wire_walk?(Class.new { include Wirebind::Model; attribute :s, Stamped })
    # The question alone (enum: checks, which other classes of the suite may turn on, walk on their own).
    Wirebind::Model.send(:wire_walk_for?, holders) # the answer kept
    count = allocations { Wirebind::Model.send(:wire_walk_for?, holders) }
    assert_operator count, :<, 10, "a walk of 50 holders allocates per record; #{count} objects"
    assert_same holders, Wirebind::Model.encodable(holders)
    assert_equal Wirebind::JSON.encode(holders[0]), Wirebind::JSON.encode(holders[0], backend: :pure)
  end

  # The answer follows schemas that change later: a subclass of a held type
  # declared afterwards, or a held type that declares a format afterwards.
  def test_a_class_learns_of_formats_declared_later
    item = Class.new { include Wirebind::Model; attribute :name, :string }
    holder = Class.new { include Wirebind::Model }
    holder.attribute :item, item
    record = holder.new(item: item.new(name: "x"))
    assert_same record, Wirebind::Model.encodable(record)
    assert_equal({ "item" => { "name" => "x" } }, JSON.parse(Wirebind::JSON.encode(record)))

    stamped = Class.new(item) { attribute :at, :time, format: :epoch }
    record = holder.new(item: stamped.new(name: "y", at: Time.at(5).utc))
    %i[pure native].select { |b| b == :pure || Wirebind.backend == :native }.each do |backend|
      assert_equal({ "item" => { "name" => "y", "at" => 5 } }, JSON.parse(Wirebind::JSON.encode(record, backend: backend)), backend.to_s)
    end

    item.attribute :seen, :time, format: :epoch_ms
    record = holder.new(item: item.new(name: "z", seen: Time.at(1, 500, :millisecond).utc))
    assert_equal 1500, Wirebind::Model.encodable(record).item.instance_variable_get(:@seen)
    assert_equal({ "item" => { "name" => "z", "seen" => 1500 } }, JSON.parse(Wirebind::JSON.encode(record, backend: :pure)))
  end

  # :any values may hold records of any class: they are walked.
  def test_open_content_is_walked
    open = Class.new { include Wirebind::Model; attribute :extra, :any }
    record = open.new(extra: Stamped.new(at: Time.at(7).utc))
    refute_same record, Wirebind::Model.encodable(record)
    assert_equal 7, Wirebind::Model.encodable(record).extra.instance_variable_get(:@at)
  end
end

# frozen_string_literal: true

require "test_helper"

module Wirebind
  class ModelBatchTest < Minitest::Test
    def test_a_batch_declares_models_that_work_like_any_other
      parent = child = nil
      value = Model.batch do
        parent = Class.new { include Wirebind::Model }
        child = Class.new(parent)
        parent.attribute :id, :string
        child.attribute :id, :string
        child.attribute :name, :string
        child.xml_type "BatchChild", namespace: "urn:batch"
        :done
      end
      assert_equal :done, value
      record = child.new(id: "1", name: "n")
      assert_equal({ id: "1", name: "n" }, record.to_h)
      assert_equal record, child.from_xml(record.to_xml)
      assert_equal child, Model.xml_subtype(parent, "BatchChild", "urn:batch")
    end

    def test_methods_are_written_even_when_the_block_raises
      klass = nil
      assert_raises(RuntimeError) do
        Model.batch do
          klass = Class.new { include Wirebind::Model }
          klass.attribute :a, :integer
          raise "stop"
        end
      end
      assert_equal({ a: 1 }, klass.new(a: 1).to_h)
      assert_nil Thread.current[:__wb_model_batch_types]
    end
  end
end

# frozen_string_literal: true

require "test_helper"

# A plan may copy the plans of the classes it holds (the native JSON plan
# does): after a held class changes, the holder writes and reads its new
# attribute on every backend and format, never the old schema's fields.
class PlanGenerationTest < Minitest::Test
  def each_backend(&block)
    [:pure, (:native if Wirebind.backend == :native)].compact.each(&block)
  end

  def test_a_holder_sees_an_attribute_its_held_class_gained
    each_backend do |backend|
      held = Class.new do
        include Wirebind::Model
        attribute :a, :string
      end
      holder = Class.new do
        include Wirebind::Model
        xml_root "holder"
        attribute :h, held
      end
      record = holder.new(h: held.new(a: "x"))
      # Plans made and kept with the old schema first.
      assert_equal '{"h":{"a":"x"}}', Wirebind::JSON.encode(record, backend: backend)
      Wirebind::XML.encode(record, backend: backend)
      Wirebind::JSON.decode('{"h":{"a":"x"}}', holder, backend: backend)

      held.attribute :seen, :boolean
      record = holder.new(h: held.new(a: "x", seen: true))
      assert_equal '{"h":{"a":"x","seen":true}}', Wirebind::JSON.encode(record, backend: backend), "#{backend} JSON encode"
      assert_equal true, Wirebind::JSON.decode('{"h":{"a":"x","seen":true}}', holder, backend: backend).h.seen, "#{backend} JSON decode"
      xml = Wirebind::XML.encode(record, backend: backend)
      assert_includes xml, "<seen>true</seen>", "#{backend} XML encode"
      assert_equal true, Wirebind::XML.decode(xml, holder, backend: backend).h.seen, "#{backend} XML decode"
    end
  end
end

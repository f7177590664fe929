# frozen_string_literal: true

require "test_helper"
require_relative "../support/models"
require_relative "../support/round_trip"

# The models declared once for every format (test/support/models.rb): the same
# random record, drawn from values both formats hold, written as XML and as
# JSON on every backend loaded, reads back as itself from each.
class ModelRoundTripTest < Minitest::Test
  include Wirebind::TestModels
  include Wirebind::RoundTrip

  BOTH = XML_FORMAT & JSON_FORMAT
  MODELS = Wirebind::TestModels.constants.sort.map { |name| Wirebind::TestModels.const_get(name) }.grep(Class)

  def test_the_shared_models_are_every_model_of_the_module
    assert_operator MODELS.size, :>=, 9
    assert(MODELS.all? { |klass| klass.include?(Wirebind::Model) })
  end

  def test_every_shared_model_round_trips_through_both_formats
    random = Random.new(random_seed)
    MODELS.each do |klass|
      25.times do
        record = gen_record(klass, random, BOTH)
        assert_round_trip(record, XML_FORMAT)
        assert_round_trip(record, JSON_FORMAT)
        assert_equal record, klass.from_json(record.to_json), "#{klass}: to_json, from_json"
        assert_equal record, klass.from_xml(record.to_xml), "#{klass}: to_xml, from_xml"
      end
    end
  end

  def test_a_record_read_from_one_format_writes_the_other
    random = Random.new(random_seed)
    MODELS.each do |klass|
      10.times do
        record = gen_record(klass, random, BOTH)
        from_xml = XML_FORMAT.codec.decode(XML_FORMAT.codec.encode(record), klass)
        assert_equal JSON_FORMAT.codec.encode(record), JSON_FORMAT.codec.encode(from_xml), "#{klass}: XML then JSON"
      end
    end
  end
end

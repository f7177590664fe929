# frozen_string_literal: true

require_relative "json_test_support"
require "json"
require_relative "../support/round_trip"

# encode then decode is the identity, on randomly generated records (seeded:
# a failure prints WIREBIND_SEED to replay it), on every backend loaded
# (test/support/round_trip.rb), from a String and from IOs
# trickling a few bytes at a time; and the json library reads what we write.
class JSONRoundTripTest < Minitest::Test
  include JSONTestHelpers
  include JSONTestModels
  include Wirebind::RoundTrip

  FORMAT = JSON_FORMAT

  def record(klass, random) = gen_record(klass, random, FORMAT)

  MODELS = [AllTypes, AllLists, Issue, Version, Camel, OddKeys, Node, Holder, Empty].freeze

  def test_every_model_round_trips
    random = Random.new(random_seed)
    MODELS.each do |klass|
      60.times { assert_round_trip(record(klass, random), FORMAT) }
    end
  end

  def test_round_trips_through_trickled_reads_and_streaming
    random = Random.new(random_seed)
    [AllTypes, AllLists, Issue, Holder].each do |klass|
      list = Array.new(random.rand(1..12)) { record(klass, random) }
      json = assert_round_trip(list, FORMAT, type: [klass])
      3.times do
        seed = random.rand(1 << 30)
        assert_equal_decoded list, JSON.decode(TrickleIO.new(json, seed: seed), [klass]), "trickled (seed #{seed})"
        streamed = []
        count = JSON.each(TrickleIO.new(json, seed: seed), klass) { |record| streamed << record }
        assert_equal list.size, count
        assert_equal_decoded list, streamed
      end
      assert_equal_decoded list, JSON.decode(ReadOnlyIO.new(json, seed: 3), [klass])
    end
  end

  def test_the_json_library_reads_what_we_write_and_we_read_what_it_writes
    random = Random.new(random_seed)
    [AllLists, Issue, Holder, OddKeys].each do |klass|
      20.times do
        # The json library reads a decimal into a Float: leave them out.
        value = without_decimals(record(klass, random))
        json = JSON.encode(value)
        plain = ::JSON.parse(json)
        assert_equal plain, JSON.decode(json, :any)
        assert_equal_decoded value, JSON.decode(::JSON.generate(plain), klass)
      end
    end
  end

  def without_decimals(record)
    record.class.attributes.each do |attribute|
      value = record.public_send(attribute.name)
      if attribute.type == :decimal
        record.public_send("#{attribute.name}=", attribute.list? ? [] : nil)
      elsif attribute.model?
        Array(value).compact.each { |nested| without_decimals(nested) }
      end
    end
    record
  end

  def test_encoding_is_stable_after_one_round_trip
    random = Random.new(random_seed)
    MODELS.each do |klass|
      10.times { assert_stable_encoding(record(klass, random), FORMAT) }
    end
  end

  def test_random_plain_values_round_trip
    random = Random.new(random_seed)
    200.times do
      value = gen_plain(random, 0)
      json = JSON.encode(value)
      assert_equal_decoded value, JSON.decode(json, :any)
      assert_equal_decoded value, JSON.decode(TrickleIO.new(json, seed: random.rand(1000)), :any)
    end
  end

  def gen_plain(random, depth)
    case depth > 4 ? random.rand(5) : random.rand(7)
    when 0 then nil
    when 1 then random.rand(2).zero?
    when 2 then gen_integer(random)
    when 3 then gen_float(random, FORMAT)
    when 4 then gen_string(random, FORMAT)
    when 5 then Array.new(random.rand(0..4)) { gen_plain(random, depth + 1) }
    else Array.new(random.rand(0..4)) { [gen_string(random, FORMAT), gen_plain(random, depth + 1)] }.to_h
    end
  end
end

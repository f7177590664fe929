# frozen_string_literal: true

require_relative "serializer_test_support"

# Serializers write a :time attribute declared with format: as Wirebind::JSON
# does (issue 20): RFC 822 strings (RSS pubDate), epoch seconds and
# milliseconds as JSON integers (Stripe's created), on both backends.
class SerializerTimeFormatTest < Minitest::Test
  include SerializerTestSupport

  class Charge
    include Wirebind::Model
    attribute :id, :string
    attribute :created, :time, format: :epoch
    attribute :captured_at, :time, format: :epoch_ms
    attribute :published, :time, format: :rfc822
    attribute :updates, [:time], format: :epoch
    attribute :plain, :time
  end

  class ChargeSerializer < Wirebind::Serializer
    attributes :id, :created, :captured_at, :published, :updates, :plain
  end

  def backends
    Wirebind.backend == :native ? %i[pure native] : %i[pure]
  end

  def charge
    Charge.new(id: "ch_3", created: Time.at(1_700_000_000).utc, captured_at: Time.at(1_700_000_000, 250, :millisecond).utc,
               published: Time.utc(2003, 6, 3, 9, 39, 21), updates: [Time.at(1).utc, nil], plain: Time.utc(2020, 1, 2))
  end

  def test_formatted_times_are_written_as_wirebind_json_writes_them
    backends.each do |backend|
      json = ChargeSerializer.new(charge, backend: backend).to_json
      assert_equal Wirebind::JSON.encode(charge), json, backend.to_s
      parsed = JSON.parse(json)
      assert_equal [1_700_000_000, 1_700_000_000_250, "Tue, 03 Jun 2003 09:39:21 GMT", [1, nil], "2020-01-02T00:00:00Z"],
                   parsed.values_at("created", "captured_at", "published", "updates", "plain"), backend.to_s
      assert_equal charge, Wirebind::JSON.decode(json, Charge), backend.to_s
      assert_equal parsed, ChargeSerializer.new(charge, backend: backend).to_h, backend.to_s
      assert_equal JSON.parse(Wirebind::JSON.encode([charge, Charge.new])), JSON.parse(ChargeSerializer.new([charge, Charge.new], backend: backend).to_json)
    end
  end

  def test_a_time_the_format_cannot_write_is_an_encode_error
    backends.each do |backend|
      error = assert_raises(Wirebind::EncodeError, backend.to_s) do
        ChargeSerializer.new(Charge.new(created: Time.at(1, 500, :millisecond).utc), backend: backend).to_json
      end
      assert_match(/seconds/, error.message, backend.to_s)
      error = assert_raises(Wirebind::EncodeError, backend.to_s) { ChargeSerializer.new(Charge.new(created: "yesterday"), backend: backend).to_json }
      assert_match(/expected a Time/, error.message, backend.to_s)
    end
  end
end

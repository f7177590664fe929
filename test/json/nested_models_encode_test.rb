# frozen_string_literal: true

require "test_helper"

# A list of lists of records ([[Point]]) written by Wirebind::JSON.encode: the
# members after it are the record's own (the pure encoder wrote them from the
# last inner record, as nulls, until issue 20's serializer work found it). Both
# backends write the same document.
class NestedModelsEncodeTest < Minitest::Test
  class Point
    include Wirebind::Model
    attribute :lat, :float
    attribute :at, :time, format: :epoch
  end

  class Route
    include Wirebind::Model
    attribute :name, :string
    attribute :segments, [[Point]]
    attribute :shape, [[:float]]
    attribute :stops, :integer
    attribute :via, [Point]
  end

  def backends
    Wirebind.backend == :native ? %i[pure native] : %i[pure]
  end

  def test_members_after_a_list_of_lists_of_records_are_the_records_own
    route = Route.new(name: "GR20", segments: [[Point.new(lat: 1.5, at: Time.at(5).utc), nil], nil, []], shape: [[1.0, 2.5]], stops: 3,
                      via: [Point.new(lat: 2.0)])
    expected = '{"name":"GR20","segments":[[{"lat":1.5,"at":5},null],null,[]],"shape":[[1.0,2.5]],"stops":3,"via":[{"lat":2.0,"at":null}]}'
    backends.each do |backend|
      json = Wirebind::JSON.encode(route, backend: backend)

      assert_equal expected, json, backend.to_s
      assert_equal route, Wirebind::JSON.decode(json, Route, backend: backend), backend.to_s
    end
  end
end

# frozen_string_literal: true

module Wirebind
  # GeoJSON's seven geometry types under one "type" member, as a user would
  # declare them: a position ([lon, lat] or [lon, lat, alt]) is a list of
  # floats, so coordinates are lists of them one to four levels deep.
  # test/model/json_type_test.rb and test/model/real_documents_test.rb read them.
  module GeoJSONModels
    class Geometry
      include Wirebind::Model
    end

    class Point < Geometry
      attribute :coordinates, [:float]
    end

    class MultiPoint < Geometry
      attribute :coordinates, [[:float]]
    end

    class LineString < Geometry
      attribute :coordinates, [[:float]]
    end

    class MultiLineString < Geometry
      attribute :coordinates, [[[:float]]]
    end

    class Polygon < Geometry
      attribute :coordinates, [[[:float]]]
    end

    class MultiPolygon < Geometry
      attribute :coordinates, [[[[:float]]]]
    end

    class GeometryCollection < Geometry
      attribute :geometries, [Geometry]
    end

    Geometry.json_type "type", "Point" => Point, "MultiPoint" => MultiPoint, "LineString" => LineString,
                               "MultiLineString" => MultiLineString, "Polygon" => Polygon, "MultiPolygon" => MultiPolygon,
                               "GeometryCollection" => GeometryCollection

    module_function

    # +value+ (JSON.parse's coordinates) with every number a Float.
    def float_leaves(value)
      value.is_a?(Array) ? value.map { |item| float_leaves(item) } : value.to_f
    end
  end
end

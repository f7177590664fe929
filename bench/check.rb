# frozen_string_literal: true

require "bigdecimal"
require "date"

module Bench
  # Decides whether a contender's output is the reference. Model#== is the
  # contract; on top of it every value must have the reference's exact class
  # (a DateTime or a String subclass is not a Time or a String) and every
  # Time its offset, which Time#== alone does not compare.
  module Check
    module_function

    # Heap objects +value+ is made of: itself (unless an immediate: nil, true,
    # false, a Symbol, a Fixnum, a flonum) and, for a model or an Array, what it
    # holds. What the allocation goal (objects per record + 1) is measured against.
    # @return [Integer]
    def objects_in(value)
      case value
      when nil, true, false, Symbol then 0
      when Integer then value.between?(-(2**62), 2**62 - 1) ? 0 : 1
      when Float then 0 # a flonum for every value the generator draws
      when Array then 1 + value.sum { |item| objects_in(item) }
      else
        return 1 unless model?(value)

        1 + value.instance_variables.sum { |ivar| objects_in(value.instance_variable_get(ivar)) }
      end
    end

    # @return [nil] when equal, else a String naming the first difference
    def difference(expected, actual)
      unless expected.size == actual.size
        return "#{actual.size} records, expected #{expected.size}"
      end

      expected.each_with_index do |record, index|
        found = first_difference(record, actual[index], "[#{index}]")
        next unless found

        return "#{found}\n  expected record #{index}: #{describe(record)}\n  " \
               "actual record #{index}:   #{describe(actual[index])}"
      end
      nil
    end

    def first_difference(expected, actual, path)
      if model?(expected)
        return "#{path}: #{actual.class} where #{expected.class} was expected" unless actual.instance_of?(expected.class)

        # to_h only for the names: it turns nested models into Hashes.
        expected.to_h.each_key do |name|
          found = first_difference(expected.public_send(name), actual.public_send(name), "#{path}.#{name}")
          return found if found
        end
        return "#{path}: Model#== is false although every attribute matched" unless expected == actual
      elsif expected.is_a?(Array)
        return "#{path}: #{actual.inspect} where an Array was expected" unless actual.is_a?(Array)
        return "#{path}: #{actual.size} items, expected #{expected.size}" unless actual.size == expected.size

        expected.each_with_index do |value, index|
          found = first_difference(value, actual[index], "#{path}[#{index}]")
          return found if found
        end
      elsif !(actual.instance_of?(expected.class) && actual == expected)
        return "#{path}: #{show(actual)}, expected #{show(expected)}"
      elsif expected.is_a?(Time) && expected.utc_offset != actual.utc_offset
        return "#{path}: offset #{actual.utc_offset}s, expected #{expected.utc_offset}s (#{show(expected)})"
      end
      nil
    end

    def model?(value)
      value.class.include?(Wirebind::Model)
    end

    def show(value)
      case value
      when Time then "#{value.class} #{value.strftime('%Y-%m-%dT%H:%M:%S.%N%:z')}"
      when BigDecimal then "BigDecimal #{value.to_s('F')}"
      else "#{value.class} #{value.inspect}"
      end
    end

    def describe(record)
      return record.inspect unless model?(record)

      fields = record.to_h.each_key.map do |name|
        value = record.public_send(name)
        "#{name}: #{value.is_a?(Array) ? "[#{value.size}]" : show(value)}"
      end
      "#{record.class.name}(#{fields.join(', ')})"
    end
  end
end

# frozen_string_literal: true

module Wirebind
  module Binary
    # A model's binary layout, as {Model::ClassMethods#binary} declared it:
    # frozen plain data, in wire order.
    #
    # @api private
    class Layout
      # width in bytes, signed?, attribute type
      FIELD_TYPES = Shareable.make(
        u8: [1, false], i8: [1, true], u16: [2, false], i16: [2, true], u24: [3, false],
        u32: [4, false], i32: [4, true], u64: [8, false], i64: [8, true], f32: [4, nil], f64: [8, nil]
      )

      # kind: :field, :bits or :payload. width: bytes (field), bits (bits).
      # length: for a payload, the Symbol of an earlier field, an Integer, or nil (the rest).
      Entry = Struct.new(:kind, :name, :type, :width, :signed, :length, keyword_init: true)

      # @return [Class]
      attr_reader :model
      # @return [Array<Entry>]
      attr_reader :entries
      # @return [Boolean]
      attr_reader :big

      # The block's DSL: +field+, +bits+, +payload+.
      class Builder
        def initialize(model)
          @model = model
          @entries = []
        end

        # @api private
        attr_reader :entries

        # A fixed-size number: one of {FIELD_TYPES}' keys.
        def field(name, type)
          unless FIELD_TYPES.key?(type)
            raise SchemaError, "#{Model.display_name(@model)}.binary: field #{name.inspect} has type #{type.inspect}, " \
                               "not one of #{FIELD_TYPES.keys.map(&:inspect).join(' ')}"
          end

          width, signed = FIELD_TYPES.fetch(type)
          add(Entry.new(kind: :field, name: name, type: type, width: width, signed: signed))
        end

        # An unsigned bit field of count (1..64) bits, most significant bit
        # first; consecutive bit fields must fill whole bytes.
        def bits(name, count)
          unless count.is_a?(Integer) && count.between?(1, 64)
            raise SchemaError, "#{Model.display_name(@model)}.binary: bits #{name.inspect} must be 1 to 64 bits, not #{count.inspect}"
          end

          add(Entry.new(kind: :bits, name: name, type: :bits, width: count, signed: false))
        end

        # Bytes handed out as a read-only {Wirebind::Buffer} view of the input.
        # @param length [Symbol, Integer, nil] an earlier integer field that
        #   holds the length, a fixed length, or nil for the rest of the input
        def payload(name, length: nil)
          case length
          when nil, Integer
            if length&.negative?
              raise SchemaError, "#{Model.display_name(@model)}.binary: payload #{name.inspect} has a negative length"
            end
          when Symbol
            source = @entries.find { |entry| entry.name == length }
            unless source && source.kind != :payload && !source.signed.nil?
              raise SchemaError, "#{Model.display_name(@model)}.binary: payload #{name.inspect} takes its length " \
                                 "from #{length.inspect}, which is not an earlier integer field"
            end
          else
            raise SchemaError, "#{Model.display_name(@model)}.binary: payload length must be a field name, an Integer or nil"
          end
          add(Entry.new(kind: :payload, name: name, type: :payload, width: 0, signed: nil, length: length))
        end

        private

        def add(entry)
          name = entry.name
          if @entries.any? { |e| e.name == name }
            raise SchemaError, "#{Model.display_name(@model)}.binary: #{name.inspect} is declared twice"
          end
          if @entries.last&.kind == :payload && @entries.last.length.nil?
            raise SchemaError, "#{Model.display_name(@model)}.binary: nothing can follow a payload that takes the rest of the input"
          end

          @entries << entry.freeze
          nil
        end
      end

      class << self
        # @return [Layout]
        def build(model, endian, &block)
          unless %i[big little].include?(endian)
            raise SchemaError, "#{Model.display_name(model)}.binary: endian must be :big or :little, not #{endian.inspect}"
          end
          raise SchemaError, "#{Model.display_name(model)}.binary needs a block of fields" unless block

          builder = Builder.new(model)
          builder.instance_exec(&block) # declaration time only, once per class
          entries = builder.entries
          raise SchemaError, "#{Model.display_name(model)}.binary declares no field" if entries.empty?

          check_bit_groups(model, entries)
          entries.each { |entry| map_attribute(model, entry) }
          new(model, entries.freeze, endian == :big)
        end

        private

        def check_bit_groups(model, entries)
          pending = 0
          entries.each do |entry|
            if entry.kind == :bits
              pending += entry.width
            elsif (pending % 8).nonzero?
              raise SchemaError, "#{Model.display_name(model)}.binary: the bit fields before #{entry.name.inspect} " \
                                 "do not fill whole bytes (#{pending} bits)"
            else
              pending = 0
            end
          end
          return if (pending % 8).zero?

          raise SchemaError, "#{Model.display_name(model)}.binary: the last bit fields do not fill whole bytes (#{pending} bits)"
        end

        def map_attribute(model, entry)
          type = if entry.kind == :payload then :base64
                 elsif entry.signed.nil? then :float
                 else :integer
                 end
          existing = model.attributes.find { |attribute| attribute.name == entry.name }
          if existing.nil?
            model.attribute(entry.name, type)
          elsif existing.list? || existing.type != type
            raise SchemaError, "#{Model.display_name(model)}.binary: attribute #{entry.name.inspect} is " \
                               "#{existing.type.inspect}#{' (a list)' if existing.list?}; the #{entry.type} field needs #{type.inspect}"
          end
        end
      end

      def initialize(model, entries, big)
        @model = model
        @entries = entries
        @big = big
        freeze
      end
    end
  end
end

# frozen_string_literal: true

module Wirebind
  module JSON
    # The native backend: the same contract as {Pure}, with the loops in C
    # (ext/wirebind/json_*.c). This file is the thin Ruby side: it opens the
    # input through {JSON::Source} (which reads Strings in place and IOs in 64
    # KiB chunks, and finds where the text stops being UTF-8, one Ruby call per
    # chunk) and hands plans to C once per class.
    #
    # Like {Pure} (and every encoder: see {Wirebind::Model}), the encoder reads
    # a record's values from its instance variables, not through its readers.
    #
    # The C methods it calls (defined in ext/wirebind/json_decoder_class.c and
    # json_encoder_class.c):
    # - +decode_source(source, DecodeConfig, block)+, a DecodeConfig (a frozen Struct
    #   C defines) having +code+, +type+ and +list+, which describe the document's
    #   value ({Plan.root}), +slot+, that Plan::Slot (asked for messages only),
    #   +strict+, +max_depth+, +max_token_size+ and +max_number_length+;
    # - +compile_plan(klass, slots, filler)+, a class's Plan compiled for C (through {plan_for});
    #   the decoder and the encoder share it;
    # - +encode_value(value, io, max_depth)+.
    #
    # @api private
    module Native
      # The instance variable named for a json_type discriminator's slot, which
      # only decoders fill (into the values the plan's builder picks a class by).
      TAG_IVAR = :@__wb_json_type
      # The string_as column of an expandable slot: the string is the value (json_plan.h's WB_JPLAN_STRING_ITSELF).
      STRING_ITSELF = -2

      class << self
        # @see Wirebind::JSON.decode
        def decode(input, item, list, strict, limits)
          decode_source(JSON::Source.new(input), decode_config(item, list, strict, limits), nil)
        end

        # @see Wirebind::JSON.each
        def each(input, item, strict, limits, block)
          decode_source(JSON::Source.new(input), decode_config(item, true, strict, limits), block)
        end

        # @see Wirebind::JSON.encode
        def encode(value, io, max_depth)
          encode_value(value, io, max_depth)
        end

        # @return [DecodeConfig] what decode_source is to read, frozen
        def decode_config(item, list, strict, limits)
          root = Plan.root(item, list)
          DecodeConfig.new(code: root.code, type: item, list: list, slot: root, strict: strict,
                           max_depth: limits.fetch(:max_depth), max_token_size: limits.fetch(:max_token_size),
                           max_number_length: limits.fetch(:max_number_length)).freeze
        end

        # @return [Object] the compiled plan of +klass+ (cached with the class, frozen, shareable)
        def plan_for(klass)
          klass.wirebind_plan(:native_json) do
            plan = Plan.for(klass)
            slots = plan.read_slots.map do |slot|
              # A key the classes of a json_type read differently: each class's reading, by discriminator value.
              variants = slot.variants&.map { |value, typed| [value, row(typed)] }
              row(slot) << variants
            end
            tag = plan.tag && JSON::Writer.string(JSON::Writer.key(+"", plan.tag[0]), plan.tag[1]).freeze
            compile_plan(klass, slots, plan.tag_index ? :__wb_json_variant : klass.__wb_builders[1], plan.slots.size, tag, plan.tag_index,
                         plan.checked)
          end
        end
      end

      # One slot as compile_plan takes it (json_plan.h).
      def self.row(slot)
        [slot.key, slot.index, slot.code, slot.type, slot.list, slot.attribute&.ivar || TAG_IVAR, slot,
         JSON::Writer.key(+"", slot.key).freeze, slot.one_or_many, slot.expandable ? STRING_ITSELF : slot.string_as,
         slot.lenient, slot.nested]
      end
      private_class_method :row

      # The methods defined in C (ext/wirebind/json_*_class.c), described above:
      # @!method self.decode_source(source, config, block)
      #   @param source [JSON::Source] the document
      #   @param config [DecodeConfig]
      #   @param block [Proc, nil] given: yields each top-level item
      #   @return [Object, Integer] the value, or (with a block) the number of items
      # @!method self.compile_plan(klass, slots, filler, encoded, tag, tag_index, checked)
      #   @param klass [Class] a model
      #   @param slots [Array<Plan::Slot>] its attributes' slots
      #   @param filler [Symbol] the name of the class's fill method, which builds a
      #     record from its values ({Model::ClassMethods#__wb_builders})
      #   @param encoded [Integer] how many of the slots an encoder writes (the first ones)
      #   @param tag [String, nil] the discriminator member an encoder writes first
      #   @param tag_index [Integer, nil] the discriminator's slot
      #   @param checked [Boolean] building may refuse a value ({Plan#checked})
      #   @return [Object] the plan compiled into C tables (frozen, shareable)
      # @!method self.encode_value(value, io, max_depth)
      #   @param value [Object] a record, a list or plain values
      #   @param io [IO, nil] where to write (nil: return the document)
      #   @param max_depth [Integer]
      #   @return [String, Integer] the document, or the bytes written to +io+
    end
  end
end

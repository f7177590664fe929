# frozen_string_literal: true

module Wirebind
  module Binary
    # A model's layout compiled once per class ({Model::ClassMethods#wirebind_plan}):
    # the entries split into segments (runs of fixed-size fields, each checked
    # for room once, and payloads), with each entry's attribute index, and the
    # pure codec generated from them.
    #
    # @api private
    class Plan
      # kind, attribute index, width (bytes; bits for :bits), signed (nil: float),
      # at (byte offset in its segment; bit offset for :bits), length (payload)
      Step = Struct.new(:kind, :name, :type, :index, :width, :signed, :at, :length, keyword_init: true)

      attr_reader :model, :steps, :segments, :big, :codec

      # @return [Plan] klass's plan, compiled on first use
      def self.for(klass)
        # the checks run once, when the plan is compiled (this is on every decode's path)
        klass.wirebind_plan(:binary) { new(klass) }
      rescue NoMethodError => e
        raise unless e.name == :wirebind_plan && e.receiver.equal?(klass)

        raise ArgumentError, "#{Model.display_name(klass)} has no binary layout (declare one with `binary do ... end`)"
      end

      def initialize(model)
        @model = model
        layout = model.binary_layout
        raise ArgumentError, "#{Model.display_name(model)} has no binary layout (declare one with `binary do ... end`)" unless layout

        @big = layout.big
        indexes = model.attributes.to_h { |attribute| [attribute.name, attribute.index] }
        @segments = [] # each: [:fixed, size, [steps]] or [:payload, step]
        @steps = []
        fixed = nil
        bit = 0
        layout.entries.each do |entry|
          step = Step.new(kind: entry.kind, name: entry.name, type: entry.type, index: indexes.fetch(entry.name),
                          width: entry.width, signed: entry.signed, length: entry.length)
          if entry.kind == :payload
            fixed = nil
            @segments << [:payload, step]
          else
            unless fixed
              fixed = [:fixed, 0, []]
              @segments << fixed
            end
            if entry.kind == :bits
              step.at = fixed[1] * 8 + bit
              bit += entry.width
              if (bit % 8).zero?
                fixed[1] += bit / 8
                bit = 0
              end
            else
              step.at = fixed[1]
              fixed[1] += entry.width
            end
            fixed[2] << step
          end
          @steps << step.freeze
        end
        @segments.each(&:freeze)
        @segments.freeze
        @steps.freeze
        @codec = Pure.compile_plan(self)
        @native = Wirebind.backend == :native ? Native.compile_plan(self) : nil
        freeze
      end

      # @return [Object] the C plan (Wirebind::Binary::Native::Plan), compiled
      #   with the Ruby one, on the native backend
      attr_reader :native

      # The attribute index of the step named name.
      def index_of(name)
        @steps.find { |step| step.name == name }.index
      end
    end
  end
end

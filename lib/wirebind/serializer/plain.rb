# frozen_string_literal: true

module Wirebind
  class Serializer
    # +format: :plain+: a record is a JSON object of its attributes (under
    # their JSON keys, with Wirebind::JSON's mapping of types) and its +one+
    # and +many+ records as nested objects and arrays (+null+ for a nil
    # record, +[]+ for a nil list); links are left out. A list is a JSON array.
    #
    # @api private
    module Plain
      module_function

      # How +compiled+ writes a record: the program both backends run.
      # @return [Program]
      def program(compiled)
        Program.new(compiled) do |p|
          p.open
          p.discriminator
          compiled.fields.each do |resolved|
            next p.field_member(resolved) { p.attribute(resolved) } if resolved.field.kind == :attribute

            p.member(resolved.key)
            case resolved.field.kind
            when :one
              p.emit(code: Program::ONE, at: resolved.at, **p.nested(resolved), skip_nil: false, **p.read(resolved))
            when :many
              p.lit("[")
              flag = p.slot
              p.emit(code: Program::FLAG_CLEAR, slot: flag)
              p.emit(code: Program::MANY, at: resolved.at, **p.nested(resolved), skip_nil: false, flag: flag, **p.read(resolved))
              p.lit("]")
            end
          end
          p.close
        end
      end

      LAYOUT = Layout.build(list_opening: "[", list_closing: "]")

      # @return [Layout] a JSON array of the records, +null+ for a nil one
      def layout(_document)
        LAYOUT
      end
    end
  end
end

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
      # Generates +write(r, out, ctx, d)+.
      class Generator < Serializer::Generator
        private

        def write_methods
          record_method("write", "ctx, d") do
            open
            fields.each do |resolved|
              member(resolved.key)
              case resolved.field.kind
              when :attribute then attribute_value(resolved)
              when :one then one(resolved)
              when :many
                line "at = #{resolved.at}"
                line "v = #{read(resolved.attribute)}"
                each_record(resolved, "s.write(%s, out, ctx, d + 1)", nils: "null")
              end
            end
            close
          end
        end

        def one(resolved)
          line "at = #{resolved.at}"
          line "v = #{read(resolved.attribute)}"
          pre = take
          line "if v.nil? then out << #{(pre + 'null').inspect}"
          line "else #{pre.empty? ? '' : "out << #{pre.inspect}; "}@n#{resolved.at}.write(v, out, ctx, d + 1)"
          line "end"
        end
      end

      module_function

      # The native engine's program for +compiled+ (the Generator's +write+).
      # @return [Program]
      def program(compiled)
        Program.new(compiled) do |p|
          p.open
          compiled.fields.each do |resolved|
            p.member(resolved.key)
            case resolved.field.kind
            when :attribute then p.attribute(resolved)
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

      # How the native engine writes the document: [list opening, list
      # closing, a listed record's head, a lone record's head, skip nil items].
      def native_document(_document)
        ["[", "]", nil, nil, false]
      end

      # @return [Integer] bytes flushed to +io+ so far
      def write(document, out, io)
        resource = document.resource
        context = document.context
        if resource.is_a?(Array)
          return Document.flush_each(out, io, resource, "[", "]") do |item, first|
            out << "," unless first
            write_one(document, item, out, context)
          end
        end
        write_one(document, resource, out, context)
        0
      end

      def write_one(document, record, out, context)
        return out << "null" if record.nil?

        document.compiled_for(record).write(record, out, context, 1)
      end
    end
  end
end

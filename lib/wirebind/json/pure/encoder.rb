# frozen_string_literal: true

require_relative "../writer"
require_relative "../../source_writer"

module Wirebind
  module JSON
    module Pure
      class << self
        # @see Wirebind::JSON.encode
        def encode(value, io, max_depth)
          out = String.new(capacity: Encoder::BUFFER_SIZE, encoding: Encoding::UTF_8)
          written = 0
          if value.is_a?(Array)
            # The top-level list is written here, not by Writer.array, so that a
            # long one goes to +io+ in pieces as it is written.
            Writer.too_deep(max_depth) if max_depth < 1
            out << "["
            value.each_with_index do |item, index|
              out << "," unless index.zero?
              begin
                Writer.value(out, item, 1, max_depth)
              rescue EncodeError => e
                raise Writer.nested(e, index)
              end
              written += Chunks.flush(io, out) if io && out.bytesize >= Encoder::FLUSH_SIZE
            end
            out << "]"
          else
            Writer.value(out, value, 0, max_depth)
          end
          return out unless io

          written + Chunks.flush(io, out)
        end

        # A Model met inside a free value ({Writer.model}), appended to +out+
        # by its class's encoder.
        # @return [String] out
        def write_model(value, out, depth, max_depth)
          Encoder.for(value.class).write(value, out, depth, max_depth)
        end
      end

      # Writes models as JSON through a method generated, once per class, from
      # the class's plan: straight-line code that reads each attribute and
      # appends its member, the key and its punctuation already in one string
      # literal (+,"release_date":+). The source is built only from the
      # schema's keys, written as Ruby literals with String#inspect, and from
      # type names; never from payload data.
      #
      # Every member is written, in declaration order: nil as +null+ (so a
      # record's shape does not depend on its values, and decoding gives the
      # same nil back), and a nil list as +[]+ (a list attribute is never nil
      # after decoding).
      #
      # @api private
      class Encoder
        BUFFER_SIZE = 16 * 1024
        FLUSH_SIZE = Chunks::SIZE

        class << self
          # @param klass [Class] a Wirebind::Model class
          # @return [Encoder] the (cached) encoder of +klass+
          def for(klass)
            klass.wirebind_plan(:pure_json_encoder) { Shareable.make(new(Plan.for(klass))) }
          end
        end

        # @return [Plan]
        attr_reader :plan

        # @param plan [Plan]
        def initialize(plan)
          @plan = plan
          # The declared model class of each slot, for the is_a? check of a nested record.
          @types = plan.slots.map(&:type).freeze
          source = Generator.new(plan).source
          singleton_class.class_eval(source, __FILE__, 1)
          freeze
        end

        # Generates the source of +write(record, out, depth, max_depth)+.
        # @api private
        class Generator
          include SourceWriter

          def initialize(plan)
            @plan = plan
            @lines = []
          end

          # @return [String]
          def source
            emit "# frozen_string_literal: true"
            emit "def write(record, out, depth, max_depth)"
            emit "  Writer.too_deep(max_depth) if depth >= max_depth"
            emit "  key = index = #{inner_names.map { |name| "#{name} = " }.join}nil"
            if (tag = @plan.tag)
              # A json_type class: its discriminator member first.
              emit "  out << #{q(Writer.string(Writer.key(+'{', tag[0]), tag[1]))}"
            end
            if @plan.slots.empty?
              emit "  out << #{q(tag ? '}' : '{}')}"
            else
              @plan.slots.each_with_index { |slot, position| member(slot, position) }
              emit "  out << '}'"
            end
            emit "rescue Types::InvalidValue, EncodeError => e"
            emit "  e = EncodeError.new(e.message) unless e.is_a?(EncodeError)"
            inner_names.reverse_each { |name| emit "  e = Writer.nested(e, #{name}) if #{name}" }
            emit "  e = Writer.nested(e, index) if index"
            emit "  raise key ? Writer.nested(e, key) : e"
            emit "end"
            @lines.join("\n")
          end

          private

          # The locals holding the index in each inner list level of a +nested+
          # slot: +inner+, +inner2+... (one at least, as the rescue clause names it).
          def inner_names
            levels = @plan.slots.map { |slot| slot.nested.to_i }.max.to_i
            ["inner", *(2..levels).map { |level| "inner#{level}" }]
          end

          def member(slot, position)
            opening = position.zero? && !@plan.tag ? +"{" : +","
            emit "  key = #{q(slot.key)}"
            emit "  out << #{q(Writer.key(opening, slot.key))}"
            # A model's values are its instance variables (Wirebind::Model's rule).
            emit "  v = record.instance_variable_get(#{slot.attribute.ivar.inspect})"
            if slot.list
              list(slot)
            else
              emit "  if v.nil? then out << 'null'"
              emit "  else"
              value(slot, "v", "    ", "depth + 1")
              emit "  end"
            end
          end

          def list(slot)
            emit "  out << '['"
            emit "  unless v.nil?"
            emit "    raise EncodeError, \"expected an Array, got \#{Types.describe(v)}\" unless v.is_a?(Array)"
            emit "    index = 0"
            emit "    while index < v.size"
            emit "      out << ',' unless index.zero?"
            emit "      item = v[index]"
            emit "      if item.nil? then out << 'null'"
            emit "      else"
            slot.nested ? row(slot, "item", slot.nested, 1, "        ") : value(slot, "item", "        ", "depth + 2")
            emit "      end"
            emit "      index += 1"
            emit "    end"
            emit "    index = nil"
            emit "  end"
            emit "  out << ']'"
          end

          # An item of a +nested+ slot's outer list (in local +x+, not nil) at
          # inner level +level+: a list holding +levels+ more list levels
          # (1: a list of records or scalars).
          def row(slot, x, levels, level, pad)
            at = level == 1 ? "inner" : "inner#{level}"
            item = "item#{level}"
            emit "#{pad}raise EncodeError, \"expected an Array, got \#{Types.describe(#{x})}\" unless #{x}.is_a?(Array)"
            emit "#{pad}out << '['"
            emit "#{pad}#{at} = 0"
            emit "#{pad}while #{at} < #{x}.size"
            emit "#{pad}  out << ',' unless #{at}.zero?"
            emit "#{pad}  #{item} = #{x}[#{at}]"
            emit "#{pad}  if #{item}.nil? then out << 'null'"
            emit "#{pad}  else"
            if levels > 1
              row(slot, item, levels - 1, level + 1, "#{pad}    ")
            else
              value(slot, item, "#{pad}    ", "depth + #{level + 2}")
            end
            emit "#{pad}  end"
            emit "#{pad}  #{at} += 1"
            emit "#{pad}end"
            emit "#{pad}#{at} = nil"
            emit "#{pad}out << ']'"
          end

          # Appends the non-nil value in local +x+; +depth+ is the expression of
          # the depth a nested record is written at (a list counts as a level).
          def value(slot, x, pad, depth)
            case slot.code
            when :string
              # The common case, checked inline: a valid UTF-8 String with
              # nothing to escape goes into the buffer as it is.
              emit "#{pad}if #{x}.is_a?(String) && #{x}.encoding == Encoding::UTF_8 && #{x}.valid_encoding? && !#{x}.b.match?(Writer::ESCAPE)"
              emit "#{pad}  out << '\"' << #{x} << '\"'"
              emit "#{pad}else"
              emit "#{pad}  Writer.string(out, #{x})"
              emit "#{pad}end"
            when :integer, :float, :decimal
              # lenient_numbers: :string writes the number inside a JSON string.
              emit "#{pad}out << '\"'" if slot.lenient == :string
              if slot.code == :integer
                emit "#{pad}#{x}.is_a?(Integer) && #{x}.bit_length < Writer::SHORT_INTEGER_BITS ? out << #{x}.to_s : Writer.integer(out, #{x})"
              else
                emit "#{pad}Writer.#{slot.code}(out, #{x})"
              end
              emit "#{pad}out << '\"'" if slot.lenient == :string
            when :boolean
              emit "#{pad}if true.equal?(#{x}) then out << 'true'"
              emit "#{pad}elsif false.equal?(#{x}) then out << 'false'"
              emit "#{pad}else Writer.boolean(out, #{x})"
              emit "#{pad}end"
            when :time, :date, :base64
              emit "#{pad}Writer.#{slot.code}(out, #{x})"
            when :any
              emit "#{pad}Writer.value(out, #{x}, #{depth}, max_depth)"
            else
              index = @plan.slots.index(slot)
              if slot.expandable # an id kept as it came: written as a string
                emit "#{pad}if #{x}.is_a?(String) then Writer.string(out, #{x})"
                emit "#{pad}else"
              end
              emit "#{pad}unless #{x}.is_a?(@types[#{index}])"
              emit "#{pad}  raise EncodeError, #{q("expected #{slot.expected(item: true)}, got ")} + Types.describe(#{x})"
              emit "#{pad}end"
              emit "#{pad}Encoder.for(#{x}.class).write(#{x}, out, #{depth}, max_depth)"
              emit "#{pad}end" if slot.expandable
            end
          end
        end
      end
    end
  end
end

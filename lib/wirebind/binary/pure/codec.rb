# frozen_string_literal: true

module Wirebind
  module Binary
    # The pure-Ruby backend of binary records, seen from outside through these
    # module methods (as the C one is through Binary::Native's).
    # @api private
    module Pure
      class << self
        # @return [Codec] the plan's generated codec, made with the plan
        def compile_plan(plan) = Codec.generate(plan)

        # @return [Class] the Buffer class this backend makes and reads
        def buffer_class = Buffer

        # @see Wirebind::Binary.decode (whose check_decode has passed)
        def decode(codec, source, offset, into)
          buffer = source.is_a?(String) ? Buffer.read_only(source) : source
          codec.decode(buffer, offset, into)
        end

        # @see Wirebind::Binary.encode
        def encode(codec, record, into)
          buffer = into || Buffer.new
          # the Ruby codec reads and writes either backend's Buffer through its accessors
          Binary.check_encode(buffer) unless buffer.is_a?(Buffer)
          codec.encode(record, buffer)
        end
      end

      # The reference record codec: one +decode+ and one +encode+ method per
      # plan, generated as straight-line Ruby over the {Wirebind::Buffer}
      # accessors (so it reads either backend's buffers). The C engine
      # (ext/wirebind/binary_record.c) follows it step for step.
      #
      # @api private
      class Codec
        INTEGER_LIMITS = Shareable.make(Layout::FIELD_TYPES.to_h do |type, (width, signed)|
          bits = width * 8
          [type, signed ? [-(1 << (bits - 1)), (1 << (bits - 1)) - 1] : [0, (1 << bits) - 1]]
        end)

        class << self
          # @param plan [Plan]
          # @return [Codec]
          def generate(plan)
            codec = Class.new(self)
            codec.class_eval(decode_source(plan), __FILE__, __LINE__)
            codec.class_eval(encode_source(plan), __FILE__, __LINE__)
            codec.new(plan.model)
          end

          private

          def endian(plan)
            plan.big ? ":big" : ":little"
          end

          def decode_source(plan)
            size = plan.model.attributes.length
            lines = ["def decode(buf, pos, into = nil)", "len = buf.length", "v = Array.new(#{size})"]
            plan.segments.each do |segment|
              if segment[0] == :fixed
                _, bytes, steps = segment
                lines << "truncated(pos, #{bytes}, len) if pos > len || len - pos < #{bytes}"
                steps.each do |step|
                  lines << if step.kind == :bits
                             "v[#{step.index}] = buf.get_bits(pos * 8 + #{step.at}, #{step.width})"
                           else
                             "v[#{step.index}] = buf.get_#{step.type}(pos + #{step.at}, #{endian(plan)})"
                           end
                end
                lines << "pos += #{bytes}"
              else
                step = segment[1]
                lines << case step.length
                         when Symbol then "n = v[#{plan.index_of(step.length)}]"
                         when Integer then "n = #{step.length}"
                         else "n = pos > len ? 0 : len - pos"
                         end
                lines << "truncated(pos, n, len) if pos > len || len - pos < n"
                lines << "v[#{step.index}] = buf.slice(pos, n)"
                lines << "pos += n"
              end
            end
            lines << "into ? fill(into, v) : @model.__wb_build(v)" << "end"
            lines.join("\n")
          end

          def encode_source(plan)
            lines = ["def encode(record, buf)"]
            plan.steps.each_with_index do |step, i|
              lines << "x#{i} = record.instance_variable_get(:@#{step.name})" # as C reads them: the ivars, not the readers
            end
            # every value is checked before the first byte is written; length
            # fields once their payload has been looked at (nil takes its length)
            length_fields = plan.steps.filter_map { |s| s.length if s.length.is_a?(Symbol) }
            plan.steps.each_with_index do |step, i|
              next if length_fields.include?(step.name)

              lines << case step.kind
                       when :payload
                         "x#{i} = payload(x#{i}, #{step.name.to_s.inspect})"
                       when :bits
                         "x#{i} = bits(x#{i}, #{step.width}, #{step.name.to_s.inspect})"
                       else
                         if step.signed.nil?
                           "x#{i} = float(x#{i}, #{step.name.to_s.inspect})"
                         else
                           "x#{i} = int(x#{i}, #{step.type.inspect}, #{step.name.to_s.inspect})"
                         end
                       end
            end
            plan.steps.each_with_index do |step, i|
              next unless step.kind == :payload

              case step.length
              when Symbol
                j = plan.steps.index { |s| s.name == step.length }
                lines << "x#{j} = length_of(x#{j}, x#{i}, #{plan.steps[j].name.to_s.inspect}, #{step.name.to_s.inspect})"
              when Integer
                lines << "length_of(#{step.length}, x#{i}, nil, #{step.name.to_s.inspect})"
              end
            end
            # the length fields take their value from the payload: check them again
            plan.steps.each_with_index do |step, i|
              next unless plan.steps.any? { |s| s.kind == :payload && s.length == step.name }

              lines << (step.kind == :bits ? "bits(x#{i}, #{step.width}, #{step.name.to_s.inspect})" : "int(x#{i}, #{step.type.inspect}, #{step.name.to_s.inspect})")
            end
            group = nil
            plan.steps.each_with_index do |step, i|
              if step.kind == :bits
                group ||= []
                group << [i, step.width]
                total = group.sum { |_, w| w }
                next unless (total % 8).zero?

                expr = +"0"
                group.each { |j, w| expr = "((#{expr}) << #{w}) | x#{j}" }
                lines << "g = #{expr}"
                (total / 8).times { |k| lines << "buf.append_u8((g >> #{total - 8 * (k + 1)}) & 0xff)" }
                group = nil
              elsif step.kind == :payload
                lines << "buf.append(x#{i})"
              else
                lines << "buf.append_#{step.type}(x#{i}, #{endian(plan)})"
              end
            end
            lines << "buf" << "end"
            lines.join("\n")
          end
        end

        def initialize(model)
          @model = model
        end

        private

        # Sets the layout's attributes of an existing record (the others stay).
        def fill(record, values)
          @model.binary_layout.entries.each do |entry|
            attribute = @model.attributes.find { |a| a.name == entry.name }
            record.instance_variable_set(attribute.ivar, values[attribute.index])
          end
          record
        end

        def truncated(pos, need, len)
          have = pos > len ? 0 : len - pos
          raise ParseError.new("truncated input: #{Model.display_name(@model)} needs #{need} bytes at offset #{pos}, #{have} left",
                               offset: pos, reason: :truncated)
        end

        def int(value, type, name)
          min, max = INTEGER_LIMITS.fetch(type)
          return value if value.is_a?(Integer) && value >= min && value <= max

          raise EncodeError.new("#{value.inspect} does not fit #{type}", path: name)
        end

        def bits(value, width, name)
          return value if value.is_a?(Integer) && value >= 0 && value.bit_length <= width

          raise EncodeError.new("#{value.inspect} does not fit #{width} bits", path: name)
        end

        def float(value, name)
          return value if value.is_a?(Float) || value.is_a?(Integer)

          raise EncodeError.new("#{value.inspect} is not a number", path: name)
        end

        def payload(value, name)
          return "" if value.nil?
          return value if value.is_a?(String) || value.is_a?(Binary::Pure::Buffer) || value.is_a?(Wirebind::Buffer)

          raise EncodeError.new("#{value.class} is not a String or a Wirebind::Buffer", path: name)
        end

        # A length field's value: the payload's length when the field is nil.
        def length_of(value, payload, field, name)
          size = payload.is_a?(String) ? payload.bytesize : payload.length
          return size if value.nil? && field
          return value if value == size

          raise EncodeError.new("the payload has #{size} bytes, #{field ? "#{field} says" : 'the layout says'} #{value}", path: name)
        end
      end
    end
  end
end

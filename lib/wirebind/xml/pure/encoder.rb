# frozen_string_literal: true

module Wirebind
  module XML
    module Pure
      class << self
        # @see Wirebind::XML.encode
        def encode(value, io, root, item, nil_style, declaration)
          out = String.new(capacity: 16 * 1024, encoding: Encoding::UTF_8)
          out << Encoder::DECLARATION if declaration
          xsi_all = nil_style == :xsi
          written = 0
          if value.is_a?(Array)
            out << "<" << root << ">"
            value.each do |record|
              encoder = Encoder.for(record.class)
              encoder.write(record, out, item || encoder.root_tag, xsi_all, nil, nil)
              written += flush(io, out) if io && out.bytesize >= Encoder::FLUSH_SIZE
            end
            out << "</" << root << ">"
          else
            encoder = Encoder.for(value.class)
            encoder.write(value, out, root || encoder.root_tag, xsi_all, nil, nil)
          end
          return out unless io

          written + flush(io, out)
        end

        private

        def flush(io, out)
          bytes = out.bytesize
          io.write(out)
          out.clear
          bytes
        end
      end

      # Writes models as XML through a method generated, once per class, from the
      # class's plan: straight-line code that reads each attribute and appends its
      # element, with the names already in string literals. The source is built
      # only from names the schema declared (checked NCNames) and inspect-quoted
      # namespace URIs, never from payload data.
      #
      # @api private
      class Encoder
        DECLARATION = %(<?xml version="1.0" encoding="UTF-8"?>)
        FLUSH_SIZE = 64 * 1024
        XSI_DECLARATION = %( xmlns:xsi="#{Syntax::XSI_NS}")

        TEXT_ESCAPES = { "&" => "&amp;", "<" => "&lt;", ">" => "&gt;", "\r" => "&#13;" }.freeze
        ATTRIBUTE_ESCAPES = TEXT_ESCAPES.merge('"' => "&quot;", "\t" => "&#9;", "\n" => "&#10;").freeze
        TEXT_SPECIAL = /[&<>\r]/
        ATTRIBUTE_SPECIAL = /[&<>"\t\n\r]/
        # What XML 1.0 cannot carry at all, even as a character reference.
        UNWRITABLE = /[\x00-\x08\x0B\x0C\x0E-\x1F\u{FFFE}\u{FFFF}]/

        class << self
          # @return [Encoder] the (cached) encoder of +klass+
          def for(klass)
            klass.wirebind_plan(:pure_xml_encoder) { new(Plan.for(klass)) }
          end

          # @return [String] +text+ escaped for element content
          def text(text)
            text = utf8(text)
            text.match?(TEXT_SPECIAL) ? text.gsub(TEXT_SPECIAL, TEXT_ESCAPES) : text
          end

          # @return [String] +text+ escaped for a double-quoted attribute value
          def attribute(text)
            text = utf8(text)
            text.match?(ATTRIBUTE_SPECIAL) ? text.gsub(ATTRIBUTE_SPECIAL, ATTRIBUTE_ESCAPES) : text
          end

          private

          def utf8(text)
            unless text.encoding == Encoding::UTF_8
              begin
                text = text.encode(Encoding::UTF_8)
              rescue EncodingError
                raise Types::InvalidValue, "a #{text.encoding} string cannot be converted to UTF-8: #{Types.excerpt(text.dup.force_encoding(Encoding::BINARY))}"
              end
            end
            raise Types::InvalidValue, "invalid UTF-8 in #{Types.excerpt(text.scrub)}" unless text.valid_encoding?
            if (bad = text.index(UNWRITABLE))
              raise Types::InvalidValue, format("character U+%04X cannot be written in XML 1.0", text[bad].ord)
            end

            text
          end
        end

        # @return [Plan]
        attr_reader :plan
        # @return [String] the element name a record is written as, with its prefix
        attr_reader :root_tag

        def initialize(plan)
          @plan = plan
          @root_tag = plan.prefix ? "#{plan.prefix}:#{plan.root_name}" : plan.root_name
          @types = plan.klass.attributes.map(&:type).freeze
          singleton_class.class_eval(Generator.new(plan).source, __FILE__, __LINE__)
          freeze
        end

        # Generates the source of +write(record, out, tag, xsi_all, default_ns, parent_ns)+.
        # +default_ns+ is the default namespace in scope, +parent_ns+ the namespace
        # whose prefix the enclosing model declared.
        # @api private
        class Generator
          def initialize(plan)
            @plan = plan
            @lines = []
            @temp = 0
          end

          def source
            plan = @plan
            emit "def write(record, out, tag, xsi_all, default_ns, parent_ns)"
            emit "  field = nil"
            emit "  out << '<' << tag"
            namespace_declarations
            plan.attributes.each_value { |slot| attribute(slot) }
            emit "  out << '>'"
            text_content(plan.text) if plan.text
            plan.writes.each { |entry| entry.kind == Plan::GROUP ? group(entry, 1) : element(entry, 1) }
            emit "  out << '</' << tag << '>'"
            emit "rescue Types::InvalidValue => e"
            emit "  raise EncodeError.new(e.message, path: field ? \"\#{tag}/\#{field}\" : tag)"
            emit "rescue EncodeError => e"
            emit "  raise EncodeError.new(e.message.sub(/ \\(at [^)]*\\)\\z/, ''), path: \"\#{tag}/\#{e.path}\")"
            emit "end"
            @lines.join("\n")
          end

          private

          def emit(line)
            @lines << line
          end

          def q(string)
            string.inspect
          end

          # Declares the model's namespace where the enclosing element did not, and
          # works out the namespaces in scope for nested models (only if there are any).
          def namespace_declarations
            uri = @plan.namespace
            nested = nested_models?
            if uri && @plan.prefix
              emit "  out << #{q(" xmlns:#{@plan.prefix}=\"#{Encoder.attribute(uri)}\"")} unless parent_ns == #{q(uri)}"
              emit "  child_default = default_ns" if nested
              emit "  child_parent = #{q(uri)}" if nested
            elsif uri
              emit "  out << #{q(" xmlns=\"#{Encoder.attribute(uri)}\"")} unless default_ns == #{q(uri)}"
              emit "  child_default = #{q(uri)}" if nested
              emit "  child_parent = parent_ns" if nested
            else
              emit "  out << ' xmlns=\"\"' if default_ns"
              emit "  child_default = nil" if nested
              emit "  child_parent = parent_ns" if nested
            end
          end

          def nested_models?
            pending = @plan.writes.dup
            until pending.empty?
              entry = pending.pop
              return true if entry.kind == Plan::MODEL
              pending.concat(entry.writes) if entry.kind == Plan::GROUP
            end
            false
          end

          # The qualified name a child entry is written with, and the namespace
          # declaration it needs when its namespace is not the model's.
          def child_name(entry)
            name = entry.name
            if entry.uri.nil? || entry.uri == @plan.namespace
              [@plan.prefix ? "#{@plan.prefix}:#{name}" : name, ""]
            else
              [name, %( xmlns="#{Encoder.attribute(entry.uri)}")]
            end
          end

          def reader(slot)
            "record.#{slot.attribute.name}"
          end

          def attribute(slot)
            name = slot.uri ? attribute_name_for(slot) : slot.name
            emit "  field = #{q("@#{slot.name}")}"
            emit "  unless (v = #{reader(slot)}).nil?"
            emit "    out << #{q(" #{name}=\"")} << Encoder.attribute(Types.to_xml_text(#{slot.type.inspect}, v)) << '\"'"
            emit "  end"
          end

          def attribute_name_for(slot)
            raise SchemaError, "#{@plan.klass}: XML attribute '@{#{slot.uri}}#{slot.name}' needs the model's xml_namespace with a prefix" unless slot.uri == @plan.namespace && @plan.prefix

            "#{@plan.prefix}:#{slot.name}"
          end

          def text_content(slot)
            emit "  field = '.'"
            emit "  unless (v = #{reader(slot)}).nil?"
            emit "    out << Encoder.text(Types.to_xml_text(#{slot.type.inspect}, v))"
            emit "  end"
          end

          def group(group, depth)
            pad = "  " * depth
            name, declaration = child_name(group)
            emit "#{pad}out << #{q("<#{name}#{declaration}>")}"
            group.writes.each { |entry| entry.kind == Plan::GROUP ? group(entry, depth + 1) : element(entry, depth + 1) }
            emit "#{pad}out << #{q("</#{name}>")}"
          end

          def element(slot, depth)
            pad = "  " * depth
            emit "#{pad}field = #{q(slot.attribute.name.to_s)}"
            value = "v#{@temp += 1}"
            emit "#{pad}#{value} = #{reader(slot)}"
            if slot.list
              emit "#{pad}unless #{value}.nil?"
              emit "#{pad}  raise Types::InvalidValue, \"expected an Array, got \#{Types.describe(#{value})}\" unless #{value}.is_a?(Array)"
              item = "i#{@temp}"
              emit "#{pad}  #{value}.each do |#{item}|"
              one_value(slot, item, depth + 2)
              emit "#{pad}  end"
              emit "#{pad}end"
            else
              one_value(slot, value, depth)
            end
          end

          def one_value(slot, value, depth)
            pad = "  " * depth
            fixed_name = slot.name && child_name(slot)
            emit "#{pad}if #{value}.nil?"
            nil_element(slot, fixed_name, depth + 1)
            emit "#{pad}else"
            if slot.kind == Plan::MODEL
              model_value(slot, value, fixed_name, depth + 1)
            else
              name, declaration = fixed_name || ["item", ""]
              emit "#{pad}  out << #{q("<#{name}#{declaration}>")} << Encoder.text(Types.to_xml_text(#{slot.type.inspect}, #{value})) << #{q("</#{name}>")}"
            end
            emit "#{pad}end"
          end

          def nil_element(slot, fixed_name, depth)
            pad = "  " * depth
            name, declaration = fixed_name || ["item", ""]
            markup = q(%(<#{name}#{declaration} xsi:nil="true"#{XSI_DECLARATION}/>))
            emit(slot.nil_xsi ? "#{pad}out << #{markup}" : "#{pad}out << #{markup} if xsi_all")
          end

          def model_value(slot, value, fixed_name, depth)
            pad = "  " * depth
            emit "#{pad}raise Types::InvalidValue, \"expected #{slot.type}, got \#{Types.describe(#{value})}\" unless #{value}.is_a?(@types[#{slot.index}])"
            emit "#{pad}encoder = Encoder.for(#{value}.class)"
            if fixed_name
              # A model's element is named in the enclosing model's namespace; its
              # own namespace declarations are written by its encoder.
              emit "#{pad}encoder.write(#{value}, out, #{q(fixed_name[0])}, xsi_all, child_default, child_parent)"
            else
              emit "#{pad}encoder.write(#{value}, out, encoder.root_tag, xsi_all, child_default, child_parent)"
            end
          end
        end
      end
    end
  end
end

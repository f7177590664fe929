# frozen_string_literal: true

require "zlib"

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
              encoder.write(record, out, item || encoder.root_tag, "", xsi_all, nil, nil, false)
              written += Chunks.flush(io, out) if io && out.bytesize >= Encoder::FLUSH_SIZE
            end
            out << "</" << root << ">"
          else
            encoder = Encoder.for(value.class)
            encoder.write(value, out, root || encoder.root_tag, "", xsi_all, nil, nil, false)
          end
          return out unless io

          written + Chunks.flush(io, out)
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
        XSI_DECLARATION = %( xmlns:xsi="#{Syntax::XSI_NS}").freeze

        TEXT_ESCAPES = { "&" => "&amp;", "<" => "&lt;", ">" => "&gt;", "\r" => "&#13;" }.freeze
        ATTRIBUTE_ESCAPES = TEXT_ESCAPES.merge('"' => "&quot;", "\t" => "&#9;", "\n" => "&#10;").freeze
        TEXT_SPECIAL = /[&<>\r]/
        ATTRIBUTE_SPECIAL = /[&<>"\t\n\r]/
        # What XML 1.0 cannot carry at all, even as a character reference.
        UNWRITABLE = /[\x00-\x08\x0B\x0C\x0E-\x1F\u{FFFE}\u{FFFF}]/

        class << self
          # @return [Encoder] the (cached) encoder of +klass+
          def for(klass)
            klass.wirebind_plan(:pure_xml_encoder) { Shareable.make(new(Plan.for(klass))) }
          end

          # @return [String] the prefix wirebind writes for +uri+ when the schema
          #   names none: "wb" and a checksum of the URI, the same in every process
          #   and Ractor, with no registry to share; "xml" for the XML namespace,
          #   the one prefix bound without a declaration (and that may not have one)
          def automatic_prefix(uri)
            return "xml" if uri == Syntax::XML_NS

            "wb#{Zlib.crc32(uri).to_s(36)}"
          end

          # @return [String] the declaration of +prefix+ for +uri+: %( xmlns:p="uri"),
          #   or "" for the XML namespace, which Namespaces in XML forbids declaring
          #   with any prefix but its own and needs no declaration with that one
          def declaration(prefix, uri)
            return "" if uri == Syntax::XML_NS

            %( xmlns:#{prefix}="#{attribute(uri)}")
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
            if text.encoding == Encoding::BINARY
              # Bytes taken for UTF-8, as JSON takes them: valid UTF-8 is written,
              # anything else refused (binary data belongs in :base64).
              copy = text.dup.force_encoding(Encoding::UTF_8)
              raise Types::InvalidValue, "invalid UTF-8 in #{Types.excerpt(text)} (binary data belongs in a :base64 attribute)" unless copy.valid_encoding?

              text = copy
            elsif text.encoding != Encoding::UTF_8
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

        # Generates the source of
        # +write(record, out, tag, tag_decl, xsi_all, default_ns, parent_ns, nested)+:
        # +tag+ and +tag_decl+ are the element's name and the declarations the caller
        # needs on it, +default_ns+ the default namespace in scope, +parent_ns+ the
        # namespace of the enclosing model (whose prefix is then in scope), +nested+
        # false for the document's top element.
        #
        # Namespaces: a model's child elements are in its namespace, written with its
        # prefix; a model with a namespace but no prefix uses it as the default
        # namespace at the top, and an automatic prefix ("wb" and a checksum) where nested
        # under another default namespace; an element declared in another namespace
        # (`{uri}local`) gets the automatic prefix of that namespace. A model without a
        # namespace under a default namespace writes xmlns="" on its children. So a
        # document always decodes back to what was encoded, whichever way it nests.
        # @api private
        class Generator
          def initialize(plan)
            @plan = plan
            @lines = []
            @temp = 0
            @attribute_declarations = attribute_declarations
            # Declarations the record's element writes: a wrapper's attributes need no other.
            @record_declarations = @attribute_declarations.dup.freeze
          end

          def source
            emit "def write(record, out, tag, tag_decl, xsi_all, default_ns, parent_ns, nested)"
            emit "  field = nil"
            emit "  out << '<' << tag << tag_decl"
            scope
            @plan.attribute_writes.each { |slot| attribute(slot) }
            emit "  out << '>'"
            text_content(@plan.text) if @plan.text
            @plan.writes.each { |entry| entry.kind == Plan::GROUP ? group(entry, 1, true) : element(entry, 1, true) }
            emit "  out << '</' << tag << '>'"
            drop_unused_locals
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

          # The scope's locals are computed for every model; a model that names no
          # child element or nests no model does not read some of them, and Ruby
          # warns about a local assigned and never read.
          def drop_unused_locals
            body = @lines[(@lines_before_scope + 1)..].join("\n")
            %w[pre reset child_default child_parent].each do |local|
              next if body.match?(/\b#{local}\b(?! =)/)

              @lines.reject! { |line| line.match?(/\A\s*#{local} = /) }
            end
          end

          # Works out, at run time, the prefix of the model's own child elements
          # (+pre+), whether unprefixed children must reset the default namespace
          # (+reset+), and the scope nested models see. Plain models (no namespace
          # anywhere) skip all this unless a default namespace is in scope.
          def scope
            uri = @plan.namespace
            prefix = @plan.prefix
            @lines_before_scope = @lines.size
            if uri.nil?
              emit "  pre = ''"
              emit "  reset = default_ns ? ' xmlns=\"\"' : ''"
              emit "  child_default = nil"
              emit "  child_parent = parent_ns"
            elsif prefix
              emit "  out << #{q(declaration(prefix, uri))} unless parent_ns == #{q(uri)}"
              emit "  pre = #{q("#{prefix}:")}"
              emit "  reset = ''"
              emit "  child_default = default_ns"
              emit "  child_parent = #{q(uri)}"
            else
              auto = Encoder.automatic_prefix(uri)
              emit "  reset = ''"
              emit "  child_parent = parent_ns"
              emit "  if default_ns == #{q(uri)}"
              emit "    pre = ''"
              emit "    child_default = default_ns"
              emit "  elsif !nested"
              emit "    out << #{q(%( xmlns="#{Encoder.attribute(uri)}"))}"
              emit "    pre = ''"
              emit "    child_default = #{q(uri)}"
              emit "  else"
              # The model's attributes in its namespace may declare the prefix already.
              unless @attribute_declarations.include?(declaration(auto, uri))
                emit "    out << #{q(declaration(auto, uri))} unless parent_ns == #{q(uri)}"
              end
              emit "    pre = #{q("#{auto}:")}"
              emit "    child_default = default_ns"
              emit "    child_parent = #{q(uri)}"
              emit "  end"
            end
          end

          def declaration(prefix, uri)
            Encoder.declaration(prefix, uri)
          end

          # Ruby expressions for an entry's start-tag opening ("<name" plus any
          # declaration) and its name for the end tag.
          def name_parts(entry, top)
            name = entry.name || "item"
            if no_namespace?(entry)
              [q("<#{name} xmlns=\"\""), q(name), true]
            elsif entry.uri && !entry.uri.empty? && entry.uri != @plan.namespace
              prefix = entry.uri == @plan.namespace ? @plan.prefix : Encoder.automatic_prefix(entry.uri)
              [q("<#{prefix}:#{name}#{declaration(prefix, entry.uri)}"), q("#{prefix}:#{name}"), true]
            elsif top
              ["'<' << pre << #{q(name)} << reset", "(pre + #{q(name)})", false]
            else
              ["'<' << pre << #{q(name)}", "(pre + #{q(name)})", false]
            end
          end

          # A "{}local" entry in a model with a namespace: written unprefixed, with
          # the default namespace reset (in a model without one it is any element).
          def no_namespace?(entry)
            entry.uri == "" && !@plan.namespace.nil?
          end

          # Encoding reads the values decoding set: the instance variables, not
          # readers a model may have overridden (the native encoder does the same).
          def reader(slot)
            "record.instance_variable_get(#{slot.attribute.ivar.inspect})"
          end

          # The declarations the model's namespaced XML attributes need on its
          # element, each once (two attributes of one namespace share a prefix).
          def attribute_declarations
            @plan.attribute_writes.filter_map do |slot|
              next if slot.uri.nil? || (slot.uri == @plan.namespace && @plan.prefix)

              declaration = declaration(Encoder.automatic_prefix(slot.uri), slot.uri)
              declaration unless declaration.empty?
            end.uniq
          end

          def attribute(slot)
            name =
              if slot.uri.nil?
                slot.name
              elsif slot.uri == @plan.namespace && @plan.prefix
                "#{@plan.prefix}:#{slot.name}"
              else
                prefix = Encoder.automatic_prefix(slot.uri)
                declaration = declaration(prefix, slot.uri)
                emit "  out << #{q(declaration)}" if @attribute_declarations.delete(declaration)
                "#{prefix}:#{slot.name}"
              end
            emit "  field = #{q("@#{slot.name}")}"
            emit "  unless (v = #{reader(slot)}).nil?"
            emit "    out << #{q(" #{name}=\"")} << Encoder.attribute(Types.to_xml_text(#{slot.type.inspect}, v)) << '\"'"
            emit "  end"
          end

          # XML attributes read from a wrapper by path ("city-state/@zipcode"); a
          # namespace the record's element does not declare is declared here, once.
          def group_attributes(group, pad)
            declared = []
            group.attribute_writes.each do |slot|
              name = slot.name
              if slot.uri
                prefix = slot.uri == @plan.namespace && @plan.prefix ? @plan.prefix : Encoder.automatic_prefix(slot.uri)
                declaration = declaration(prefix, slot.uri)
                unless declaration.empty? || @record_declarations.include?(declaration) || declared.include?(declaration) ||
                       prefix == @plan.prefix
                  declared << declaration
                  emit "#{pad}out << #{q(declaration)}"
                end
                name = "#{prefix}:#{name}"
              end
              emit "#{pad}field = #{q(slot.attribute.xml)}"
              emit "#{pad}unless (v = #{reader(slot)}).nil?"
              emit "#{pad}  out << #{q(" #{name}=\"")} << Encoder.attribute(Types.to_xml_text(#{slot.type.inspect}, v)) << '\"'"
              emit "#{pad}end"
            end
          end

          def text_content(slot)
            emit "  field = '.'"
            emit "  unless (v = #{reader(slot)}).nil?"
            emit "    out << Encoder.text(Types.to_xml_text(#{slot.type.inspect}, v))"
            emit "  end"
          end

          def group(group, depth, top)
            pad = "  " * depth
            open, close, = name_parts(group, top)
            emit "#{pad}out << #{open}"
            group_attributes(group, pad)
            emit "#{pad}out << '>'"
            # Inside an unprefixed wrapper that reset the default namespace, nothing
            # needs resetting again.
            group.writes.each { |entry| entry.kind == Plan::GROUP ? group(entry, depth + 1, false) : element(entry, depth + 1, false) }
            emit "#{pad}out << '</' << #{close} << '>'"
          end

          def element(slot, depth, top)
            pad = "  " * depth
            emit "#{pad}field = #{q(slot.attribute.xml)}"
            value = "v#{@temp += 1}"
            emit "#{pad}#{value} = #{reader(slot)}"
            if slot.list
              emit "#{pad}unless #{value}.nil?"
              emit "#{pad}  raise Types::InvalidValue, \"expected an Array, got \#{Types.describe(#{value})}\" unless #{value}.is_a?(Array)"
              item = "i#{@temp}"
              emit "#{pad}  #{value}.each do |#{item}|"
              one_value(slot, item, depth + 2, top, true)
              emit "#{pad}  end"
              emit "#{pad}end"
            else
              one_value(slot, value, depth, top)
            end
          end

          # A nil item of a list is always written (as xsi:nil): leaving it out
          # would shift the items after it and lose data.
          def one_value(slot, value, depth, top, in_list = false)
            pad = "  " * depth
            open, close, = name_parts(slot, top)
            emit "#{pad}if #{value}.nil?"
            nil_markup = "#{open} << #{q(%( xsi:nil="true"#{XSI_DECLARATION}/>))}"
            emit(slot.nil_xsi || in_list ? "#{pad}  out << #{nil_markup}" : "#{pad}  out << #{nil_markup} if xsi_all")
            emit "#{pad}else"
            if slot.kind == Plan::MODEL
              model_value(slot, value, depth + 1, top)
            elsif slot.kind == Plan::OPEN || slot.type == :qname
              emit "#{pad}  out << #{open} << OpenContent.element_content(#{slot.type.inspect}, #{value}, #{close}) << '</' << #{close} << '>'"
            else
              emit "#{pad}  out << #{open} << '>' << Encoder.text(Types.to_xml_text(#{slot.type.inspect}, #{value})) << '</' << #{close} << '>'"
            end
            emit "#{pad}end"
          end

          def model_value(slot, value, depth, top)
            pad = "  " * depth
            emit "#{pad}raise Types::InvalidValue, \"expected #{slot.type}, got \#{Types.describe(#{value})}\" unless #{value}.is_a?(@types[#{slot.index}])"
            emit "#{pad}encoder = Encoder.for(#{value}.class)"
            if slot.name.nil?
              # A "*" item is named after its own class, in its own namespace.
              emit "#{pad}encoder.write(#{value}, out, encoder.root_tag, #{subtype(slot, value, "''")}, xsi_all, child_default, child_parent, true)"
            elsif no_namespace?(slot)
              emit "#{pad}encoder.write(#{value}, out, #{q(slot.name)}, #{subtype(slot, value, q(' xmlns=""'))}, xsi_all, nil, child_parent, true)"
            elsif slot.uri && !slot.uri.empty? && slot.uri != @plan.namespace
              prefix = Encoder.automatic_prefix(slot.uri)
              emit "#{pad}encoder.write(#{value}, out, #{q("#{prefix}:#{slot.name}")}, #{subtype(slot, value, q(declaration(prefix, slot.uri)))}, " \
                   "xsi_all, child_default, child_parent, true)"
            else
              # The element is named in this model's namespace; nested under a reset
              # default namespace it carries the reset itself.
              decl = top ? "reset" : "''"
              emit "#{pad}encoder.write(#{value}, out, pre + #{q(slot.name)}, #{subtype(slot, value, decl)}, xsi_all, " \
                   "#{top ? 'child_default' : 'nil'}, child_parent, true)"
            end
          end

          # The start tag's declarations, plus an xsi:type when the value is of a
          # subclass that declared xml_type (XML.subtype_attributes).
          def subtype(slot, value, declaration)
            "(#{value}.instance_of?(@types[#{slot.index}]) ? #{declaration} : #{declaration} + XML.subtype_attributes(#{value}.class))"
          end
        end
      end
    end
  end
end

# frozen_string_literal: true

module Wirebind
  module SOAP
    module Envelope
      # A model class's record element in SOAP encoding, as {EncodedWriter} writes
      # it, compiled once per class and SOAP version into Ruby source (+class_eval+
      # of a string, as the pure XML encoder's writers are): the start tag with its
      # +xsi:type+, each child's name and +xsi:type+, a declared list's array header
      # are literals, and the value a slot usually holds (a String where +:string+
      # is declared, a record of the declared class) is written inline. Anything
      # else (a value of another class, a list where a scalar is declared, XML
      # attributes, open content, a reference or a nested record) goes through the
      # writer's own methods, so the output is the same byte for byte.
      #
      # Names and namespaces in the source come from the schema, quoted with
      # +inspect+; classes are read from {#types}, never named in the source.
      #
      # @api private
      class EncodedRecordWriter
        # The classes whose values are written inline for each scalar type (any
        # other value takes the general path: a list, a model, a subclass).
        INLINE_CLASSES = Shareable.make(
          string: %w[::String], integer: %w[::Integer], float: %w[::Float], decimal: %w[::BigDecimal],
          boolean: %w[::TrueClass ::FalseClass], time: %w[::Time], date: %w[::Date], base64: %w[::String]
        )
        # The plan cache key of each SOAP version's writers.
        CACHE_KEYS = { "1.1" => :soap11_encoded_writer, "1.2" => :soap12_encoded_writer }.freeze

        class << self
          # @return [EncodedRecordWriter] the (cached) writer of +klass+'s records over +version+
          def for(klass, version)
            klass.wirebind_plan(CACHE_KEYS.fetch(version.number)) { Shareable.make(new(XML::Plan.for(klass), version)) }
          end
        end

        # @return [Array<Symbol, Class>] the declared type of each slot the source
        #   names by index (+@types[n]+)
        attr_reader :types
        # @return [Array<XML::Plan::Slot, XML::Plan::Group, Array>] the plan
        #   entries (and XML attribute lists) the general path is handed, by index
        attr_reader :entries

        def initialize(plan, version)
          @types = []
          @entries = []
          source = Generator.new(plan, version, @types, @entries).source
          singleton_class.class_eval(source, "(rpc/encoded writer of #{Model.display_name(plan.klass)})", 0)
          freeze
        end

        # Generates +write(writer, record, out, name, extra)+: the record's element,
        # named +name+, +extra+ (a multiRef's id, its encodingStyle) in its start tag.
        # @api private
        class Generator
          include SourceWriter

          def initialize(plan, version, types, entries)
            @plan = plan
            @version = version
            @types = types
            @entries = entries
            @lines = []
            @temp = 0
          end

          def source
            # the names, tags and types below are literals: one frozen String each, not one per record
            emit "# frozen_string_literal: true"
            emit "def write(w, record, out, name, extra)"
            emit "  out << '<' << name << extra << #{q(Writing.xsi_type_attribute(@plan.klass, 'ns2'))}"
            emit "  w.attributes(record, @entries[#{keep(@plan.attribute_writes)}])" unless @plan.attribute_writes.empty?
            emit "  out << '>'"
            text(@plan.text) if @plan.text
            @plan.writes.each { |entry| entry(entry, "  ") }
            emit "  out << '</' << name << '>'"
            emit "rescue Types::InvalidValue => e"
            emit "  raise EncodeError.new(e.message, path: name)"
            emit "end"
            @lines.join("\n")
          end

          private

          def keep(entry)
            @entries << entry
            @entries.size - 1
          end

          def type_index(type)
            @types << type
            @types.size - 1
          end

          def local
            "v#{@temp += 1}"
          end

          def reader(slot)
            "record.instance_variable_get(#{slot.attribute.ivar.inspect})"
          end

          # :xml as ".": the element's whole content, as the literal encoder writes it.
          def text(slot)
            v = local
            emit "  unless (#{v} = #{reader(slot)}).nil?"
            if slot.kind == XML::Plan::OPEN
              emit "    out << XML::OpenContent.xml_content(#{v})"
            else
              emit "    out << Envelope.text(Types.to_xml_text(#{slot.type.inspect}, #{v}))"
            end
            emit "  end"
          end

          def entry(entry, pad)
            if entry.kind == XML::Plan::GROUP
              EncodedWriter.soap_array?(entry) ? soap_array(entry, pad) : group(entry, pad)
            else
              slot(entry, entry.name || "item", pad)
            end
          end

          def group(group, pad)
            emit "#{pad}out << #{q("<#{group.name}")}"
            emit "#{pad}w.attributes(record, @entries[#{keep(group.attribute_writes)}])" unless group.attribute_writes.empty?
            emit "#{pad}out << '>'"
            group.writes.each { |entry| entry(entry, pad) }
            emit "#{pad}out << #{q("</#{group.name}>")}"
          end

          # A wrapper holding one list: its soapenc:Array header written from
          # literals when the list is an Array, its items as {#value} writes them.
          def soap_array(group, pad)
            only = group.writes.first
            list = local
            type = type_index(only.type)
            emit "#{pad}unless (#{list} = #{reader(only)}).nil?"
            format = only.string_format
            item_type, namespace = format ? ["xsd:#{Types::StringFormat.xsd_name(format)}", nil] : EncodedWriter.declared_item_type(only.type)
            if item_type
              array = @version.array
              head = "<#{group.name}#{array[0]}#{item_type}#{array[1]}"
              tail = "#{array[2]}#{%( xmlns:ns2="#{Envelope.attribute(namespace)}") if namespace}>"
              emit "#{pad}  if #{list}.instance_of?(Array)"
              emit "#{pad}    out << #{q(head)} << #{list}.size.to_s << #{q(tail)}"
              item = local
              emit "#{pad}    #{list}.each do |#{item}|"
              value("item", item, only.type, type, "#{pad}      ", format)
              emit "#{pad}    end"
              emit "#{pad}    out << #{q("</#{group.name}>")}"
              emit "#{pad}  else"
              emit "#{pad}    w.array(#{q(group.name)}, #{list}, @types[#{type}], '')"
              emit "#{pad}  end"
            else
              emit "#{pad}  w.array(#{q(group.name)}, #{list}, @types[#{type}], '')"
            end
            emit "#{pad}end"
          end

          def slot(slot, name, pad)
            v = local
            emit "#{pad}#{v} = #{reader(slot)}"
            if slot.attribute_writes
              emit "#{pad}w.scalar_with_attributes(record, @entries[#{keep(slot)}], #{q(name)}, #{v})"
            elsif slot.list
              list(slot, name, v, pad)
            else
              emit "#{pad}if #{v}.nil?"
              emit "#{pad}  out << #{q(%(<#{name} xsi:nil="true"/>))}" if slot.nil_xsi
              emit "#{pad}else"
              value(name, v, slot.type, type_index(slot.type), "#{pad}  ", slot.string_format)
              emit "#{pad}end"
            end
          end

          def list(slot, name, v, pad)
            emit "#{pad}unless #{v}.nil?"
            emit "#{pad}  raise EncodeError.new(\"expected an Array, got \#{Types.describe(#{v})}\", path: #{q(name)}) unless #{v}.is_a?(Array)"
            item = local
            if slot.kind == XML::Plan::OPEN && slot.name.nil?
              # "*" :any items (an xsd:any wildcard's elements): each under the name it holds
              emit "#{pad}  #{v}.each { |#{item}| w.wildcard(#{item}) }"
            else
              type = type_index(slot.type)
              emit "#{pad}  #{v}.each do |#{item}|"
              value(name, item, slot.type, type, "#{pad}    ", slot.string_format)
              emit "#{pad}  end"
            end
            emit "#{pad}end"
          end

          # A non-nil value +v+ of declared type +type+ (+@types[index]+), as
          # EncodedWriter#value writes it: inline when its class is the usual one
          # (a +:string+ of a +format:+ typed as its XSD type, e.g. xsd:duration).
          def value(name, v, type, index, pad, format = nil)
            if type.is_a?(Class)
              emit "#{pad}#{v}.instance_of?(@types[#{index}]) ? w.model(#{q(name)}, #{v}) : w.value(#{q(name)}, #{v}, @types[#{index}])"
            elsif (classes = INLINE_CLASSES[type])
              emit "#{pad}if #{classes.map { |klass| "#{v}.instance_of?(#{klass})" }.join(' || ')}"
              emit "#{pad}  begin"
              emit "#{pad}    out << #{start_tag(name, type, v, format)}"
              emit "#{pad}    #{scalar_text(type, v)}"
              emit "#{pad}    out << #{q("</#{name}>")}"
              emit "#{pad}  rescue Types::InvalidValue => e"
              emit "#{pad}    raise EncodeError.new(e.message, path: #{q(name)})"
              emit "#{pad}  end"
              emit "#{pad}else"
              emit "#{pad}  w.value(#{q(name)}, #{v}, @types[#{index}])"
              emit "#{pad}end"
            else
              emit "#{pad}w.value(#{q(name)}, #{v}, @types[#{index}])"
            end
          end

          # Appends the value's text: on the native backend by the C engine XML.encode
          # uses, Ruby writing (or refusing) what it declines, the same bytes either way.
          def scalar_text(type, v)
            ruby = "out << Envelope.text(Types.to_xml_text(#{type.inspect}, #{v}))"
            return ruby unless Writing::NATIVE_TEXT

            "XML::Native.append_scalar_text(out, #{type.inspect}, #{v}) || (#{ruby})"
          end

          # '<name xsi:type="xsd:T">', an Integer's type chosen by its range (Envelope.xsd_type).
          def start_tag(name, type, v, format = nil)
            return q(%(<#{name} xsi:type="xsd:#{Types::StringFormat.xsd_name(format)}">)) if format
            return q(%(<#{name} xsi:type="#{Envelope.xsd_type(type, nil)}">)) unless type == :integer

            small = q(%(<#{name} xsi:type="#{Envelope.xsd_type(:integer, 0)}">))
            large = q(%(<#{name} xsi:type="#{Envelope.xsd_type(:integer, INT_RANGE.end)}">))
            "(INT_RANGE.cover?(#{v}) ? #{small} : #{large})"
          end
        end
      end
    end
  end
end

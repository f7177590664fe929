# frozen_string_literal: true

module Wirebind
  module SOAP
    module Envelope
      # Writes the operation element in SOAP 1.1 encoding (rpc/encoded, as Axis 1
      # and the JIRA SOAP API speak it): an +xsi:type+ on every value whose type
      # has a name (a scalar's, a model's +xml_type+; a model with none, such as a
      # generated class of an element's anonymous type, is left to the schema), lists as
      # +soapenc:Array+ with +soapenc:arrayType="p:Type[n]"+ (+[]+ for an Enumerator,
      # whose length is not known up front), and, with +multi_ref+, every model
      # value as +href="#idN"+ with the record written once, as a
      # +<multiRef id="idN" soapenc:root="0">+ sibling after the operation element
      # (the same object referenced twice is written once). Over SOAP 1.2 the
      # references are +enc:ref="idN"+ and the multiRefs carry +enc:id="idN"+, and
      # lists are SOAP 1.2 encoding's arrays (Part 2 section 3.1.6): +enc:Array+ with
      # +enc:itemType="p:Type"+ and +enc:arraySize="n"+ (+*+ for an Enumerator).
      #
      # Models are walked through their {XML::Plan}: XML attributes, the element's
      # text, wrapper groups (a wrapper holding one list, +affectsVersions/*+, is the
      # +soapenc:Array+) and child elements, unqualified; each class's records by
      # its {EncodedRecordWriter}, compiled once. Inline nesting deeper than
      # {MAX_DEPTH} (a cycle) is an {EncodeError}; with +multi_ref+ cycles are fine.
      #
      # Written to anything but a String (a streamed response's pieces), the XML is
      # gathered in a String of its own and handed on about every {Chunks::SIZE}
      # bytes, after a record or a list item: one +<<+ per piece instead of one per
      # name and value.
      #
      # @api private
      class EncodedWriter
        # @param version [Version] how references, referents, arrays and +encodingStyle+ are written
        def initialize(out, multi_ref, version = SOAP11)
          if out.is_a?(String)
            @out = out
          else
            @sink = out
            @out = String.new(capacity: Chunks::SIZE * 2, encoding: Encoding::UTF_8)
          end
          @version = version
          @writers = {}.compare_by_identity
          @encoding_style = version.encoding_style
          @reference = version.reference
          @referent = version.referent
          @array = version.array
          @unknown_size = version.unknown_size
          @multi_ref = multi_ref
          @ids = {}.compare_by_identity
          @pending = []
          @depth = 0
        end

        # The XML attributes SOAP encoding gives a meaning of its own on any element
        # of the body (+id+ and +href+, in no namespace: a multiRef's id and a
        # reference to one): a model's XML attribute of that name would be read as one.
        RESERVED_ATTRIBUTES = %w[id href].freeze
        RESERVED_PATH = %r{(?:\A|/)@(?:id|href)\z}

        # Refuses model classes (reached from +types+, a service's argument and
        # result types) that map an XML attribute SOAP encoding reserves.
        # @param types [Array<Symbol, Class, Array>]
        # @param context [String] what declared them, for the message
        # @raise [SchemaError] naming the field
        def self.check_types(types, context)
          seen = {}.compare_by_identity
          queue = types.map { |type| type.is_a?(Array) ? type.first : type }
          until queue.empty?
            klass = queue.shift
            next unless klass.is_a?(Class) && klass.include?(Wirebind::Model) && !seen[klass]

            seen[klass] = true
            klass.attributes.each do |attribute|
              if attribute.xml.is_a?(String) && attribute.xml.match?(RESERVED_PATH)
                raise SchemaError, "#{context}: #{Model.display_name(klass)}##{attribute.name} (xml: #{attribute.xml.inspect}) " \
                                   "cannot be sent rpc/encoded: SOAP encoding reads an XML attribute " \
                                   "#{attribute.xml[/@(\w+)\z/, 1]} as a multiRef id or reference (rename it, or use :document or :rpc)"
              end
              queue.concat(attribute.choices || [attribute.type])
            end
          end
        end

        # The arrayType's item type of a declared one: a model class's +"ns2:Type"+
        # and its namespace, or a scalar type's +"xsd:T"+; nil for none. A model
        # class without an +xml_type+ (a generated class of an element's anonymous
        # type) has no type name to give: +xsd:anyType+, its items written without
        # xsi:type (an element's name in its place would resolve to no type).
        # @return [Array(String, String), Array(String, nil), nil]
        def self.declared_item_type(item_type)
          case item_type
          when Class
            local, namespace = item_type.xml_type
            return ["xsd:anyType", nil] unless local

            namespace ? ["ns2:#{local}", namespace] : [local, nil]
          when Symbol then [Envelope.xsd_type(item_type, nil), nil]
          end
        end

        # Whether +group+ (a Plan::Group) is written as a +soapenc:Array+: a
        # wrapper holding one list of unnamed items (+"versions/*"+) and no XML
        # attributes of its own.
        # @return [Boolean]
        def self.soap_array?(group)
          only = group.writes.size == 1 && group.writes.first
          only && only.kind != XML::Plan::GROUP && only.list && only.name.nil? && group.attribute_writes.empty? ? true : false
        end

        def operation(name, namespace, parts, types, result = nil)
          Writing.check_name(name, "operation")
          out = @out
          if namespace
            out << "<#{OPERATION_PREFIX}:" << name << @encoding_style << " xmlns:#{OPERATION_PREFIX}=\"" << Envelope.attribute(namespace) << '">'
            close = "#{OPERATION_PREFIX}:#{name}"
          else
            out << "<" << name << @encoding_style << ">"
            close = name
          end
          out << result if result
          parts.each do |key, value|
            name = Writing.check_name(key.is_a?(Symbol) ? key.name : key.to_s, "part") # Symbol#name: no copy
            value(name, value, Writing.declared(types, key))
          end
          out << "</" << close << ">"
          write_multi_refs
          flush(0)
        end

        # The methods below are the general path each EncodedRecordWriter falls
        # back on (public for it, not for users).

        def value(name, value, type)
          if Writing.list?(value)
            array(name, value, type.is_a?(Array) ? type.first : nil, "")
          elsif value.nil?
            @out << "<" << name << ' xsi:nil="true"/>'
          elsif value.class.include?(Wirebind::Model)
            model(name, value)
          elsif Types.open?(type)
            open_content(name, value, type)
          else
            scalar(name, value, type.is_a?(Symbol) ? type : nil)
          end
        end

        # +:any+ and +:xml+ as the codec writes them (no xsi:type: any content);
        # +:qname+ typed xsd:QName, its prefix declared on the element.
        def open_content(name, value, type)
          @out << "<" << name
          @out << ' xsi:type="xsd:QName"' if type == :qname
          @out << XML::OpenContent.element_content(type, value, name) << "</" << name << ">"
        rescue Types::InvalidValue => e
          raise EncodeError.new(e.message, path: name)
        end

        def scalar(name, value, type)
          type = Writing.scalar(name, value, type)
          @out << "<" << name << ' xsi:type="' << Envelope.xsd_type(type, value) << '">'
          Writing.append_text(@out, type, value)
          @out << "</" << name << ">"
        rescue Types::InvalidValue => e
          raise EncodeError.new(e.message, path: name)
        end

        def array(name, list, item_type, attributes)
          # a wrapper's list holding something else (a String) is the caller's mistake, not a NoMethodError
          raise EncodeError.new("expected an Array, got #{Types.describe(list)}", path: name) unless Writing.list?(list)

          type, namespace = array_item_type(list, item_type)
          size = list.is_a?(Array) ? list.size.to_s : @unknown_size
          @out << "<" << name << attributes << @array[0] << type << @array[1] << size << @array[2]
          @out << ' xmlns:ns2="' << Envelope.attribute(namespace) << '"' if namespace
          @out << ">"
          list.each do |item|
            value("item", item, item_type)
            flush(Chunks::SIZE)
          end
          @out << "</" << name << ">"
        end

        # The arrayType's item type: declared, or the one type all items share, else xsd:anyType.
        def array_item_type(list, item_type)
          if item_type.nil? && list.is_a?(Array) && !list.empty?
            classes = list.map(&:class).uniq
            if classes.size == 1 && classes.first.include?(Wirebind::Model)
              item_type = classes.first
            else
              scalars = list.map { |item| Envelope.scalar_type(item) }.uniq
              item_type = scalars.first if scalars.size == 1 && scalars.first
            end
          end
          EncodedWriter.declared_item_type(item_type) || ["xsd:anyType", nil]
        end

        def model(name, record)
          if @multi_ref
            id = @ids[record]
            unless id
              id = @ids[record] = "id#{@ids.size}"
              @pending << record
            end
            @out << "<" << name << @reference[0] << id << @reference[1] << "/>"
          else
            @depth += 1
            raise EncodeError.new("models nest deeper than #{MAX_DEPTH} (a cycle?)", path: name) if @depth > MAX_DEPTH

            record_element(name, record, "")
            @depth -= 1
          end
        end

        # Depth first: each multiRef is followed by the ones it introduced (the
        # records it references that were not written yet), so that a streaming
        # reader completes the first list item after reading its own multiRefs,
        # not after every item's (Axis writes them level by level, which makes a
        # reader hold every item at once). A stack of lists, not recursion.
        def write_multi_refs
          return write_levels if @multi_ref == :breadth_first

          stack = [@pending]
          @pending = []
          until stack.empty?
            list = stack.last
            record = list.shift
            unless record
              stack.pop
              next
            end
            record_element("multiRef", record, "#{@referent[0]}#{@ids[record]}#{@referent[1]}#{@encoding_style}")
            next if @pending.empty?

            stack << @pending
            @pending = []
          end
        end

        # Axis 1's order: every multiRef of a level, then those they introduced.
        def write_levels
          index = 0
          while index < @pending.size
            record = @pending[index]
            @pending[index] = nil # written: let it go
            index += 1
            record_element("multiRef", record, "#{@referent[0]}#{@ids[record]}#{@referent[1]}#{@encoding_style}")
          end
          @pending.clear
        end

        # Hands what was gathered on to the sink once it holds at least +size+
        # bytes: a copy, then emptied in place (a record being written holds on to
        # the same String).
        def flush(size)
          return unless @sink && @out.bytesize >= size && !@out.empty?

          @sink << @out.dup
          @out.clear
        end

        def record_element(name, record, extra)
          klass = record.class
          (@writers[klass] ||= EncodedRecordWriter.for(klass, @version)).write(self, record, @out, name, extra)
          flush(Chunks::SIZE)
        end

        # The XML attributes of a record's element, a wrapper's or a scalar's
        # (+"@id"+, +"address/@zip"+, +"Amt/@Ccy"+), those with no value left out.
        def attributes(record, slots, out = @out)
          slots.each_with_index do |slot, n|
            v = record.instance_variable_get(slot.attribute.ivar)
            next if v.nil?

            if slot.uri.nil? && RESERVED_ATTRIBUTES.include?(slot.name)
              raise EncodeError.new("#{Model.display_name(record.class)}##{slot.attribute.name} (xml: #{slot.attribute.xml.inspect}) " \
                                    "cannot be written rpc/encoded: SOAP encoding reads an XML attribute #{slot.name} as a multiRef " \
                                    "id or reference", path: slot.attribute.xml)
            end

            out << " " << attribute_name(slot, n) << '="'
            # a :qname's prefix is declared beside it (no default namespace is in scope in an encoded body)
            out << (slot.type == :qname ? XML::OpenContent.qname_attribute(v, false, n) : "#{Envelope.attribute(Types.to_xml_text(slot.type, v))}\"")
          end
          out
        end

        # An XML attribute in a namespace gets a prefix declared just before it, one of
        # its own per attribute of the element (no clash with the ns1/ns2 of
        # the operation and the xsi:type).
        def attribute_name(slot, n)
          return slot.name if slot.uri.nil? || slot.uri.empty?
          return "xml:#{slot.name}" if slot.uri == Namespaces::XML

          %(xmlns:at#{n}="#{Envelope.attribute(slot.uri)}" at#{n}:#{slot.name})
        end

        # "Amt" beside "Amt/@Ccy": the schema gives <Amt> a simpleContent type of
        # its own, so no xsi:type (xsd:decimal would not be derived from it); a nil
        # value beside attributes is xsi:nil, as the literal encoder writes it.
        def scalar_with_attributes(record, slot, name, value)
          marks = attributes(record, slot.attribute_writes, +"")
          if value.nil?
            @out << "<" << name << marks << ' xsi:nil="true"/>' if slot.nil_xsi || !marks.empty?
          else
            type = Writing.scalar(name, value, slot.type)
            @out << "<" << name << marks << ">" << Envelope.text(Types.to_xml_text(type, value)) << "</" << name << ">"
          end
        end

        def wildcard(item)
          @out << XML::OpenContent.wildcard_element(item, "")
        rescue Types::InvalidValue => e
          raise EncodeError.new(e.message, path: "*")
        end

        private :open_content, :scalar, :array_item_type, :write_multi_refs, :write_levels, :flush, :record_element, :attribute_name
      end
    end
  end
end

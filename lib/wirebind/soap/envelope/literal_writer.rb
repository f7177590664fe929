# frozen_string_literal: true

module Wirebind
  module SOAP
    module Envelope
      # Writes the operation element in the literal styles: +:document+ puts it in
      # its namespace as the default namespace (so the parts and the models'
      # unprefixed children are qualified, as document/literal wrapped services
      # expect), +:rpc+ gives it a prefix and leaves the parts unqualified.
      # Models go through {Wirebind::XML.encode}; a model whose class is a
      # subclass of the declared one that declared +xml_type+ gets an +xsi:type+.
      #
      # @api private
      class LiteralWriter
        def initialize(out, style, wrap_lists: false)
          @out = out
          @document = style == :document
          @repeat_lists = @document && !wrap_lists
        end

        def operation(name, namespace, parts, types, result = nil)
          Writing.check_name(name, "operation")
          @namespace = @document ? namespace : nil
          out = @out
          if namespace.nil?
            out << "<" << name << ">"
            close = name
          elsif @document
            out << "<" << name << ' xmlns="' << Envelope.attribute(namespace) << '">'
            close = name
          else
            out << "<#{OPERATION_PREFIX}:" << name << " xmlns:#{OPERATION_PREFIX}=\"" << Envelope.attribute(namespace) << '">'
            close = "#{OPERATION_PREFIX}:#{name}"
          end
          out << result if result
          parts.each do |key, value|
            name = Writing.check_name(key.is_a?(Symbol) ? key.name : key.to_s, "part") # Symbol#name: no copy
            part(name, value, Writing.declared(types, key))
          end
          out << "</" << close << ">"
        end

        private

        def part(name, value, type)
          if Writing.list?(value)
            item_type = type.is_a?(Array) ? type.first : nil
            if @repeat_lists
              value.each { |item| element(name, item, item_type) }
            else
              @out << "<" << name << ">"
              value.each { |item| element("item", item, item_type) }
              @out << "</" << name << ">"
            end
          else
            element(name, value, type.is_a?(Array) ? nil : type)
          end
        end

        def element(name, value, type)
          out = @out
          if value.nil?
            out << "<" << name << ' xsi:nil="true"/>'
          elsif value.class.include?(Wirebind::Model)
            out << model_element(name, value)
          else
            scalar = Writing.scalar(name, value, type)
            out << "<" << name << ">"
            Writing.append_text(out, scalar, value)
            out << "</" << name << ">"
          end
        rescue Types::InvalidValue => e
          raise EncodeError.new(e.message, path: name)
        end

        # A document/literal part is in its operation's namespace (the default
        # one there), whichever namespace its model's type is in: pbm's _this, a
        # vim25 ManagedObjectReference, is {urn:pbm}_this. XML.encode writes the
        # root: name of a model with a prefix unprefixed (so, there, in the
        # operation's namespace), but that of a model without one in the model's
        # namespace (and the xsi:type of a subclass that declared xml_type).
        def model_element(name, value)
          klass = value.class
          uri = klass.xml_namespace_uri
          return XML.encode(value, root: name) if @namespace.nil? || uri.nil? || uri == @namespace || klass.xml_namespace_prefix

          XML::Pure.nested_element(Model.encodable(value), name, @namespace)
        end
      end

      # Helpers both writers share.
      # @api private
      module Writing
        NAME = XML::Syntax::NCNAME_ONLY
        # Whether scalars' text is written by C (XML::Native.append_scalar_text).
        NATIVE_TEXT = Wirebind.backend == :native

        module_function

        # Appends Envelope.text(Types.to_xml_text(type, value)) to +out+: on the
        # native backend by the C engine XML.encode uses when +out+ is a String,
        # Ruby writing (or refusing) what it declines; the same bytes either way.
        def append_text(out, type, value)
          (NATIVE_TEXT && out.is_a?(String) && XML::Native.append_scalar_text(out, type, value)) ||
            out << Envelope.text(Types.to_xml_text(type, value))
        end

        def check_name(name, what)
          return name if name.match?(NAME)

          raise ArgumentError, "a #{what} name must be an XML name without a prefix, not #{name.inspect}"
        end

        def declared(types, key)
          return nil if types.empty? # a client's call without types: no String made for the lookup

          types[key] || types[key.to_s] || (key.is_a?(String) ? types[key.to_sym] : nil)
        end

        def list?(value)
          value.is_a?(Array) || value.is_a?(Enumerator)
        end

        # The scalar type a value is written as: the declared one, else its class's.
        def scalar(name, value, type)
          return type if type.is_a?(Symbol)

          Envelope.scalar_type(value) ||
            raise(EncodeError.new("cannot write #{Types.describe(value)} in SOAP (nil, String, Integer, Float, " \
                                  "BigDecimal, true, false, Time, Date, a model or an Array of them)", path: name))
        end

        # [local name, namespace] of a model class's XML Schema type.
        def type_name(klass)
          klass.xml_type || [klass.xml_root, klass.xml_namespace_uri]
        end

        # +xsi:type="p:Name" xmlns:p="..."+ for a model class that declares its
        # +xml_type+; nothing for one that does not (a generated class of an
        # element's anonymous type, a model naming only its +xml_root+): there is
        # no type name to give, and SOAP 1.1 section 5.1 lets the schema's element
        # declaration determine the value's type. (The element's name in its
        # place would resolve to no type: schema-invalid, refused by validating peers.)
        def xsi_type_attribute(klass, prefix)
          local, namespace = klass.xml_type
          return "" unless local
          return %( xsi:type="#{local}") unless namespace

          %( xsi:type="#{prefix}:#{local}" xmlns:#{prefix}="#{Envelope.attribute(namespace)}")
        end
      end
    end
  end
end

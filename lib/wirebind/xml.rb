# frozen_string_literal: true

require_relative "xml/plan"
require_relative "xml/path"
require_relative "xml/references"
require_relative "xml/escape"
require_relative "xml/tokenizer"
require_relative "xml/pure/decoder"
require_relative "xml/pure/encoder"
require_relative "xml/capture"
require_relative "xml/open_content"
require_relative "xml/native" if Wirebind.backend == :native

module Wirebind
  # Reads and writes XML with the schema declared on {Wirebind::Model} classes.
  #
  # The front door: it validates options once, compiles (or fetches) the plan of
  # the type, and hands both to the backend chosen in {Wirebind.backend}.
  #
  # @example
  #   issues = Wirebind::XML.decode(io, [Issue], at: "Envelope/Body/getIssuesResponse/return/item")
  #   Wirebind::XML.each(io, Issue, at: "Envelope/Body/*/return/*") { |issue| puts issue.key }
  #   xml = Wirebind::XML.encode(issues.first)
  module XML
    # Limits that are on unless a caller changes them.
    DEFAULT_LIMITS = {
      max_depth: 1024,
      max_token_size: 64 * 1024 * 1024,
      max_entity_expansions: 10_000,
      max_entity_bytes: 1024 * 1024,
      max_entity_depth: 32,
      max_attributes: 10_000,
      max_namespaces: 10_000
    }.freeze

    # How many SOAP encoding references may wait for their element at once (+max_references:+).
    DEFAULT_MAX_REFERENCES = 1_000_000

    ELEMENT_NAME = XML::Syntax::NCNAME_ONLY
    DTD_POLICIES = %i[internal reject].freeze
    NIL_STYLES = %i[omit xsi].freeze
    private_constant :ELEMENT_NAME, :DTD_POLICIES, :NIL_STYLES

    class << self
      # Decodes an XML document into instances of +type+.
      #
      # @param input [String, IO] the document; an IO is read in 64 KiB chunks
      # @param type [Class, Symbol, Array(Class), Array(Symbol)] a model class or scalar
      #   type for one record, or a one-element Array of it for a list of records
      # @param at [String, Path, nil] path of local names from the document element to the
      #   record element(s), +*+ matching any one element, +\{uri}local+ a name in a
      #   namespace; or the same as a {Path}; nil decodes the document
      #   element itself (for a list type: its child elements). The path starts with
      #   the document element: +"Envelope/Body/item"+, not +"Body/item"+.
      # @param strict [Boolean] raise {DecodeError} on elements the schema does not know
      # @param dtd [Symbol] +:reject+ (the default) refuses any DOCTYPE: SOAP forbids them
      #   and every entity attack needs one. +:internal+ reads an internal DTD subset and
      #   expands its internal entities within the limits. External DTDs and entities are
      #   never read; referencing an external or undeclared entity is an error.
      # @param missing [Symbol, nil] +:raise+: raise {DecodeError} when the +at:+ path
      #   matched nothing (for a list: when the element holding the items was never
      #   found), instead of returning nil (or +[]+, which then means "found, empty")
      # @param default_offset [String, nil] the offset (+"Z"+, +"+hh:mm"+) of +:time+
      #   values written without one, for attributes that declare no +default_offset:+
      #   of their own; by default such a time is read as UTC
      # @param references [Boolean] resolve SOAP 1.1 encoding references (rpc/encoded,
      #   Axis's +multiRef+s): a value element with +href="#x"+ takes the value of the
      #   element with +id="x"+ outside the records (before or after it; the same object
      #   for every reference to it; scalars too). Such elements are never records
      #   themselves. A dangling reference, a cycle between referents, or more than
      #   +max_references+ pending at once is a {DecodeError}.
      # @param max_references [Integer] most references waiting for their element at once
      # @param limits [Hash] overrides of {DEFAULT_LIMITS}
      # @param backend [Symbol] +:pure+ or +:native+; the default is {Wirebind.backend}
      # @return [Object, Array, nil] the record, nil if +at:+ matched nothing, or the list
      # @raise [ParseError] not well-formed, with line and column
      # @raise [LimitError] a limit was exceeded
      # @raise [DecodeError] well-formed but does not fit the schema, with path and line
      def decode(input, type, at: nil, strict: false, dtd: :reject, backend: Wirebind.backend,
                 references: false, max_references: DEFAULT_MAX_REFERENCES, missing: nil, default_offset: nil, **limits)
        item, list = Options.type(type)
        path = compile_path(at, list)
        Options.boolean(:strict, strict)
        options = decode_options(tokenizer_options(limits, dtd), at, missing, default_offset)
        options[:references] = references_for(references, max_references, nil) unless references == false
        backend_for(backend).decode(input, item, list, path, strict, options)
      end

      # Streams records one at a time: each is yielded as soon as its end tag is
      # read and is not retained, so memory stays flat however large the input.
      #
      # @param (see .decode)
      # @yieldparam record [Object]
      # @return [Integer, Enumerator] the number of records yielded, or an Enumerator without a block
      def each(input, type, at: nil, strict: false, dtd: :reject, backend: Wirebind.backend,
               references: false, max_references: DEFAULT_MAX_REFERENCES, missing: nil, default_offset: nil, **limits, &block)
        unless block
          return enum_for(:each, input, type, at: at, strict: strict, dtd: dtd, backend: backend, references: references,
                                              max_references: max_references, missing: missing, default_offset: default_offset, **limits)
        end

        item, = Options.type(type)
        path = compile_path(at, true)
        Options.boolean(:strict, strict)
        options = decode_options(tokenizer_options(limits, dtd), at, missing, default_offset)
        options[:references] = references_for(references, max_references, block) unless references == false
        backend_for(backend).each(input, item, path, strict, options, block)
      end

      # Encodes a model instance (or a list of them) as XML.
      #
      # @param value [Wirebind::Model, Array<Wirebind::Model>]
      # @param io [IO, nil] write to this IO (in 64 KiB pieces) instead of returning a String
      # @param root [String, nil] the root element's name; default the model's +xml_root+.
      #   For a list, the wrapper element's name (required).
      # @param item [String, nil] for a list, each item's element name; default each model's +xml_root+
      # @param nil [Symbol] +:omit+ leaves nil values out (the default, unless the attribute says
      #   otherwise); +:xsi+ writes every nil as +xsi:nil="true"+
      # @param declaration [Boolean] start with +<?xml version="1.0" encoding="UTF-8"?>+
      # @return [String, Integer] the document, or the bytes written to +io+
      # @raise [EncodeError] a value does not fit its declared type
      def encode(value, io: nil, root: nil, item: nil, nil: :omit, declaration: false, backend: Wirebind.backend)
        nil_style = binding.local_variable_get(:nil)
        Options.one_of(:nil, nil_style, NIL_STYLES)
        Options.boolean(:declaration, declaration)
        Options.io(io)

        check_element_name(root, :root) if root
        check_element_name(item, :item) if item
        if value.is_a?(Array)
          raise ArgumentError, "encoding a list needs root: (the wrapper element's name)" unless root

          value.each { |v| check_model_instance(v) }
        else
          check_model_instance(value)
        end
        value = Model.encodable(value)
        backend_for(backend).encode(value, io, root, item, nil_style, declaration)
      end

      # The attributes an encoder adds to the start tag of a record whose class is
      # a subclass of the declared one: +xsi:type+ naming its {Model::ClassMethods#xml_type}
      # (with the declarations it needs), or "" when it declared none. Cached per class.
      #
      # @api private
      # @param klass [Class]
      # @return [String] frozen
      def subtype_attributes(klass)
        subtype_parts(klass)[0]
      end

      # Whether a record of +klass+ written at the top of a document (alone or as an
      # item of a list) says its type with +xsi:type+: when the class declared its own
      # {Model::ClassMethods#xml_type} and extends another model class, whose decoding
      # would otherwise give a record of the parent class without the subclass's fields.
      #
      # @api private
      # @param klass [Class]
      # @return [Boolean]
      def top_level_subtype?(klass)
        !klass.xml_type.nil? && !klass.superclass.nil? && klass.superclass < Model
      end

      # The message of the EncodeError for a record of an abstract class (both encoders).
      #
      # @api private
      # @param klass [Class]
      # @return [String]
      def abstract_message(klass)
        "#{Model.display_name(klass)} is abstract (xml_abstract): write an instance of a concrete subclass"
      end

      # What each declared scalar type accepts as the instance +xsi:type+ of its
      # value (by the kind References::XSD_SCALARS gives the XML Schema name).
      INSTANCE_TYPES = Shareable.make(
        string: %i[string integer float decimal boolean time date base64],
        base64: %i[base64 string], integer: %i[integer string], float: %i[float decimal integer string],
        decimal: %i[decimal integer float string], boolean: %i[boolean string], time: %i[time string], date: %i[date string]
      )
      private_constant :INSTANCE_TYPES

      # What an instance +xsi:type+ does to the text of a value declared +declared+:
      # nil when the text is read as it is, +:base64_text+ when it is the UTF-8
      # text of the base64 bytes; an incompatible pair is a {DecodeError}. The
      # decoders remember nil answers per pair, so that a document writing
      # +xsi:type+ on every leaf (rpc/encoded) asks once per pair.
      #
      # @api private
      # @param declared [Symbol]
      # @param local [String]
      # @param uri [String, nil]
      # @return [Symbol, nil]
      # @raise [DecodeError]
      def instance_rule(declared, local, uri)
        return nil unless References::SCALAR_NAMESPACES.include?(uri) && (kind = References::XSD_SCALARS[local])

        accepted = INSTANCE_TYPES[declared] or return nil
        raise DecodeError, "xsi:type #{local.inspect} does not fit a value declared #{declared.inspect}" unless accepted.include?(kind)

        :base64_text if kind == :base64 && declared == :string
      end

      # The text of a scalar value whose element names a built-in XML Schema type
      # in +xsi:type+ (SOAP::Lite sends non-ASCII text as +xsd:base64Binary+):
      # +base64Binary+ on a +:string+ is the decoded bytes, as UTF-8 text (bytes
      # that are not UTF-8 are a {DecodeError}: declare +:base64+ for bytes); any
      # other compatible pair ({INSTANCE_TYPES}) is the text as it is, read by the
      # declared type; an incompatible one is a {DecodeError} naming it. An
      # +xsi:type+ outside XML Schema's (and SOAP encoding's) namespace, or not one
      # of its scalars, is left to the declared type.
      #
      # @api private
      # @param declared [Symbol] the value's declared scalar type
      # @param local [String] the xsi:type's local name
      # @param uri [String, nil] its namespace
      # @param text [String]
      # @return [String]
      # @raise [DecodeError]
      def instance_text(declared, local, uri, text)
        return text unless instance_rule(declared, local, uri)

        bytes = Types.from_xml_text(:base64, text) || +""
        decoded = bytes.dup.force_encoding(Encoding::UTF_8)
        return decoded if decoded.valid_encoding?

        raise DecodeError, "xsi:type #{local.inspect} on a value declared :string holds bytes that are not UTF-8 text " \
                           "(declare it :base64 for the bytes)"
      rescue Types::InvalidValue => e
        raise DecodeError, "xsi:type #{local.inspect}: #{e.message}"
      end

      # {subtype_attributes} in parts, for encoders that know which namespaces are
      # in scope: the attributes with the declaration of the type's namespace, the
      # same without it, and the prefix and namespace that declaration binds
      # (nil when the type has no namespace). Cached per class.
      #
      # @api private
      # @param klass [Class]
      # @return [Array(String, String, String, String)] frozen
      def subtype_parts(klass)
        klass.wirebind_plan(:xsi_type) do
          local, uri = klass.xml_type
          if local.nil?
            ["", "", nil, nil]
          elsif uri.nil?
            attributes = %( xsi:type="#{local}"#{XML::Escape::XSI_DECLARATION}).freeze
            [attributes, attributes, nil, nil]
          else
            # The prefix the class declares for the namespace (its own, or xml_prefix), else the automatic one.
            prefix = (klass.xml_namespace_prefix if uri == klass.xml_namespace_uri) || klass.xml_prefixes[uri] ||
                     XML::Escape.automatic_prefix(uri)
            type = %( xsi:type="#{prefix}:#{local}")
            [%(#{type}#{XML::Escape.declaration(prefix, uri)}#{XML::Escape::XSI_DECLARATION}).freeze,
             %(#{type}#{XML::Escape::XSI_DECLARATION}).freeze, -prefix, uri]
          end.freeze
        end
      end

      # Checks that a document is well-formed XML 1.0 with namespaces, within the limits.
      #
      # @param input [String, IO]
      # @return [true]
      # @raise [ParseError, LimitError]
      def check(input, dtd: :reject, backend: Wirebind.backend, **limits)
        backend_for(backend).check(input, tokenizer_options(limits, dtd))
      end

      private

      def backend_for(name)
        Backend.implementation(:xml, name)
      end

      def references_for(references, max, block)
        Options.boolean(:references, references)
        Options.positive_integer(:max_references, max)
        References.new(max, block)
      end

      WHOLE_DOCUMENT = [Plan::ANY_STEP].freeze
      DOCUMENT_CHILDREN = [Plan::ANY_STEP, Plan::ANY_STEP].freeze

      # at: as the backends take it: [[local, uri], ...] (a Path's steps; a String
      # parsed into one on each call: a few microseconds, against a cache shared
      # by every thread).
      def compile_path(at, list)
        return list ? DOCUMENT_CHILDREN : WHOLE_DOCUMENT if at.nil?

        (at.is_a?(Path) ? at : Path.parse(at)).steps
      end

      def tokenizer_options(limits, dtd)
        options = Options.limits(limits, DEFAULT_LIMITS)
        Options.one_of(:dtd, dtd, DTD_POLICIES)
        options[:dtd] = dtd
        options
      end

      # The decode-only options, added to the tokenizer's: +missing:+ becomes the
      # message to raise (nil: none), so both backends say the same thing.
      def decode_options(options, at, missing, default_offset)
        unless default_offset.nil? || (default_offset.is_a?(String) && default_offset.match?(Model::Attribute::OFFSET_PATTERN))
          raise ArgumentError, "default_offset: must be nil, \"Z\" or \"+hh:mm\"/\"-hh:mm\", not #{default_offset.inspect}"
        end
        raise ArgumentError, "missing: must be nil or :raise, not #{missing.inspect}" unless missing.nil? || missing == :raise

        message = missing && "at: #{(at.is_a?(Path) ? at.to_s : at).inspect} matched no element (a path starts with the document element's local name, " \
                             "as in \"Envelope/Body/response/item\")"
        options.merge(default_offset: default_offset && -default_offset, missing: message)
      end

      def check_element_name(name, option)
        return if name.is_a?(String) && name.match?(ELEMENT_NAME)

        raise ArgumentError, "#{option}: must be an XML element name without a prefix, not #{name.inspect}"
      end

      def check_model_instance(value)
        return if value.class.include?(Wirebind::Model)

        raise ArgumentError, "can only encode Wirebind::Model instances, not #{value.class}"
      end
    end
  end
end

Wirebind::Backend.register(:xml, pure: Wirebind::XML::Pure, native: (Wirebind::XML::Native if Wirebind.backend == :native))

module Wirebind
  module XML
    module OpenContent
      # The twin that writes a model inside open content (+typed_content+):
      # the pure one on either backend, since it appends to a Ruby String.
      # @api private
      MODEL_WRITER = Backend.implementation(:xml, :pure)
    end
  end
end

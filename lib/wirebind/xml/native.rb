# frozen_string_literal: true

module Wirebind
  module XML
    # The native backend: the same contract as {Pure}, with the hot loops in C
    # (ext/wirebind). This file is the thin Ruby side: it opens the input through
    # {XML::Source} (which detects and transcodes encodings, normalizes line ends
    # and rejects bytes that are not XML text, one Ruby call per 64 KiB chunk), hands
    # plans to C once per class, and passes documents with a DOCTYPE (only read with
    # +dtd: :internal+) to the pure backend, which parses DTDs.
    #
    # The C methods it calls (defined in ext/wirebind/xml_decoder_class.c and
    # xml_encoder_class.c), each with its settings in one frozen config Struct
    # (defined by C, so that C reads the members it knows, in its order):
    # - +decode_source(source, DecodeConfig, block, references)+; a DecodeConfig has
    #   +item+, +mode+ (:list, :first, :each, :check), +path+, +strict+, the limits
    #   (+max_depth+, +max_token_size+, +max_attributes+, +max_namespaces+), +reject_dtd+,
    #   +missing+ (the message to raise when +path+ never matched, or nil) and
    #   +default_offset+; returns the result, or :doctype after giving back
    #   (Source#unread) what it read when it meets a DOCTYPE it may not refuse;
    # - +compile_plan(plan)+, a Plan compiled for C (called through {plan_for});
    # - +encode_value(value, EncodeConfig, io)+; an EncodeConfig has +root+, +item+,
    #   +xsi_all+ and +declaration+.
    #
    # @api private
    module Native
      class << self
        # @see Wirebind::XML.decode
        def decode(input, item, list, path, strict, options)
          run(input, item, list ? :list : :first, path, strict, options, nil) do |source|
            Pure.decode(source, item, list, path, strict, options)
          end
        end

        # @see Wirebind::XML.each
        def each(input, item, path, strict, options, block)
          run(input, item, :each, path, strict, options, block) do |source|
            Pure.each(source, item, path, strict, options, block)
          end
        end

        # @see Wirebind::XML.check
        def check(input, options)
          run(input, nil, :check, nil, false, options, nil) { |source| Pure.check(source, options) }
        end

        # @see Wirebind::XML.encode
        def encode(value, io, root, item, nil_style, declaration)
          encode_value(value, EncodeConfig.new(root: root, item: item, xsi_all: nil_style == :xsi, declaration: declaration).freeze, io)
        end

        # For the C decoder, at an element with an xsi:type where +declared+ is expected.
        # @return [Object, String, nil] the compiled plan of the subclass it names, nil to
        #   keep the declared one, or (strict) the message of the DecodeError to raise
        def subtype_plan(declared, local, uri, strict)
          klass = Model.xml_subtype(declared, local, uri)
          return plan_for(klass) if klass && !klass.equal?(declared)
          return nil if klass || !strict || local == declared.xml_root

          Backend.implementation(:xml, :pure).unknown_type_message(declared, local, uri)
        end

        # For the C decoder, at an +:any+ element with an xsi:type, in a field
        # of +owner+ (the innermost record).
        # @return [Object, nil] the compiled plan of the model that declared that
        #   xml_type, nil (none) to capture the content
        def typed_any_plan(local, uri, owner)
          klass = Model.xml_type_named(local, uri, owner)
          klass && plan_for(klass)
        end

        # @return [Object] the compiled plan of +klass+ (cached, frozen, shareable)
        def plan_for(klass)
          klass.wirebind_plan(:native_xml) { compile_plan(Plan.for(klass)) }
        end

        private

        def run(input, item, mode, path, strict, options, block)
          source = Source.new(input)
          config = DecodeConfig.new(
            item: item, mode: mode, path: path, strict: strict,
            max_depth: options[:max_depth], max_token_size: options[:max_token_size],
            max_attributes: options[:max_attributes], max_namespaces: options[:max_namespaces],
            reject_dtd: options.fetch(:dtd) == :reject, missing: options[:missing], default_offset: options[:default_offset]
          ).freeze
          result = decode_source(source, config, block, options[:references])
          result == :doctype ? yield(source) : result
        end
      end

      # {XML::Source} with its per-chunk check in C: one pass that validates the
      # UTF-8, looks for characters XML forbids and for CRs, and counts lines, where
      # the Ruby code makes five (a third of a native decode before this). A chunk
      # that is anything but clean goes to the Ruby code, which says what is wrong.
      #
      # @api private
      class Source < XML::Source
        private

        def accept(text)
          newlines, tail_chars = Native.scan_clean_text(text)
          return super unless newlines

          @bytes_read += text.bytesize
          advance(newlines, tail_chars)
          text
        end
      end

      # The methods defined in C (ext/wirebind/xml_*_class.c), described above:
      # @!method self.decode_source(source, config, block, references)
      #   @param source [XML::Source] the document
      #   @param config [DecodeConfig]
      #   @param block [Proc, nil] each item's block, for mode +:each+
      #   @param references [XML::References, nil] SOAP encoding's multiRefs
      #   @return [Object, Symbol] the result, or +:doctype+ (see above)
      # @!method self.compile_plan(plan)
      #   @param plan [XML::Plan]
      #   @return [Object] the plan compiled into C tables (frozen, shareable)
      # @!method self.encode_value(value, config, io)
      #   @param value [Wirebind::Model, Array<Wirebind::Model>]
      #   @param config [EncodeConfig]
      #   @param io [IO, nil] where to write (nil: return the document)
      #   @return [String, Integer] the document, or the bytes written to +io+
      # @!method self.scan_clean_text(text)
      #   @param text [String] a chunk of input
      #   @return [Array(Integer, Integer), nil] its newlines and the characters after
      #     the last one, when it is clean UTF-8 XML text without CRs; nil when the
      #     careful Ruby path must look at it
      # @!method self.append_scalar_text(out, type, value)
      #   Appends a scalar's text as the encoder writes it (for the XML writers in
      #   Ruby: SOAP's rpc/encoded records), or declines.
      #   @param out [String] a UTF-8 String to append to
      #   @param type [Symbol] the scalar type (+:string+, +:integer+, ...)
      #   @param value [Object]
      #   @return [Boolean] true when appended (what +XML::Escape.text(Types.to_xml_text(type, value))+
      #     returns); false when C declines (the caller asks Ruby), +out+ untouched

      # @!parse
      #   # The decoder's state, handed to {XML::Capture} while it is fed (C, TypedData).
      #   # @api private
      #   class DecodeState
      #     # @param prefix [String] a prefix, "" for the default namespace
      #     # @return [String, nil] the namespace it is bound to where the decoder is
      #     def namespace_of(prefix); end
      #   end
      #   # A model's encoding plan compiled for C (TypedData).
      #   # @api private
      #   class EncoderPlan; end
    end
  end
end

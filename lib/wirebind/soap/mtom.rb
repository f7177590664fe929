# frozen_string_literal: true

require "securerandom"
require_relative "mtom/parts"

module Wirebind
  module SOAP
    # MTOM/XOP messages (W3C SOAP MTOM, XOP 1.0): a +multipart/related+
    # body whose root part is the envelope, binary values sent as parts of their
    # own and referenced from it by +<xop:Include href="cid:..."/>+.
    #
    # Sending ({Writer}): the client's requests (+mtom:+) and the service's
    # responses (+mtom+, or to an MTOM request) carry each +:base64+ value of at
    # least +threshold+ bytes as a part.
    #
    # Reading: the client reads MTOM responses and the service MTOM requests: each Include is
    # replaced by its part's bytes (as the base64 text the element stands for),
    # then the envelope is decoded as any other. The message is read whole
    # (bounded by +max_size+, or {WHOLE_MESSAGE_LIMIT}) and each part must end within
    # it; the Includes are found with Nokogiri (libxml2), which MTOM needs.
    module MTOM
      # The XOP namespace of +xop:Include+.
      XOP_NS = "http://www.w3.org/2004/08/xop/include"
      # The +:base64+ values of at least this many bytes go as attachments by default.
      DEFAULT_THRESHOLD = 1024

      class << self
        # @api private
        # @param option [Boolean, Hash, nil] +mtom:+ as given: true, +{ threshold: bytes }+, false or nil
        # @return [Writer, nil]
        # @raise [ArgumentError]
        def writer(option)
          case option
          when nil, false then nil
          when true then Writer.new(DEFAULT_THRESHOLD)
          when Hash
            unknown = option.keys - [:threshold]
            raise ArgumentError, "mtom: takes threshold:, not #{unknown.inspect}" unless unknown.empty?

            threshold = option.fetch(:threshold, DEFAULT_THRESHOLD)
            raise ArgumentError, "mtom: threshold: must be an Integer >= 0, not #{threshold.inspect}" unless threshold.is_a?(Integer) && threshold >= 0

            Writer.new(threshold)
          else raise ArgumentError, "mtom: must be true, false or { threshold: bytes }, not #{option.inspect}"
          end
        end
      end

      # Writes one message as an MTOM package, without the codec ever holding an
      # attachment's bytes, or their base64: {Message#parts} gives the encoder the
      # message's parts with each large +:base64+ value (a part, or an attribute
      # of a model at any depth, copied rather than changed) replaced by a short
      # marker; the encoder writes the marker's base64 as that element's text;
      # {Message#package} puts an +xop:Include+ in each marker's place (one pass over the
      # envelope) and appends the bytes as parts of their own. The bytes are copied
      # once, into the HTTP body; the envelope never holds them.
      # @api private
      class Writer
        # Marker bytes: a random prefix per message, then a 3-byte index, so
        # that each marker's base64 is the prefix's 20 characters and 4 more.
        PREFIX_BYTES = 15
        # The most attachments one message may carry (the index's 3 bytes).
        MAX_ATTACHMENTS = 2**24 - 1

        # @return [Integer] the least bytes a value sent as an attachment has
        attr_reader :threshold

        def initialize(threshold)
          @threshold = threshold
          freeze
        end

        # One message's parts with markers in place of large binary values.
        # @param parts [Hash] as {Envelope.write} takes them
        # @param types [Hash] their declared types
        # @return [Message]
        def message(parts, types)
          message = Message.new(@threshold)
          replaced = parts.to_h { |name, value| [name, message.part(value, types[name] || types[name.to_s] || types[name.to_sym])] }
          message.parts = replaced
          message
        end
      end

      # One outgoing message: its attachments, the parts to encode, and the package.
      # @api private
      class Message
        # @return [Hash] the parts to give the encoder
        attr_accessor :parts
        # @return [Array<String>] the attachments' bytes, in order
        attr_reader :attachments

        def initialize(threshold)
          @threshold = threshold
          @prefix = SecureRandom.random_bytes(Writer::PREFIX_BYTES)
          @attachments = []
          @seen = {}.compare_by_identity
        end

        # @return [Boolean] whether any value went as an attachment
        def any?
          !@attachments.empty?
        end

        # @param value [Object] a part's value
        # @param type [Object, nil] its declared type
        # @return [Object] the value, or a copy with markers
        def part(value, type)
          case value
          when String
            binary = type == :base64 || (type.nil? && value.encoding == Encoding::BINARY)
            binary ? marker(value) : value
          when Array then value.map { |item| part(item, type.is_a?(Array) ? type.first : type) }
          when Model then Binaries.in_model(value) { |bytes| marker(bytes) }
          else value
          end
        end

        # The envelope as the root part, with the attachments after it.
        # @param envelope [String] what the encoder wrote from {#parts}
        # @param root_type [String] the root's media type with its parameters (SOAP 1.2: +action+)
        # @return [Array(String, String)] the HTTP body and its Content-Type
        # @raise [EncodeError] a marker the envelope does not hold once as an element's text
        def package(envelope, root_type)
          found = Array.new(@attachments.size, 0)
          stem = Regexp.escape([@prefix].pack("m0"))
          xml = envelope.gsub(%r{>#{stem}([A-Za-z0-9+/]{4})<}) do
            index = MTOM.marker_index(@prefix, @prefix + Regexp.last_match(1).unpack1("m"))
            found[index] += 1
            %(><xop:Include xmlns:xop="#{XOP_NS}" href="cid:#{content_id(index)}"/><)
          end
          unless found.all? { |count| count == 1 }
            raise EncodeError, "an MTOM attachment was not written as an element's text (an XML attribute cannot hold one)"
          end

          # The root part's Content-Type names its charset: no XML declaration
          # (spyne's reader refuses a root part that has one).
          xml = xml.sub(/\A<\?xml[^>]*\?>/, "")
          boundary = boundary_for(xml)
          body = +"".b
          body << "--#{boundary}\r\nContent-Type: application/xop+xml; charset=UTF-8; type=#{quote(root_type)}\r\n"
          body << "Content-Transfer-Encoding: 8bit\r\nContent-ID: <#{content_id('root')}>\r\n\r\n" << xml.b
          @attachments.each_with_index do |bytes, index|
            body << "\r\n--#{boundary}\r\nContent-Type: application/octet-stream\r\nContent-Transfer-Encoding: binary\r\n"
            body << "Content-ID: <#{content_id(index)}>\r\n\r\n" << bytes
          end
          body << "\r\n--#{boundary}--\r\n"
          media = root_type[/\A[^;]*/]
          [body, %(multipart/related; type="application/xop+xml"; start="<#{content_id('root')}>"; start-info="#{media}"; boundary="#{boundary}")]
        end

        private

        def marker(bytes)
          return bytes if bytes.bytesize < @threshold
          raise EncodeError, "more than #{Writer::MAX_ATTACHMENTS} MTOM attachments in one message" if @attachments.size >= Writer::MAX_ATTACHMENTS

          @attachments << bytes
          MTOM.marker(@prefix, @attachments.size - 1)
        end

        def content_id(index)
          "#{index}.#{@prefix.unpack1('H8')}@wirebind.invalid"
        end

        def boundary_for(xml)
          loop do
            boundary = "MIME_wirebind_#{SecureRandom.hex(16)}"
            return boundary unless xml.include?(boundary) || @attachments.any? { |bytes| bytes.include?(boundary) }
          end
        end

        def quote(value)
          %("#{value.gsub('"', '\\"')}")
        end
      end

      # What the client or the service received as an MTOM package: the envelope
      # to decode (each Include replaced by its part's base64), and the
      # attachments kept in Tempfiles (+attachment_file_threshold:+), each
      # written in the envelope as a marker that {#apply} swaps for the file in
      # the decoded value.
      # @api private
      class Received
        # @return [String] the envelope to decode
        attr_reader :xml

        def initialize
          @prefix = SecureRandom.random_bytes(Writer::PREFIX_BYTES)
          @finished = false
          @files = []
          @index = {}.compare_by_identity
          @included = []
          @placed = []
        end

        # @return [self]
        def with_xml(xml)
          @xml = xml
          self
        end

        # @param file [Tempfile] a part an Include names
        # @return [String] the base64 text standing for it in the envelope
        def marker(file)
          index = @index[file] ||= begin
            @files << file
            @included << 0
            @placed << 0
            @files.size - 1
          end
          @included[index] += 1
          [MTOM.marker(@prefix, index)].pack("m0")
        end

        # @return [Boolean] whether +file+ is one of the attachments the envelope names
        def holds?(file)
          @index.key?(file)
        end

        # @param value [Object] what was decoded (a result, a record, the arguments)
        # @return [Object] the value with each marker replaced by its Tempfile
        def apply(value)
          return value if @files.empty?

          case value
          when String then file_for(value)
          when Array then value.map { |item| apply(item) }
          when Model then Binaries.in_model(value) { |bytes| file_for(bytes) }
          else value
          end
        end

        # Checks that every attachment in a file reached a +:base64+ value.
        # @raise [AttachmentError] (the files removed)
        def finish
          @finished = @placed == @included
          return if @finished

          discard
          raise AttachmentError, "an MTOM attachment was decoded into a value that is not :base64 (only :base64 values can be files)"
        end

        # @return [Boolean] whether {#finish} found every file placed (they are the caller's now)
        def finished?
          @finished == true
        end

        # Removes the files.
        def discard
          @files.each(&:close!)
        end

        private

        def file_for(bytes)
          index = MTOM.marker_index(@prefix, bytes)
          return bytes unless index && index < @files.size

          @placed[index] += 1
          @files[index]
        end
      end

      # Finds the +:base64+ values a model holds as elements, at any depth.
      # @api private
      module Binaries
        class << self
          # @param record [Wirebind::Model]
          # @yieldparam bytes [String] a +:base64+ value written as an element
          # @yieldreturn [Object] what takes its place
          # @return [Wirebind::Model] +record+ when nothing was replaced, else a copy
          #   (and copies of the models above the replaced values; the others shared)
          # @raise [EncodeError] models nested deeper than {Envelope::MAX_DEPTH}
          def in_model(record, depth = 0, &block)
            raise EncodeError, "models nested deeper than #{Envelope::MAX_DEPTH} (a cycle?)" if depth > Envelope::MAX_DEPTH

            copy = nil
            record.class.attributes.each do |attribute|
              next unless attribute.type == :base64 || attribute.model? || attribute.type == Model

              value = record.instance_variable_get(attribute.ivar)
              next if value.nil? || (attribute.type == :base64 && attribute.xml.start_with?("@"))

              replaced = in_value(value, attribute, depth, &block)
              next if replaced.equal?(value)

              copy ||= record.dup
              copy.instance_variable_set(attribute.ivar, replaced)
            end
            copy || record
          end

          private

          def in_value(value, attribute, depth, &block)
            if attribute.list? && value.is_a?(Array)
              items = value.map { |item| in_value(item, attribute, depth, &block) }
              items.each_with_index.all? { |item, index| item.equal?(value[index]) } ? value : items
            elsif value.is_a?(String) then attribute.type == :base64 ? yield(value) : value
            elsif value.is_a?(Model) then in_model(value, depth + 1, &block)
            else value
            end
          end
        end
      end

      class << self
        # @api private
        # @param value [Integer, nil] +attachment_file_threshold:+ as given
        # @return [Integer, nil]
        # @raise [ArgumentError]
        def file_threshold(value)
          return value if value.nil? || (value.is_a?(Integer) && value >= 0)

          raise ArgumentError, "attachment_file_threshold: must be nil or an Integer >= 0, not #{value.inspect}"
        end

        # @api private
        # @return [String] the bytes standing for attachment +index+: +prefix+, then the index in 3 bytes
        def marker(prefix, index)
          prefix + [index].pack("N").byteslice(1, 3)
        end

        # @api private
        # @return [Integer, nil] the index +bytes+ stand for, if they are a marker with +prefix+
        def marker_index(prefix, bytes)
          return nil unless bytes.bytesize == prefix.bytesize + 3 && bytes.byteslice(0, prefix.bytesize) == prefix

          "\0#{bytes.byteslice(prefix.bytesize, 3)}".b.unpack1("N")
        end

        # @api private
        # @param content_type [String, nil]
        # @return [Boolean] whether the body is an MTOM/XOP package
        def package?(content_type)
          content_type.to_s.match?(%r{\A\s*multipart/related\s*;}i)
        end

        # @api private
        # @param content_type [String] the body's +Content-Type+
        # @return [String, nil] the root part's media type (+start-info+ or +type+), for the SOAP version
        def root_type(content_type)
          params = parameters(content_type)
          info = params["start-info"] || params["type"]
          info = params["type"] if info&.casecmp?("application/xop+xml") && params["start-info"].nil?
          info
        end

        # @api private
        # @param reader [#read] the body, read as it arrives (never whole)
        # @param content_type [String] its +Content-Type+
        # @param limit [Integer] most bytes read
        # @param file_threshold [Integer, nil] attachments of at least this many bytes
        #   go to Tempfiles rather than memory (see {Received})
        # @return [Received]
        # @raise [AttachmentError]
        def receive(reader, content_type, limit: WHOLE_MESSAGE_LIMIT, file_threshold: nil)
          params = parameters(content_type)
          boundary = params["boundary"] or raise AttachmentError, "a multipart/related body without a boundary"
          start = params["start"] && strip_id(params["start"])
          first = true
          root = lambda do |headers|
            candidate = start ? content_id(headers) == start : first
            first = false
            candidate
          end
          parts = Parts.new(reader, boundary, limit, file_threshold).read(root)
          begin
            includes(root_part(parts, start), parts)
          rescue StandardError
            parts.each { |_, value| value.close! if value.is_a?(Tempfile) }
            raise
          end
        end

        private

        # Content-Type parameters, names lowercased, quotes removed.
        def parameters(content_type)
          content_type.to_s.split(";").drop(1).to_h do |param|
            name, value = param.split("=", 2)
            [name.to_s.strip.downcase, value.to_s.strip.delete_prefix('"').delete_suffix('"')]
          end
        end

        def decode(headers, bytes)
          case headers["content-transfer-encoding"].to_s.downcase
          when "", "binary", "8bit", "7bit" then bytes
          when "base64" then bytes.unpack1("m")
          else raise AttachmentError, "Content-Transfer-Encoding #{headers['content-transfer-encoding']} is not supported"
          end
        end

        def root_part(parts, start)
          raise AttachmentError, "the multipart body has no part" if parts.empty?
          return parts.first unless start

          parts.find { |headers, _| content_id(headers) == start } or
            raise AttachmentError, "the start part <#{start}> is not in the message"
        end

        def content_id(headers)
          headers["content-id"] && strip_id(headers["content-id"])
        end

        def strip_id(id)
          id.strip.delete_prefix("<").delete_suffix(">")
        end

        # The root with each Include replaced by its part's base64 (a part in a
        # file: by a marker {Received#apply} swaps for the file).
        def includes(root, parts)
          xml = decode(*root).dup.force_encoding(Encoding::UTF_8)
          received = Received.new
          return received.with_xml(xml) unless xml.include?(XOP_NS)

          by_id = parts.to_h { |headers, value| [content_id(headers), [headers, value]] }
          doc = parse(xml)
          doc.xpath("//xop:Include", "xop" => XOP_NS).each do |include|
            href = include["href"].to_s
            raise AttachmentError, "xop:Include href #{href.inspect} is not a cid: reference" unless href.start_with?("cid:")

            id = URI.decode_www_form_component(href.delete_prefix("cid:"))
            headers, value = by_id.fetch(id) { raise AttachmentError, "xop:Include names #{href}, which the message does not hold" }
            text = value.is_a?(Tempfile) ? received.marker(value) : [decode(headers, value)].pack("m0")
            include.replace(doc.create_text_node(text))
          end
          received.with_xml(doc.to_xml(save_with: 0))
        ensure
          parts.each { |_, value| value.close! if value.is_a?(Tempfile) && !received&.holds?(value) }
        end

        # Strictly, without a DTD (SOAP forbids one) or the network.
        def parse(xml)
          nokogiri = WSSE::Canonical.nokogiri
          begin
            doc = nokogiri::XML(xml) { |config| config.strict.nonet }
          rescue nokogiri::XML::SyntaxError => e
            raise AttachmentError, "the MTOM root part is not well-formed XML: #{e.message}"
          end
          raise AttachmentError, "the MTOM root part has a DOCTYPE" if doc.internal_subset

          doc
        end
      end
    end
  end
end

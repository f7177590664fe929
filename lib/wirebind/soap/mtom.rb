# frozen_string_literal: true

module Wirebind
  module SOAP
    # Reading MTOM/XOP messages (W3C SOAP MTOM, XOP 1.0): a +multipart/related+
    # body whose root part is the envelope, binary values sent as parts of their
    # own and referenced from it by +<xop:Include href="cid:..."/>+. The client
    # reads MTOM responses and the service MTOM requests: each Include is
    # replaced by its part's bytes (as the base64 text the element stands for),
    # then the envelope is decoded as any other. The message is read whole
    # (bounded by +max_size+, or {WHOLE_MESSAGE_LIMIT}) and each part must end within
    # it; the Includes are found with Nokogiri (libxml2), which MTOM needs.
    module MTOM
      # The XOP namespace of +xop:Include+.
      XOP_NS = "http://www.w3.org/2004/08/xop/include"

      class << self
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
        # @param reader [#read] the body
        # @param content_type [String] its +Content-Type+
        # @param limit [Integer] most bytes read
        # @return [String] the root envelope with every +xop:Include+ replaced by its part, base64
        # @raise [AttachmentError]
        def resolve(reader, content_type, limit: WHOLE_MESSAGE_LIMIT)
          params = parameters(content_type)
          boundary = params["boundary"] or raise AttachmentError, "a multipart/related body without a boundary"
          parts = split(read(reader, limit), boundary)
          root = root_part(parts, params["start"])
          includes(root, parts)
        end

        private

        def read(reader, limit)
          SOAP.read_whole(reader, limit) { raise AttachmentError, "the MTOM message is larger than #{limit} bytes (max_size)" }
        end

        # Content-Type parameters, names lowercased, quotes removed.
        def parameters(content_type)
          content_type.to_s.split(";").drop(1).to_h do |param|
            name, value = param.split("=", 2)
            [name.to_s.strip.downcase, value.to_s.strip.delete_prefix('"').delete_suffix('"')]
          end
        end

        # @return [Array<Array(Hash, String)>] each part's headers (lowercase names) and bytes
        def split(body, boundary)
          delimiter = "--#{boundary}"
          first = body.index(delimiter) or raise AttachmentError, "the multipart body has no part (no --#{boundary} line)"
          at = first + delimiter.bytesize
          parts = []
          loop do
            return parts if body.byteslice(at, 2) == "--" # the close delimiter

            at = skip_line_end(body, at)
            head_end = body.index("\r\n\r\n", at) or raise AttachmentError, "a multipart part has no end of its headers"
            headers = body.byteslice(at, head_end - at).split("\r\n").to_h do |line|
              name, value = line.split(":", 2)
              raise AttachmentError, "a multipart part has a malformed header line #{line[0, 80].inspect}" unless value

              [name.strip.downcase, value.strip]
            end
            start = head_end + 4
            finish = body.index("\r\n#{delimiter}", start) or raise AttachmentError, "a multipart part is not closed by its boundary (cut short?)"
            parts << [headers, decode(headers, body.byteslice(start, finish - start))]
            at = finish + 2 + delimiter.bytesize
          end
        end

        def skip_line_end(body, at)
          at += 1 while body.getbyte(at) == 0x20 || body.getbyte(at) == 0x09 # transport padding
          raise AttachmentError, "a multipart boundary line does not end with CRLF" unless body.byteslice(at, 2) == "\r\n"

          at + 2
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

          parts.find { |headers, _| content_id(headers) == strip_id(start) } or
            raise AttachmentError, "the start part #{start} is not in the message"
        end

        def content_id(headers)
          headers["content-id"] && strip_id(headers["content-id"])
        end

        def strip_id(id)
          id.strip.delete_prefix("<").delete_suffix(">")
        end

        def includes(root, parts)
          xml = root.last.dup.force_encoding(Encoding::UTF_8)
          return xml unless xml.include?(XOP_NS)

          by_id = parts.to_h { |headers, bytes| [content_id(headers), bytes] }
          doc = parse(xml)
          doc.xpath("//xop:Include", "xop" => XOP_NS).each do |include|
            href = include["href"].to_s
            id = URI.decode_www_form_component(href.delete_prefix("cid:"))
            raise AttachmentError, "xop:Include href #{href.inspect} is not a cid: reference" unless href.start_with?("cid:")

            bytes = by_id.fetch(id) { raise AttachmentError, "xop:Include names #{href}, which the message does not hold" }
            include.replace(doc.create_text_node([bytes].pack("m0")))
          end
          doc.to_xml(save_with: 0)
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

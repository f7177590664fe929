# frozen_string_literal: true

module Wirebind
  module Rack
    # A Rack 3 response body that writes a document as it is encoded, in
    # pieces of 64 KiB, each a String of its own (servers may keep a piece
    # while the next is written): as an Enumerable Body (+each+) and as a
    # Streaming Body (+call(stream)+). Memory stays flat whatever the size of
    # the document.
    #
    # The document is encoded while the server sends it, after the status and
    # headers: an error in the data (an {EncodeError}) then ends the response
    # early. Encode small documents into a String first where that matters.
    #
    # +each+ may be called more than once: Rails' response buffer (under
    # +Rack::ETag+/+Rack::ConditionalGet+) runs the body once to digest it, then
    # the server runs it again. The first run is encoded (and streamed) once and
    # kept: up to {KEPT_IN_MEMORY} bytes in a String, beyond that in a Tempfile,
    # so memory stays flat at the cost of writing the document to disk once;
    # later runs replay it byte for byte, and an error of the first run is
    # raised again. {#close} (Rack calls it) removes what was kept. The body has
    # no +to_ary+, so +Rack::ETag+ alone does not buffer it: it streams.
    #
    # @example
    #   body = Wirebind::Rack::Body.new(IssueSerializer.new(issues, format: :hal))
    #   [200, { "content-type" => body.content_type }, body]
    #   Wirebind::Rack::Body.new(issues, format: :xml, root: "issues")
    class Body
      # Bytes in each piece but the last.
      PIECE_SIZE = Chunks::SIZE
      # Bytes of the first run kept in memory for a second +each+; more go to a Tempfile.
      KEPT_IN_MEMORY = 1024 * 1024
      HYPERMEDIA = %i[hal json_api siren].freeze
      private_constant :HYPERMEDIA

      # @return [Symbol] +:xml+, +:json+, +:hal+, +:json_api+ or +:siren+
      attr_reader :format

      # @param value [Serializer, Object] a serializer instance (its format is
      #   the body's: +:plain+ is served as +:json+), or a value to encode
      # @param format [Symbol, nil] for a value: +:xml+ (Wirebind::XML.encode),
      #   +:json+ (Wirebind::JSON.encode), or +:hal+, +:json_api+, +:siren+ with
      #   +serializer:+
      # @param serializer [Class, nil] a {Serializer} class for the hypermedia formats
      # @param options [Hash] passed on to the encoder or to the serializer's +new+
      #   (+root:+ for XML, +context:+, +fields:+, +include:+ for serializers...)
      # @raise [ArgumentError]
      def initialize(value, format: nil, serializer: nil, **options)
        if value.is_a?(Serializer)
          raise ArgumentError, "a serializer instance brings its own format and options" if format || serializer || !options.empty?

          @format = value.format == :plain ? :json : value.format
        else
          unless CONTENT_TYPES.key?(format)
            raise ArgumentError, "format: must be one of #{CONTENT_TYPES.keys.map(&:inspect).join(', ')}, not #{format.inspect}"
          end
          if HYPERMEDIA.include?(format) && !(serializer.is_a?(Class) && serializer <= Serializer)
            raise ArgumentError, "format: #{format.inspect} needs serializer: (a Wirebind::Serializer class)"
          end
          raise ArgumentError, "serializer: goes with :hal, :json_api or :siren" if serializer && !HYPERMEDIA.include?(format)

          @format = format
          value = serializer.new(value, format: format, **options) if serializer
        end
        @value = value
        @options = options.freeze
        @kept = nil
        @error = nil
        @closed = false
      end

      # @return [String] the media type the format is served as
      def content_type
        CONTENT_TYPES.fetch(@format)
      end

      # Enumerable Body: yields the document in pieces.
      # @yieldparam piece [String] at most {PIECE_SIZE} bytes, UTF-8, a new String each time
      # @return [void]
      # @raise [IOError] after {#close}
      def each(&block)
        return enum_for(:each) unless block
        raise IOError, "a closed Wirebind::Rack::Body" if @closed
        raise @error if @error
        return @kept.replay(&block) if @kept

        kept = Kept.new
        pieces = Chunks::Pieces.new do |piece|
          kept << piece
          block.call(piece)
        end
        begin
          write(pieces)
          pieces.finish
        rescue StandardError => e
          kept.close
          @error = e
          raise
        end
        @kept = kept
        nil
      end

      # Removes what the first run kept for a second one. Rack calls it.
      # @return [void]
      def close
        @closed = true
        @kept&.close
        @kept = nil
      end

      # Streaming Body: writes the document to +stream+ in pieces, then closes it.
      # @param stream [#write, #close]
      # @return [void]
      def call(stream)
        each { |piece| stream.write(piece) }
      ensure
        stream.close
      end

      private

      def write(io)
        case @value
        when Serializer then @value.to_json(io: io)
        else @format == :xml ? XML.encode(@value, io: io, **@options) : JSON.encode(@value, io: io, **@options)
        end
      end

      # The pieces of the first run, for the runs after it: in a String up to
      # KEPT_IN_MEMORY bytes, then in an unlinked-on-close Tempfile.
      # @api private
      class Kept
        def initialize
          @memory = String.new(encoding: Encoding::BINARY)
          @file = nil
        end

        # @param piece [String]
        def <<(piece)
          if @file
            @file.write(piece)
          elsif @memory.bytesize + piece.bytesize > KEPT_IN_MEMORY
            require "tempfile"
            @file = Tempfile.new("wirebind-body", binmode: true)
            @file.write(@memory, piece)
            @memory = nil
          else
            @memory << piece.b
          end
          self
        end

        # Yields the kept document again in pieces of PIECE_SIZE bytes, new Strings.
        def replay
          if @file
            @file.flush
            @file.rewind
            while (piece = @file.read(PIECE_SIZE))
              yield piece.force_encoding(Encoding::UTF_8)
            end
          else
            0.step(@memory.bytesize - 1, PIECE_SIZE) do |offset|
              yield @memory.byteslice(offset, PIECE_SIZE).force_encoding(Encoding::UTF_8)
            end
          end
          nil
        end

        def close
          @file&.close!
          @file = nil
          @memory = nil
        end
      end
      private_constant :Kept
    end
  end
end

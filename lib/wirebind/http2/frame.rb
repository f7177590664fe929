# frozen_string_literal: true

module Wirebind
  module HTTP2
    # One frame (RFC 9113 section 4.1), as a binary record: the 9-byte header
    # and the payload, a {Wirebind::Buffer} view of the bytes read (never a copy).
    class Frame
      include Wirebind::Model

      # The 9-byte header's fields (section 4.1), declared once for {Frame} and
      # {Header}; the binary builder runs it.
      HEADER_FIELDS = proc do
        field :length, :u24
        field :type, :u8
        field :flags, :u8
        bits :reserved, 1
        bits :stream_id, 31
      end
      private_constant :HEADER_FIELDS

      binary do
        instance_exec(&HEADER_FIELDS)
        payload :payload, length: :length
      end

      # The 9-byte header alone, as a record of its own. Nothing in the gem
      # reads frames through it (Reader takes the length from the bytes and decodes
      # whole frames); it is kept as the smallest fixed-size record for the
      # binary benchmark (bench/binary.rb) and for code that wants to look at a
      # header before its payload has arrived.
      #
      # @api private
      class Header
        include Wirebind::Model

        binary(&HEADER_FIELDS)
      end

      # The bytes of a frame header (section 4.1).
      HEADER_SIZE = 9

      # Frame types (section 6)
      DATA = 0x0
      # The HEADERS frame type (section 6.2).
      HEADERS = 0x1
      # The PRIORITY frame type (section 6.3).
      PRIORITY = 0x2
      # The RST_STREAM frame type (section 6.4).
      RST_STREAM = 0x3
      # The SETTINGS frame type (section 6.5).
      SETTINGS = 0x4
      # The PUSH_PROMISE frame type (section 6.6).
      PUSH_PROMISE = 0x5
      # The PING frame type (section 6.7).
      PING = 0x6
      # The GOAWAY frame type (section 6.8).
      GOAWAY = 0x7
      # The WINDOW_UPDATE frame type (section 6.9).
      WINDOW_UPDATE = 0x8
      # The CONTINUATION frame type (section 6.10).
      CONTINUATION = 0x9
      # The frame types' names, indexed by type code.
      TYPE_NAMES = %i[DATA HEADERS PRIORITY RST_STREAM SETTINGS PUSH_PROMISE PING GOAWAY WINDOW_UPDATE CONTINUATION].freeze

      # Flags
      END_STREAM = 0x1
      # The ACK flag of SETTINGS and PING.
      ACK = 0x1
      # The END_HEADERS flag of HEADERS, PUSH_PROMISE and CONTINUATION.
      END_HEADERS = 0x4
      # The PADDED flag of DATA, HEADERS and PUSH_PROMISE.
      PADDED = 0x8
      # The PRIORITY flag of HEADERS.
      PRIORITY_FLAG = 0x20

      # Settings (section 6.5.2)
      SETTINGS_HEADER_TABLE_SIZE = 0x1
      # The SETTINGS_ENABLE_PUSH identifier.
      SETTINGS_ENABLE_PUSH = 0x2
      # The SETTINGS_MAX_CONCURRENT_STREAMS identifier.
      SETTINGS_MAX_CONCURRENT_STREAMS = 0x3
      # The SETTINGS_INITIAL_WINDOW_SIZE identifier.
      SETTINGS_INITIAL_WINDOW_SIZE = 0x4
      # The SETTINGS_MAX_FRAME_SIZE identifier.
      SETTINGS_MAX_FRAME_SIZE = 0x5
      # The SETTINGS_MAX_HEADER_LIST_SIZE identifier.
      SETTINGS_MAX_HEADER_LIST_SIZE = 0x6

      # The largest frame payload a peer accepts until its SETTINGS say otherwise (section 4.2).
      DEFAULT_MAX_FRAME_SIZE = 16_384
      # The largest SETTINGS_MAX_FRAME_SIZE allowed (2^24 - 1).
      MAX_FRAME_SIZE_LIMIT = 16_777_215
      # The largest flow-control window (section 6.9.1).
      MAX_WINDOW = 2**31 - 1
      # The initial flow-control window of a connection and of a stream (section 6.9.2).
      DEFAULT_WINDOW = 65_535

      # @return [Symbol, Integer] the type's name, or its number if unknown
      def type_name
        TYPE_NAMES[type] || type
      end

      # @return [Boolean]
      def flag?(flag)
        (flags & flag) != 0
      end

      # The payload without its padding (DATA, HEADERS, PUSH_PROMISE with
      # PADDED), as a view.
      #
      # @param skip [Integer] bytes after the pad length to leave out too (HEADERS' priority fields)
      # @return [Wirebind::Buffer]
      # @raise [ProtocolError] PROTOCOL_ERROR when the padding is as long as the payload or longer
      def content(skip = 0)
        data = payload
        start = 0
        stop = data.length
        if flag?(PADDED)
          raise ProtocolError.new("#{type_name} frame: PADDED without a pad length", code: :FRAME_SIZE_ERROR) if stop < 1

          pad = data.get_u8(0)
          start = 1
          if pad + start + skip > stop
            raise ProtocolError, "#{type_name} frame on stream #{stream_id}: #{pad} bytes of padding in a #{stop}-byte payload"
          end

          stop -= pad
        end
        if start + skip > stop
          raise ProtocolError.new("#{type_name} frame on stream #{stream_id} is too short", code: :FRAME_SIZE_ERROR)
        end

        start.zero? && skip.zero? && stop == data.length ? data : data.slice(start + skip, stop - start - skip)
      end
    end
  end
end

# frozen_string_literal: true

require_relative "hpack/tables"
require_relative "hpack/huffman"

module Wirebind
  module HTTP2
    # HPACK (RFC 7541): header compression for HTTP/2.
    #
    # @example
    #   encoder = Wirebind::HTTP2::HPACK::Encoder.new
    #   block = encoder.encode([[":method", "GET"], [":path", "/"]])   # or a Hash
    #   Wirebind::HTTP2::HPACK::Decoder.new.decode(block)               # => [[":method", "GET"], [":path", "/"]]
    #
    # Names and values are binary Strings. A malformed block (an index out of
    # the tables, bad Huffman padding or an EOS symbol, a table size update
    # above the limit or after the first header, an integer that overflows, a
    # block that ends early) raises {CompressionError}; the decoder is then
    # unusable, as RFC 9113 makes it a connection error.
    module HPACK
      # @!parse
      #   # The C twin of {Huffman} (ext/wirebind/hpack_class.c): the same methods,
      #   # answering alike; present only when {Wirebind.backend} is +:native+.
      #   #
      #   # @api private
      #   module Native
      #     # @!method self.encode(string)
      #     #   (see Wirebind::HTTP2::HPACK::Huffman.encode)
      #     # @!method self.encoded_length(string)
      #     #   (see Wirebind::HTTP2::HPACK::Huffman.encoded_length)
      #     # @!method self.decode(string)
      #     #   (see Wirebind::HTTP2::HPACK::Huffman.decode)
      #     # @!method self.append_string(out, string, huffman)
      #     #   (see Wirebind::HTTP2::HPACK::Huffman.append_string)
      #     # @!method self.append_integer(out, value, prefix, first)
      #     #   (see Wirebind::HTTP2::HPACK::Huffman.append_integer)
      #     # @!method self.append_literal(out, name_index, name, value, huffman)
      #     #   (see Wirebind::HTTP2::HPACK::Huffman.append_literal)
      #   end

      Backend.register(:hpack, pure: Huffman, native: (Native if Wirebind.backend == :native))

      # Largest integer accepted in a block (a length or an index): no header
      # is anywhere near it, and it keeps the arithmetic in fixnums.
      MAX_INTEGER = 2**31 - 1
      private_constant :MAX_INTEGER

      # The dynamic table (section 2.3.2): newest entry first, sizes per section 4.1.
      #
      # @api private
      class Table
        attr_reader :size, :limit

        def initialize(limit)
          @entries = []
          @size = 0
          @limit = limit
        end

        def length
          @entries.length
        end

        # entry at a 0-based dynamic index, or nil
        def [](index)
          @entries[index]
        end

        def add(name, value)
          entry_size = name.bytesize + value.bytesize + 32
          if entry_size > @limit
            @entries.clear
            @size = 0
            return
          end
          evict(@limit - entry_size) # room first: section 4.4
          @entries.unshift([name, value].freeze)
          @size += entry_size
        end

        def limit=(limit)
          @limit = limit
          evict(limit)
        end

        private

        def evict(limit)
          while @size > limit
            name, value = @entries.pop
            @size -= name.bytesize + value.bytesize + 32
          end
        end
      end

      # Decodes header blocks, keeping the dynamic table between them.
      class Decoder
        # @return [Integer] the largest table size the peer may ask for (our SETTINGS_HEADER_TABLE_SIZE)
        attr_reader :max_table_size

        # @param max_table_size [Integer]
        # @param backend [Symbol] +:pure+ or +:native+: whose Huffman coder; the
        #   default is {Wirebind.backend}
        def initialize(max_table_size: 4096, backend: Wirebind.backend)
          @max_table_size = check_size(max_table_size)
          @table = Table.new(max_table_size)
          @huffman_coder = Backend.implementation(:hpack, backend)
        end

        # Changes the limit (after our SETTINGS with a new SETTINGS_HEADER_TABLE_SIZE
        # is acknowledged); the table shrinks at once if it must.
        def max_table_size=(size)
          @max_table_size = check_size(size)
          @table.limit = size if @table.limit > size
        end

        # @return [Integer] the current dynamic table size in bytes (section 4.1)
        def table_size
          @table.size
        end

        # @param block [String] a complete header block
        # @param max_list_size [Integer, nil] the largest header list
        #   (RFC 9113 section 6.5.2: names, values and 32 bytes a field) to return
        # @return [Array<Array(String, String)>, nil] the headers, in order; nil
        #   when the list is above max_list_size (the block is still decoded
        #   to its end, so the dynamic table stays in step, but no field is
        #   kept past the limit)
        # @raise [CompressionError]
        def decode(block, max_list_size: nil)
          raise TypeError, "a header block is a String, not #{block.class}" unless block.is_a?(String)

          @block = block
          @pos = 0
          headers = []
          list_size = 0
          length = block.bytesize
          while @pos < length
            byte = block.getbyte(@pos)
            if byte >= 0x80 # indexed (6.1)
              index = integer(7)
              raise CompressionError, "index 0 at offset #{@pos}" if index.zero?

              headers << entry(index)
            elsif byte >= 0x40 # literal with incremental indexing (6.2.1)
              name, value = literal(6)
              @table.add(name, value)
              headers << [name, value]
            elsif byte >= 0x20 # dynamic table size update (6.3)
              at = @pos
              raise CompressionError, "table size update after a header field at offset #{at}" unless headers.empty? && list_size.zero?

              size = integer(5)
              if size > @max_table_size
                raise CompressionError, "table size update to #{size} above the limit #{@max_table_size} at offset #{at}"
              end

              @table.limit = size
            else # literal without indexing (6.2.2) or never indexed (6.2.3)
              headers << literal(4)
            end
            next unless max_list_size && headers.size.positive?

            name, value = headers.last
            list_size += name.bytesize + value.bytesize + 32
            headers.pop if list_size > max_list_size
          end
          max_list_size && list_size > max_list_size ? nil : headers
        ensure
          @block = nil
        end

        private

        def check_size(size)
          raise ArgumentError, "max_table_size must be an Integer in 0..#{MAX_INTEGER}" unless size.is_a?(Integer) && size.between?(0, MAX_INTEGER)

          size
        end

        # Section 5.1: an integer with an n-bit prefix.
        def integer(prefix)
          block = @block
          mask = (1 << prefix) - 1
          value = block.getbyte(@pos) & mask
          @pos += 1
          return value if value < mask

          shift = 0
          loop do
            byte = block.getbyte(@pos)
            raise CompressionError, "the block ends inside an integer at offset #{@pos}" if byte.nil?

            @pos += 1
            value += (byte & 0x7f) << shift
            raise CompressionError, "integer overflow at offset #{@pos - 1}" if value > MAX_INTEGER

            return value if byte < 0x80

            shift += 7
          end
        end

        def entry(index)
          return STATIC_TABLE[index - 1] if index <= STATIC_TABLE.length

          entry = @table[index - STATIC_TABLE.length - 1]
          raise CompressionError, "index #{index} is not in the tables (#{STATIC_TABLE.length + @table.length} entries)" unless entry

          entry
        end

        def literal(prefix)
          index = integer(prefix)
          name = index.zero? ? string : entry(index)[0]
          [name, string]
        end

        # Section 5.2: a string literal, maybe Huffman-coded.
        def string
          byte = @block.getbyte(@pos)
          raise CompressionError, "the block ends before a string at offset #{@pos}" if byte.nil?

          huffman = byte >= 0x80
          length = integer(7)
          if @block.bytesize - @pos < length
            raise CompressionError, "a string of #{length} bytes at offset #{@pos} runs past the block (#{@block.bytesize} bytes)"
          end

          raw = @block.byteslice(@pos, length)
          @pos += length
          return raw unless huffman

          decoded = @huffman_coder.decode(raw)
          return decoded if decoded.is_a?(String)

          raise CompressionError,
                decoded == :eos ? "EOS or an invalid code in a Huffman string before offset #{@pos}" : "bad Huffman padding before offset #{@pos}"
        end
      end

      # Encodes header lists into blocks, keeping the dynamic table between them.
      class Encoder
        # @param huffman [Boolean] Huffman-code strings when that makes them shorter
        # @param max_table_size [Integer] the dynamic table's size (the peer's
        #   SETTINGS_HEADER_TABLE_SIZE, 4096 by default)
        # @param backend [Symbol] +:pure+ or +:native+: whose Huffman coder; the
        #   default is {Wirebind.backend}
        def initialize(huffman: true, max_table_size: 4096, backend: Wirebind.backend)
          @huffman = huffman
          @huffman_coder = Backend.implementation(:hpack, backend)
          @table = Table.new(max_table_size)
          @pending_size_update = nil
          # name => { value => insertion number }, name => insertion number, for
          # lookups without building a key per header
          @inserted = 0
          @by_pair = {}
          @by_name = {}
          @remembered = 0
        end

        # Sets the table size (at most the peer's SETTINGS_HEADER_TABLE_SIZE);
        # the next block starts with the size update.
        def max_table_size=(size)
          @table.limit = size
          @pending_size_update = size
        end

        # @param headers [Array<Array(String, String)>, Hash] names lower-case, as HTTP/2 requires
        # @return [String] the header block, binary
        def encode(headers)
          out = String.new(encoding: Encoding::BINARY)
          if @pending_size_update
            integer(out, @pending_size_update, 5, 0x20)
            @pending_size_update = nil
          end
          headers.each do |name, value|
            name = binary(name) unless name.is_a?(String) && name.encoding == Encoding::BINARY
            value = binary(value) unless value.is_a?(String) && value.encoding == Encoding::BINARY
            field(out, name, value)
          end
          out
        end

        private

        # name => { value => index } and name => its first index, in the static table
        STATIC_PAIRS = STATIC_TABLE.each_with_index.with_object({}) do |((name, value), i), pairs|
          (pairs[name] ||= {})[value] ||= i + 1
        end.each_value(&:freeze).freeze
        STATIC_NAMES = STATIC_TABLE.each_with_index.reverse_each.to_h { |(name, _), i| [name, i + 1] }.freeze
        NO_VALUES = {}.freeze

        # A binary String: the value itself when it already is one (no copy).
        def binary(value)
          value = value.to_s
          value.encoding == Encoding::BINARY ? value : value.b
        end

        def field(out, name, value)
          index = STATIC_PAIRS.fetch(name, NO_VALUES)[value] || ((number = @by_pair.fetch(name, NO_VALUES)[value]) && dynamic_index(number))
          return integer(out, index, 7, 0x80) if index

          name_index = STATIC_NAMES[name] || ((number = @by_name[name]) && dynamic_index(number))
          @huffman_coder.append_literal(out, name_index, name, value, @huffman)
          remember(name, value)
        end

        # the index of the entry inserted as number n, if it is still in the table
        def dynamic_index(number)
          return nil unless number

          position = @inserted - number # 0 is the newest
          position < @table.length ? STATIC_TABLE.length + 1 + position : nil
        end

        def remember(name, value)
          @table.add(name, value)
          @inserted += 1
          if @table.length.zero?
            @by_pair.clear
            @by_name.clear
            @remembered = 0
            return
          end
          (@by_pair[name] ||= {})[value] = @inserted
          @by_name[name] = @inserted
          @remembered += 1
          # forget evicted entries now and then, so the maps stay small
          return unless @remembered > 4 * (@table.length + 16)

          live = ->(_, number) { @inserted - number < @table.length }
          @by_pair.each_value { |values| values.select!(&live) }
          @by_pair.reject! { |_, values| values.empty? }
          @by_name.select!(&live)
          @remembered = @by_pair.sum { |_, values| values.size }
        end

        def integer(out, value, prefix, first)
          return out << (first | value) if value < (1 << prefix) - 1 # the common case, without a call

          @huffman_coder.append_integer(out, value, prefix, first)
        end
      end
    end
  end
end

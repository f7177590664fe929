# frozen_string_literal: true

module Wirebind
  # The root of every error wirebind raises about a payload, a schema or a
  # peer. Rescue this to catch them all. The codecs' classes are here (the C
  # extension looks ParseError, LimitError, DecodeError, EncodeError and the
  # Binary ones up when it loads; it defines none); SOAP's, HTTP/2's and the
  # WSDL reader's live beside their code (soap/errors.rb, soap/fault.rb,
  # http2/errors.rb, wsdl.rb).
  class Error < StandardError; end

  # A schema declaration is wrong: an unknown type, a bad attribute name, a bad
  # or clashing +xml:+ path, a serializer field the model does not have.
  # Raised by the declaration itself wherever it can be judged alone. What
  # depends on declarations that may come later is checked when the class's
  # plan (or a serializer's compiled form) is first built, i.e. at its first
  # encode or decode: two attributes with one JSON key (+json_keys+ may still
  # rename them), a list of several classes whose +xml_root+s clash, a
  # serializer against the model it is used with. Never raised for a payload.
  class SchemaError < Error; end

  # The input is not well-formed (XML, JSON, a binary record that ends too
  # early). Carries where the problem was found: line, column and byte offset
  # in a document, the offset in a binary record; and why, as data
  # ({#reason}), so that no caller needs to read the message, whose wording
  # may change.
  class ParseError < Error
    # The reasons a parse fails, each a Symbol:
    # - +:truncated+: the input ended before the document (or record) did: inside
    #   a tag, a string, a comment, an element still open, a multi-byte
    #   character. More bytes might have made it well-formed.
    # - +:limit+: a configured limit was exceeded (always so for {LimitError}).
    # - +:syntax+: anything else that is not well-formed.
    REASONS = %i[truncated limit syntax].freeze

    # @return [Integer, nil] 1-based line of the offending input
    attr_reader :line
    # @return [Integer, nil] 1-based column (in characters) of the offending input
    attr_reader :column
    # @return [Integer, nil] 0-based byte offset of the offending input, in the text as
    #   parsed: UTF-8, after line ends were normalized to LF (XML 1.0 section 2.11)
    attr_reader :offset
    # @return [Symbol] why: +:truncated+, +:limit+ or +:syntax+ (see {REASONS});
    #   the same on both backends
    attr_reader :reason

    # @param message [String] what was wrong and what was expected
    # @param line [Integer, nil]
    # @param column [Integer, nil]
    # @param offset [Integer, nil]
    # @param reason [Symbol, nil] one of {REASONS}; nil for the class's own
    #   ({LimitError}: +:limit+, otherwise +:syntax+)
    # @raise [ArgumentError] a reason not in {REASONS}
    def initialize(message = nil, line: nil, column: nil, offset: nil, reason: nil)
      reason ||= default_reason
      raise ArgumentError, "reason: must be one of #{REASONS.map(&:inspect).join(', ')}, not #{reason.inspect}" unless REASONS.include?(reason)

      @line = line
      @column = column
      @offset = offset
      @reason = reason
      super(line ? "#{message} at line #{line}, column #{column}" : message)
    end

    private

    def default_reason
      :syntax
    end
  end

  # A configured limit was exceeded: nesting depth, the size of one token
  # (+max_token_size+), entity expansion, attributes or namespaces on a tag
  # (XML), the length of a number (JSON). A subclass of {ParseError}, so it
  # carries a position too.
  class LimitError < ParseError
    private

    def default_reason
      :limit
    end
  end

  # The input is well-formed but does not fit the schema, e.g. +<votes>many</votes>+
  # for an +:integer+. Carries the schema path and the position in the input.
  class DecodeError < Error
    # @return [String, nil] where in the record, e.g. +"item/votes"+ or +"[3].affects_versions[0].sequence"+
    attr_reader :path
    # @return [Integer, nil] 1-based line of the offending value
    attr_reader :line
    # @return [Integer, nil] 1-based column of the offending value
    attr_reader :column

    # @param message [String] what was expected and what was found
    # @param path [String, nil]
    # @param line [Integer, nil]
    # @param column [Integer, nil]
    def initialize(message = nil, path: nil, line: nil, column: nil)
      @path = path
      @line = line
      @column = column
      where = []
      where << "at #{path}" if path
      where << "line #{line}" if line
      where << "column #{column}" if column
      super(where.empty? ? message : "#{message} (#{where.join(', ')})")
    end
  end

  # A value cannot be written in the requested format (e.g. a String where the
  # schema says +:integer+). Carries the schema path.
  class EncodeError < Error
    # @return [String, nil] where in the object, e.g. +"issue/votes"+
    attr_reader :path

    # @param message [String]
    # @param path [String, nil]
    def initialize(message = nil, path: nil)
      @path = path
      super(path ? "#{message} (at #{path})" : message)
    end
  end

  # Binary payloads: {Wirebind::Buffer} and binary records ({Binary.decode}).
  # Its errors live here, with the others, because the C extension looks them
  # up when it loads (a truncated record is a {ParseError}).
  module Binary
    # An access outside a Buffer's bytes, a value that does not fit its field,
    # or an offset that is not a valid index. Also +Wirebind::Buffer::RangeError+.
    class RangeError < Error; end

    # A write to a read-only Buffer (a view of a String), or growing a view.
    # Also +Wirebind::Buffer::ReadOnlyError+.
    class ReadOnlyError < Error; end
  end
end

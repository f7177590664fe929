# frozen_string_literal: true

require_relative "json/plan"
require_relative "json/pure/decoder"
require_relative "json/pure/encoder"
require_relative "json/native" if Wirebind.backend == :native

module Wirebind
  # Reads and writes JSON with the schema declared on {Wirebind::Model} classes.
  #
  # The front door: it validates options once, and hands them, with the type,
  # to the backend: +Wirebind::JSON::Native+ (C, ext/wirebind/json_*.c; the
  # default wherever {Wirebind.backend} is +:native+) or {Pure} (Ruby, the
  # reference). Both have the same +decode+, +each+ and +encode+ and give the
  # same values, bytes and errors. Where the extension is not loaded,
  # +backend: :native+ raises.
  #
  # == The mapping
  #
  # A model is a JSON object whose keys are the attributes' JSON keys (the
  # attribute name by default; +json:+ renames one, <tt>json_keys :camel</tt> all).
  # +[T]+ is a JSON array. Scalars:
  #
  # - +:string+: a JSON string.
  # - +:integer+: a JSON number written as an integer (+-12+). +1.0+ and +1e2+
  #   are refused rather than guessed at: the type says integer, the text does not.
  # - +:float+: any JSON number, to the nearest Float (correctly rounded). A
  #   number beyond a double's range is an error, never Infinity.
  # - +:decimal+: any JSON number, read exactly from its text (never through a
  #   Float) into a BigDecimal; written exactly, positional (+12.50+ is
  #   written +12.5+) unless the exponent passes 100 (+0.1e400+).
  # - +:boolean+: +true+ or +false+.
  # - +:time+: a string in the xs:dateTime form with its offset kept
  #   (+"2014-03-01T10:00:00.5+05:30"+; "Z" or no zone read as UTC).
  # - +:date+: a string +"YYYY-MM-DD"+ (xs:date: a zone after it is checked, then dropped).
  # - +:base64+: a string of strict base64 (RFC 4648, padded, no line breaks),
  #   read into a binary String.
  #
  # +null+ is nil for any type; a list that is +null+ or absent is +[]+, and an
  # absent key is nil. Unknown keys are checked for well-formedness and skipped
  # (+strict: true+ makes them errors). A key given twice: the last one wins.
  # Encoding writes every attribute, in declaration order, nil as +null+ (so
  # decoding gives the same record back), and a nil list as +[]+.
  #
  # == Errors
  #
  # All are {Wirebind::Error}s. {ParseError} (not JSON; +line+, +column+ and byte
  # +offset+): malformed syntax, invalid UTF-8, a lone surrogate escape
  # (+"\ud800"+), truncated input. {LimitError} (a ParseError): a limit below
  # was exceeded. {DecodeError} (JSON that does not fit the type; +path+ and
  # +line+): e.g. a string where an integer is declared. The path names keys as
  # they appear in the input and indexes in brackets:
  # +"[3].affects_versions[0].sequence"+; a key that is not an identifier is
  # quoted: +["a.b"]+.
  #
  # @example
  #   issues = Wirebind::JSON.decode(io, [Issue])
  #   Wirebind::JSON.each(io, Issue) { |issue| puts issue.key }
  #   json = Wirebind::JSON.encode(issues)
  #   Wirebind::JSON.decode('{"a":[1,2.5,null]}', :any) # => {"a"=>[1, 2.5, nil]}
  module JSON
    # Limits that are on unless a caller changes them.
    DEFAULT_LIMITS = {
      # Arrays and objects open at once.
      max_depth: 1024,
      # Bytes of input one string or number token may take (+max_size+ is
      # another name of it, the one it had first; XML's limit has this name).
      max_token_size: 64 * 1024 * 1024,
      # Characters a number may have: reading a 10 MB integer is quadratic work
      # an attacker should not get for free.
      max_number_length: 4096
    }.freeze

    # Older names of limits, still accepted.
    LIMIT_ALIASES = { max_size: :max_token_size }.freeze
    private_constant :LIMIT_ALIASES

    class << self
      # Decodes a JSON document into instances of +type+.
      #
      # @param input [String, IO] the document, UTF-8. A String is read in place;
      #   an IO (+readpartial+ or +read+) in 64 KiB chunks.
      # @param type [Class, Symbol, Array(Class), Array(Symbol)] a model class, a
      #   scalar type, or +:any+ for plain Ruby values (Hash, Array, String,
      #   Integer, Float, true, false, nil); a one-element Array of one for a
      #   JSON array of them
      # @param strict [Boolean] raise {DecodeError} on keys the schema does not know
      # @param backend [Symbol] +:native+ (the default where the extension is
      #   loaded) or +:pure+
      # @param limits [Hash] overrides of {DEFAULT_LIMITS}
      # @return [Object, Array, nil] the value; nil for +null+ (for a list type, +[]+)
      # @raise [ParseError] not JSON, with line, column and offset
      # @raise [LimitError] a limit was exceeded
      # @raise [DecodeError] JSON that does not fit +type+, with path and line
      def decode(input, type, strict: false, backend: Wirebind.backend, **limits)
        item, list = Options.type(type, any: true)
        Options.boolean(:strict, strict)
        backend_for(backend).decode(input, item, list, strict, check_limits(limits))
      end

      # Streams the items of a top-level JSON array: each is yielded as soon as
      # it is complete and is not retained, so memory stays flat however long
      # the array.
      #
      # @param (see .decode)
      # @param type [Class, Symbol, Array] the item type; +Issue+ and +[Issue]+ mean the same
      # @yieldparam item [Object]
      # @return [Integer, Enumerator] the number of items yielded (0 for +null+),
      #   or an Enumerator without a block
      def each(input, type, strict: false, backend: Wirebind.backend, **limits, &block)
        return enum_for(:each, input, type, strict: strict, backend: backend, **limits) unless block

        item, = Options.type(type, any: true)
        Options.boolean(:strict, strict)
        backend_for(backend).each(input, item, strict, check_limits(limits), block)
      end

      # Encodes a model instance, a list of them, or plain values (nil, Hash
      # with String or Symbol keys, Array, String, Symbol, Integer, Float,
      # BigDecimal, true, false, Time, Date) as JSON, without whitespace.
      #
      # @param value [Wirebind::Model, Array, Hash, Object]
      # @param io [IO, nil] write to this IO (in 64 KiB pieces for a list) instead
      #   of returning a String
      # @param max_depth [Integer] deepest nesting written: a cycle among the
      #   objects is an error, not a stack overflow
      # @param backend [Symbol] +:native+ (the default where the extension is
      #   loaded) or +:pure+
      # @return [String, Integer] the JSON text, or the bytes written to +io+
      # @raise [EncodeError] a value does not fit its declared type or cannot be
      #   written (NaN, invalid UTF-8...), with its path
      def encode(value, io: nil, max_depth: DEFAULT_LIMITS[:max_depth], backend: Wirebind.backend)
        Options.positive_integer(:max_depth, max_depth)
        Options.io(io)

        value = Model.encodable(value)
        backend_for(backend).encode(value, io, max_depth)
      end

      private

      def backend_for(name)
        Backend.implementation(:json, name)
      end

      def check_limits(limits)
        Options.limits(limits, DEFAULT_LIMITS, LIMIT_ALIASES)
      end
    end
  end

  module Model
    # Encodes this record as JSON.
    #
    # Also what the json library calls for a record nested in a value it
    # generates (+JSON.generate(issues: [issue])+): it passes a JSON::State,
    # which is accepted and ignored (the record is written compactly even
    # inside pretty output).
    #
    # @param _state [Object] ignored: a JSON::State, or anything the json
    #   library's +to_json(*args)+ convention passes
    # @param options [Hash] as {Wirebind::JSON.encode} takes them
    # @return [Object] what {Wirebind::JSON.encode} returns
    def to_json(*_state, **options)
      Wirebind::JSON.encode(self, **options)
    end

    module ClassMethods
      # Decodes JSON into records of this class.
      #
      # @param source [String, IO] the document
      # @param options [Hash] as {Wirebind::JSON.decode} takes them, e.g. +strict:+
      # @return [Object] what {Wirebind::JSON.decode} returns
      def from_json(source, **options)
        Wirebind::JSON.decode(source, self, **options)
      end
    end
  end
end

Wirebind::Backend.register(:json, pure: Wirebind::JSON::Pure, native: (Wirebind::JSON::Native if Wirebind.backend == :native))

module Wirebind
  module JSON
    module Writer
      # The twin that writes a Model inside a free value ({Writer.model}).
      # @api private
      MODEL_WRITER = Backend.implementation(:json, :pure)
    end
  end
end

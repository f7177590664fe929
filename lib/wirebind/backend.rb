# frozen_string_literal: true

module Wirebind
  # The one place the backend is chosen. The native extension is used when it is
  # built and loads, unless WIREBIND_BACKEND=pure; WIREBIND_BACKEND=native makes
  # a missing extension an error instead of a silent fallback (CI uses it). When
  # the extension's source is beside this file (a gem installed without a
  # compiler, a +path:+ gem never compiled) but it did not load, one warning
  # says so; WIREBIND_BACKEND=pure, the explicit choice, silences it.
  requested = ENV.fetch("WIREBIND_BACKEND", "auto")
  unless %w[auto pure native].include?(requested)
    raise ArgumentError, "WIREBIND_BACKEND must be auto, pure or native, not #{requested.inspect}"
  end

  native =
    if requested == "pure"
      false
    else
      begin
        require_relative "native_hooks" # what the extension's Init reads
        require "wirebind/wirebind_ext"
        true
      rescue LoadError => e
        raise if requested == "native"

        if File.exist?(File.expand_path("../../ext/wirebind/extconf.rb", __dir__))
          warn("wirebind: the native extension is not compiled (#{e.message}); using the slower pure-Ruby backend. " \
               "Compile it (bundle exec rake compile, or gem pristine wirebind) or set WIREBIND_BACKEND=pure to silence this.")
        end
        false
      end
    end

  # @api private
  BACKEND = native ? :native : :pure

  # @return [Symbol] +:native+ when the C extension is in use, +:pure+ otherwise
  def self.backend
    BACKEND
  end

  # The native/pure pair of every concept, and the one rule for +backend:+.
  # Each concept (XML, JSON, the serializer, binary records, Buffer, HPACK's
  # Huffman coder) registers its pair where it is defined; every front door
  # takes +backend:+ and asks {implementation} for the half to run.
  #
  # One hand-off is the native XML backend's own: a document with a DOCTYPE
  # (read only with +dtd: :internal+) is given to the pure XML backend, which
  # alone reads DTDs (xml/native.rb, +Native.run+). Nothing else moves between
  # backends.
  #
  # @example
  #   Wirebind::Backend.implementation(:json, :pure)   # => Wirebind::JSON::Pure
  module Backend
    # What +backend:+ takes.
    NAMES = %i[pure native].freeze

    @pairs = {}.freeze

    class << self
      # @param name [Object] what a caller gave as +backend:+
      # @return [Symbol] +:pure+, or +:native+ where the extension is in use
      # @raise [ArgumentError] not a backend, or +:native+ without the extension
      def resolve(name)
        return name if name == :pure || (name == :native && BACKEND == :native)
        raise ArgumentError, "the native backend is not available (pure is in use)" if name == :native

        raise ArgumentError, "backend: must be one of #{NAMES.map(&:inspect).join(', ')}, not #{name.inspect}"
      end

      # @param concept [Symbol] +:xml+, +:json+, +:serializer+, +:binary+, +:buffer+ or +:hpack+
      # @param name [Symbol] +:pure+ or +:native+ ({resolve}d)
      # @return [Module] the half of the concept's pair that runs +name+
      # @raise [ArgumentError] an unknown concept or backend
      def implementation(concept, name = BACKEND)
        pair = @pairs.fetch(concept) { raise ArgumentError, "no backend pair for #{concept.inspect}" }
        pair.fetch(resolve(name))
      end

      # The quick test of a hot front door (binary records): whether +name+
      # means the native half.
      # @param name [Symbol] +backend:+ as given
      # @return [Boolean]
      # @raise [ArgumentError] as {resolve}
      def native?(name)
        return true if name == :native && BACKEND == :native

        resolve(name)
        false
      end

      # @return [Array<Symbol>] the concepts with a registered pair
      def concepts
        @pairs.keys
      end

      # Registers a concept's pair, where it is defined (+native+ nil when the
      # extension is not in use).
      #
      # @api private
      def register(concept, pure:, native:)
        # replaced whole and deeply frozen: other Ractors read it
        pairs = @pairs.merge(concept => { pure: pure, native: native })
        @pairs = defined?(Ractor) ? Ractor.make_shareable(pairs) : pairs.freeze
      end
    end
  end
end

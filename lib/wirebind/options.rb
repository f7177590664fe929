# frozen_string_literal: true

module Wirebind
  # The core the front doors share ({XML}, {JSON}, {Serializer}): the type
  # argument, the backend, limits and every other option are checked here,
  # in one place, so that every format takes the same values and refuses a
  # bad one the same way, with an ArgumentError naming it, before any input
  # is read or output written.
  # @api private
  module Options
    # What +backend:+ takes.
    BACKENDS = Backend::NAMES

    module_function

    # The backend a front door runs (+backend:+): +:pure+, or +:native+ where
    # the extension is in use ({Wirebind.backend}). Every front door takes the
    # same values and refuses a bad one with the same words.
    #
    # @param name [Object] what the caller gave
    # @return [Symbol] +:pure+ or +:native+
    # @raise [ArgumentError] not a backend, or +:native+ without the extension
    def backend(name)
      Backend.resolve(name)
    end

    # The type argument of a decoder (+decode(input, type)+): a model class
    # or a scalar type for one value, or a one-element Array of one for a
    # list of them.
    #
    # @param type [Object] what the caller gave
    # @param any [Boolean] whether +:any+ (plain values) is a type here
    # @return [Array(Object, Boolean)] the item type, and whether it is a list
    # @raise [ArgumentError] anything else
    def type(type, any: false)
      list = type.is_a?(Array)
      if list
        raise ArgumentError, "a list type is a one-element Array, like [Issue], not #{type.inspect}" unless type.size == 1

        type = type.first
      end
      return [type, list] if (type.is_a?(Class) && type.include?(Wirebind::Model)) || Types.scalar?(type) || (any && type == :any)

      raise ArgumentError, "type must be a Wirebind::Model class, a scalar type (#{Types::SCALARS.join(', ')}), " \
                           "#{':any, ' if any}or a one-element Array of one, not #{type.inspect}"
    end

    # Merges the limits a caller gave into +defaults+, each checked to be a
    # positive Integer; +aliases+ maps an old name to the one it stands for.
    #
    # @param given [Hash{Symbol => Object}]
    # @param defaults [Hash{Symbol => Integer}]
    # @param aliases [Hash{Symbol => Symbol}]
    # @return [Hash{Symbol => Integer}] a new Hash, under the defaults' names
    # @raise [ArgumentError] an unknown option, a value that is not a positive
    #   Integer, or one limit given under two names
    def limits(given, defaults, aliases = {})
      unknown = given.keys.reject { |key| defaults.key?(aliases.fetch(key, key)) }
      raise ArgumentError, "unknown option#{'s' if unknown.size > 1}: #{unknown.join(', ')}" unless unknown.empty?

      resolved = {}
      given.each do |key, value|
        name = aliases.fetch(key, key)
        if resolved.key?(name)
          names = given.keys.select { |other| aliases.fetch(other, other) == name }
          raise ArgumentError, "#{names.map { |other| "#{other}:" }.join(' and ')} name the same limit: give one"
        end

        positive_integer(key, value)
        resolved[name] = value
      end
      defaults.merge(resolved)
    end

    # @raise [ArgumentError] unless +value+ is a positive Integer
    def positive_integer(name, value)
      raise ArgumentError, "#{name}: must be a positive Integer, not #{value.inspect}" unless value.is_a?(Integer) && value.positive?
    end

    # @raise [ArgumentError] unless +value+ is true or false (no truthiness:
    #   +strict: "no"+ must not mean strict)
    def boolean(name, value)
      raise ArgumentError, "#{name}: must be true or false, not #{value.inspect}" unless value == true || value == false
    end

    # @raise [ArgumentError] unless +value+ is one of +allowed+
    def one_of(name, value, allowed)
      raise ArgumentError, "#{name}: must be one of #{allowed.map(&:inspect).join(', ')}, not #{value.inspect}" unless allowed.include?(value)
    end

    # @raise [ArgumentError] unless +io+ is nil or answers +write+
    def io(io)
      raise ArgumentError, "io: must be nil or answer write, not #{io.class}" unless io.nil? || io.respond_to?(:write)
    end
  end
end

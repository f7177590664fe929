# frozen_string_literal: true

module Wirebind
  # A qualified name read from a +:qname+ attribute (+soap:Server+,
  # +listRel:Customer+): its prefix resolved against the namespaces in scope
  # where the value appeared. Two QNames are equal when their namespace and
  # local name are; the prefix the document used is kept only as a hint for
  # writing the value back ({#prefix}).
  #
  # @example
  #   class Fault
  #     include Wirebind::Model
  #     attribute :code, :qname, xml: "faultcode"
  #   end
  #   fault = Wirebind::XML.decode(%(<f xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/">) +
  #                                "<faultcode>soap:Server</faultcode></f>", Fault)
  #   fault.code.namespace  # => "http://schemas.xmlsoap.org/soap/envelope/"
  #   fault.code.local_name # => "Server"
  #   fault.code.to_s       # => "{http://schemas.xmlsoap.org/soap/envelope/}Server"
  #   fault.code == Wirebind::QName.new("http://schemas.xmlsoap.org/soap/envelope/", "Server") # => true
  class QName
    # @return [String, nil] the namespace URI; nil: no namespace
    attr_reader :namespace
    # @return [String] the local part
    attr_reader :local_name
    # @return [String, nil] the prefix the value was written with (nil: none, or
    #   not read from a document); not part of equality
    attr_reader :prefix

    # Parses what {#to_s} writes: Clark notation, the namespace in braces before
    # the local name, or the local name alone (no namespace).
    #
    # @param text [String]
    # @return [QName]
    # @raise [ArgumentError] not in Clark notation
    def self.parse(text)
      match = /\A(?:\{([^{}]*)\})?([^{}]+)\z/.match(text.to_s) or raise ArgumentError, "not a QName in {uri}local notation: #{text.inspect}"

      new(match[1].nil? || match[1].empty? ? nil : match[1], match[2])
    end

    # @param namespace [String, nil] the namespace URI (nil or "" for none)
    # @param local_name [String, Symbol]
    # @param prefix [String, nil] a preferred prefix for writing
    # @raise [ArgumentError] an empty local name, or a non-String namespace
    def initialize(namespace, local_name, prefix: nil)
      local_name = local_name.name if local_name.is_a?(Symbol)
      raise ArgumentError, "a QName's local name must be a non-empty String, not #{local_name.inspect}" unless local_name.is_a?(String) && !local_name.empty?
      raise ArgumentError, "a QName's namespace must be a String or nil, not #{namespace.inspect}" unless namespace.nil? || namespace.is_a?(String)
      raise ArgumentError, "a QName's prefix must be a String or nil, not #{prefix.inspect}" unless prefix.nil? || prefix.is_a?(String)

      @namespace = namespace.nil? || namespace.empty? ? nil : -namespace
      @local_name = -local_name
      @prefix = prefix.nil? || prefix.empty? ? nil : -prefix
      freeze
    end

    # Marshal (the multiRef spill file of {SOAP::Client#each} among others)
    # would read a QName back unfrozen: it goes through the same checks instead.
    # @api private
    def marshal_dump
      [@namespace, @local_name, @prefix]
    end

    # @api private
    def marshal_load(fields)
      namespace, local_name, prefix = fields
      initialize(namespace, local_name, prefix: prefix)
    end

    # @return [Boolean] same namespace and local name (the prefix does not count)
    def ==(other)
      other.is_a?(QName) && other.namespace == @namespace && other.local_name == @local_name
    end
    alias eql? ==

    # @return [Integer]
    def hash
      [QName, @namespace, @local_name].hash
    end

    # @return [String] Clark notation: `"{uri}local"`, or +"local"+ without a namespace
    def to_s
      @namespace ? "{#{@namespace}}#{@local_name}" : @local_name
    end

    # @return [String]
    def inspect
      "#<Wirebind::QName #{self}#{" (#{@prefix}:)" if @prefix}>"
    end
  end
end

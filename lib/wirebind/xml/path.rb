# frozen_string_literal: true

module Wirebind
  module XML
    # An +at:+ path as data: the steps from the document element to the record
    # element(s), each a local name and a namespace. {XML.decode} and {XML.each}
    # take one wherever they take a path String; a String is parsed on each call,
    # a Path once (the SOAP envelope reader builds its paths from the names it
    # read, so a namespace is never printed and parsed back).
    #
    # A step is +[local, uri]+: +local+ an element's local name, or nil for any
    # element (+*+); +uri+ its namespace, nil for any namespace, +""+ for none.
    #
    # @example
    #   Wirebind::XML::Path.parse("Envelope/Body/{urn:jira}getIssuesResponse/*")
    #   Wirebind::XML::Path.new([["Envelope", nil], ["Body", nil], ["getIssuesResponse", "urn:jira"], [nil, nil]])
    class Path
      # @return [Array<Array(String, String)>] the steps, frozen
      attr_reader :steps

      # Any one element, in any namespace (+*+).
      ANY = Plan::ANY_STEP

      # Parses a path String: steps separated by +/+, each +local+ (any namespace),
      # +\{uri}local+, +\{}local+ (no namespace) or +*+. A local name holds no +}+,
      # so a namespace runs to the last +}+ of its step.
      #
      # @param text [String]
      # @return [Path]
      # @raise [ArgumentError] not such a path
      def self.parse(text)
        raise ArgumentError, "at: must be a String path like \"Envelope/Body/item\", not #{text.inspect}" unless text.is_a?(String)

        context = "at: #{text.inspect}"
        new(Plan.split_path(text).map { |segment| Plan.path_step(segment, context) }, checked: true)
      rescue SchemaError => e
        raise ArgumentError, e.message
      end

      # @param steps [Array<Array(String, String)>] +[local, uri]+ pairs (see {Path})
      # @param checked [Boolean] @api private: the steps are frozen pairs from
      #   {check_step} or {parse} already
      # @raise [ArgumentError] a step that is not a pair of an element name (or nil)
      #   and a namespace (or nil)
      def initialize(steps, checked: false)
        raise ArgumentError, "a Path is made of [local, uri] steps, not #{steps.inspect}" unless steps.is_a?(Array) && !steps.empty?

        @steps = checked ? steps.freeze : steps.map { |step| Path.check_step(step) }.freeze
        freeze
      end

      # @api private
      # @return [Array(String, String)] the step, checked and frozen
      def self.check_step(step)
        raise ArgumentError, "a Path step is [local, uri], not #{step.inspect}" unless step.is_a?(Array) && step.size == 2

        local, uri = step
        return ANY if local.nil? && uri.nil?

        Plan.step(local, uri, "at:")
      rescue SchemaError => e
        raise ArgumentError, e.message
      end

      # @return [String] the path as {parse} reads it
      def to_s
        @steps.map do |local, uri|
          if local.nil? then "*"
          elsif uri.nil? then local
          else
            "{#{uri}}#{local}"
          end
        end.join("/")
      end

      # @return [String]
      def inspect
        "#<#{self.class.name} #{self}>"
      end

      # @param other [Object]
      # @return [Boolean] whether +other+ is a Path with the same steps
      def ==(other)
        other.is_a?(Path) && other.steps == @steps
      end
      alias eql? ==

      # @return [Integer]
      def hash
        [Path, @steps].hash
      end
    end
  end
end

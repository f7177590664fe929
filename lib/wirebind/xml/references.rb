# frozen_string_literal: true

module Wirebind
  module XML
    # The bookkeeping of SOAP 1.1 encoding references (+href="#id"+ and the
    # elements with that +id+, Axis's +multiRef+s), shared by both decoders so
    # they agree: the decoders find the references and the referents, this
    # object remembers where each value goes and puts it there when it is read.
    #
    # A value element with +href="#x"+ is a reference: when +x+ was already
    # read, its value goes in at once (the same object: shared references stay
    # shared); otherwise the place is remembered, in one of three forms: a
    # position in an Array (a list, the results), an index in the values of a
    # record not built yet ({#hold}, turned into an instance variable of the
    # record when it is built, {#built}), or the queue of records +each+ yields.
    # An element outside the records with an +id+ is a referent, decoded as the
    # type its first reference declared (or, when no reference came yet, the type
    # its +xsi:type+ names), then {#resolve}d.
    #
    # At the end ({#finish}): a reference with no referent (dangling), or
    # referents that reference each other in a cycle, is a {DecodeError}; so is
    # having more than +max+ references pending at once. Everything here is a loop
    # over Arrays and Hashes (no recursion), linear in the references.
    #
    # @api private
    class References
      # What {#lookup} returns for an id not read yet.
      PENDING = Object.new.freeze
      # The +attribute+ of a referent's slot: where the decoders tell it apart.
      REFERENT = :referent
      # xsi:type names of XML Schema (and SOAP encoding) scalars.
      XSD_SCALARS = {
        "string" => :string, "normalizedString" => :string, "token" => :string, "anyURI" => :string, "QName" => :string,
        "int" => :integer, "long" => :integer, "short" => :integer, "byte" => :integer, "integer" => :integer,
        "unsignedInt" => :integer, "unsignedLong" => :integer, "unsignedShort" => :integer, "unsignedByte" => :integer,
        "nonNegativeInteger" => :integer, "positiveInteger" => :integer, "negativeInteger" => :integer, "nonPositiveInteger" => :integer,
        "double" => :float, "float" => :float, "decimal" => :decimal, "boolean" => :boolean,
        "dateTime" => :time, "date" => :date, "base64Binary" => :base64, "base64" => :base64
      }.freeze
      SCALAR_NAMESPACES = ["http://www.w3.org/2001/XMLSchema", "http://schemas.xmlsoap.org/soap/encoding/"].freeze

      # @return [Integer] records yielded through {#each_record} / {#each_reference}
      attr_reader :count

      # @param max [Integer] most references pending at once
      # @param block [Proc, nil] the block of +each+
      def initialize(max, block = nil)
        @max = max
        @block = block
        @values = {}     # id => value read
        @types = {}      # id => type its first reference declared
        @targets = {}    # id => [target, ...]; a target is [Array, index] or [record, ivar]
        @pending = 0     # targets waiting
        @held = []       # [key, index, id] for records not built yet, innermost last
        @edges = {}      # referent id => ids its content references
        @current = nil   # the id of the referent being decoded
        @queue = nil     # each: boxes of records waiting for references before them
        @count = 0
      end

      # Called for every reference the decoders meet.
      # @return [Object] the value read for +id+, or {PENDING}
      def lookup(id)
        (@edges[@current] ||= []) << id if @current
        @values.fetch(id, PENDING)
      end

      # A reference to a value not read yet, that goes to +array[index]+.
      def into_array(id, type, array, index)
        wait(id, type, [array, index])
      end

      # A reference whose value goes to +values[index]+ of a record still being
      # read (+key+ names its values: the Array itself, or where they start).
      def hold(id, type, key, index)
        wait(id, type, nil)
        @held << key << index << id
      end

      # @return [Boolean] whether a record being read holds references
      def holding?
        !@held.empty?
      end

      # The record read into the values named +key+ is built: its held
      # references now go to its instance variables.
      def built(record, key)
        held = @held
        while !held.empty? && held[-3].equal?(key)
          id = held.pop
          index = held.pop
          held.pop
          ivar = record.class.attributes[index].ivar
          (@targets[id] ||= []) << [record, ivar]
        end
      end

      # The type to decode a referent as: that of its first reference, else the
      # one its xsi:type names; nil (pass over it) when neither is known. The
      # referent is then the current one until {#resolve}.
      #
      # @param id [String]
      # @param xsi_local [String, nil] the xsi:type's local name
      # @param xsi_uri [String, nil] its namespace, resolved where it appeared
      # @return [Class, Symbol, nil]
      def referent_type(id, xsi_local, xsi_uri)
        raise DecodeError, "two elements have id=#{id.inspect}" if @values.key?(id)

        type = @types[id] || type_named(xsi_local, xsi_uri)
        @current = id if type
        type
      end

      # The current referent was read: its value goes everywhere it was referenced.
      def resolve(value)
        id = @current
        @current = nil
        @values[id] = value
        targets = @targets.delete(id)
        if targets
          @pending -= targets.size
          targets.each do |target, where|
            target.is_a?(Array) ? target[where] = value : target.instance_variable_set(where, value)
          end
        end
        flush if @queue && @pending.zero?
      end

      # +each+: a record that is not a reference, yielded in document order.
      def each_record(record)
        if @queue.nil? || (@queue.empty? && @pending.zero?)
          @count += 1
          @block.call(record)
        else
          @queue << [record]
        end
      end

      # +each+: a record that is a reference, yielded once every reference is read.
      def each_reference(id, type)
        value = lookup(id)
        return each_record(value) unless value.equal?(PENDING)

        box = [nil]
        @queue ||= []
        @queue << box
        into_array(id, type, box, 0)
      end

      # The document ended: every reference must have found its referent, and
      # the referents must not reference each other in a cycle.
      # @raise [DecodeError]
      def finish
        unless @targets.empty? && @held.empty?
          id = @targets.keys.first || @held[2]
          raise DecodeError, "href=\"##{id}\" references no element (no id=#{id.inspect} in the document, " \
                             "or it came before any reference to it without an xsi:type naming a known type)"
        end
        check_cycles
        flush if @queue
      end

      private

      def wait(id, type, target)
        @pending += 1
        raise DecodeError, "more than #{@max} references are pending (max_references)" if @pending > @max

        @types[id] ||= type
        (@targets[id] ||= []) << target if target
      end

      def type_named(local, uri)
        return nil unless local

        if uri.nil? || SCALAR_NAMESPACES.include?(uri)
          scalar = XSD_SCALARS[local]
          return scalar if scalar
        end
        Wirebind::Model.xml_subtype(Object, local, uri)
      end

      def flush
        queue = @queue
        until queue.empty?
          @count += 1
          @block.call(queue.shift[0])
        end
      end

      # Iterative depth-first search over the referents' references.
      def check_cycles
        return if @edges.empty?

        state = {} # id => :open or :done
        @edges.each_key do |start|
          next if state[start]

          stack = [[start, 0]]
          state[start] = :open
          until stack.empty?
            frame = stack.last
            id, i = frame
            children = @edges[id]
            if children && i < children.size
              frame[1] = i + 1
              child = children[i]
              case state[child]
              when :open then raise DecodeError, "the references between multiRefs form a cycle (through id=#{child.inspect})"
              when nil
                state[child] = :open
                stack << [child, 0]
              end
            else
              state[id] = :done
              stack.pop
            end
          end
        end
      end
    end
  end
end

# frozen_string_literal: true

require "tempfile"

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
    # == Streaming (+each+): what is kept
    #
    # Axis writes the records of a list as references in the Body and every
    # multiRef after it, breadth first (all the issues, then what they
    # reference, then what that references), so a record can only be yielded
    # once everything it reaches has been read: it is *complete* when it is
    # read and each referent it references is complete. Records are yielded in
    # document order as soon as the first one waiting is complete (not once the
    # whole document is read).
    #
    # Each reference is counted against what holds it (a record not yielded
    # yet, or a referent). Once a record is yielded, the model referents it
    # references that nothing else holds are let go, and in turn those only
    # they held: their values are no longer held here. A later reference may
    # still name one (a version shared by the first and the last of 100,000
    # issues; Axis writes a multiRef once, wherever it first met it, and a
    # writer may reference it again from anywhere after), and the decoder cannot
    # know which will be: so none is forgotten, and none is held in memory for
    # long. The last {RECENT} let go are kept as they are; older ones are
    # written to a {Spill} (an unlinked temporary file, one Marshal dump per
    # referent, its referents replaced by their ids), and the id remembers where.
    # A later reference takes one back as the same object while anything still
    # holds it (an ObjectSpace::WeakMap: the record the user kept), else as an
    # equal one read back from the file, its own referents taken back the same
    # way: no one can tell it from the original, which is gone. So +each+ and
    # {XML.decode} (which keeps every referent) read every valid document alike,
    # and memory while streaming is the records still pending and what they
    # reference, {RECENT} referents, and an id and an Integer per referent let
    # go, at most +max+ of them (more is a {DecodeError} naming +max_references+).
    # Scalar referents (Axis writes every +long+ as one, and shares them between
    # records and levels) are kept for the whole document: a value each.
    #
    # @api private
    class References
      # How many model referents +each+ keeps as they are after letting them go,
      # for a later reference to take back; older ones go to the {Spill}.
      RECENT = 4096
      EMPTY = [].freeze
      private_constant :EMPTY
      # What {#lookup} returns for an id not read yet.
      PENDING = Object.new.freeze
      # The +attribute+ of a referent's slot: where the decoders tell it apart.
      REFERENT = :referent
      # SOAP 1.2 encoding (Part 2 section 3.1.5): its +enc:ref="x"+ and +enc:id="x"+
      # are read as SOAP 1.1's +href="#x"+ and +id="x"+.
      ENCODING_NS_12 = "http://www.w3.org/2003/05/soap-encoding"
      # xsi:type names of XML Schema (and SOAP encoding) scalars.
      XSD_SCALARS = Types::XSD::INSTANCE_SCALARS
      SCALAR_NAMESPACES = [Namespaces::XSD, Namespaces::SOAP11_ENCODING].freeze

      # @return [Integer] records yielded through {#each_record} / {#each_reference}
      attr_reader :count

      # What a reference to a list reads its referent as (a +soapenc:Array+,
      # SOAP::Lite's shared lists): a record whose one field is the list of
      # +type+, every child element an item; {#resolve} keeps only the list.
      # One class per item type, made once.
      # @return [Class]
      def self.list_of(type)
        LISTS[type] || LIST_LOCK.synchronize do
          LISTS[type] ||= Class.new do
            include Wirebind::Model
            include ListReferent
            attribute :items, [type], xml: "*"
          end
        end
      end

      # Marks the classes {.list_of} makes.
      module ListReferent; end
      LISTS = {}.compare_by_identity # filled under LIST_LOCK
      LIST_LOCK = Mutex.new
      private_constant :LISTS, :LIST_LOCK

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
        @named = {}      # ids an href named (#define)
        @ambiguous = nil # ids of records inside the body that more than one element has (#define)
        @count = 0
        return unless block

        # each only: completion and letting go (see "Streaming" above).
        @queue = []      # boxes [record, incomplete children, children ids], in document order
        @top = []        # ids referenced by the top-level record being read
        @waiting = {}    # referent id => how many of its references are to incomplete referents (> 0)
        @parents = {}    # id => [referent id or box, ...] waiting for its completion
        @holders = {}    # id => how many references to it are held (by records not yielded, referents not let go)
        @recent = {}     # id => value: the last RECENT model referents let go, oldest first
        @spilled = {}    # id => its handle in @spill: let go before those
        @spill = nil     # a Spill, made when the first referent goes to it
      end

      # Called for every reference the decoders meet.
      # @return [Object] the value read for +id+, or {PENDING}
      def lookup(id)
        id.freeze # one String for every Hash that keys on it (an unfrozen key is copied)
        raise DecodeError, "href=\"##{id}\" names two elements (id=#{id.inspect})" if @ambiguous&.key?(id)

        @named[id] = true
        if @current
          (@edges[@current] ||= []) << id
        elsif @block
          @top << id
        end
        return @values.fetch(id, PENDING) unless @block

        revive(id) if @recent.key?(id) || @spilled.key?(id)
        @holders[id] = @holders.fetch(id, 0) + 1
        if @current && !complete?(id)
          @waiting[@current] = @waiting.fetch(@current, 0) + 1
          (@parents[id] ||= []) << @current
        end
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
          if @values.key?(id) # an element inside this record had the id (#define)
            @pending -= 1
            record.instance_variable_set(ivar, @values[id])
          else
            (@targets[id] ||= []) << [record, ivar]
          end
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
        id.freeze
        raise DecodeError, "two elements have id=#{id.inspect}" if @values.key?(id)

        type = @types[id] || type_named(xsi_local, xsi_uri)
        @current = id if type
        type
      end

      # The current referent was read: its value goes everywhere it was referenced.
      def resolve(value)
        id = @current
        @current = nil
        value = value.items if value.is_a?(ListReferent)
        @values[id] = value
        @types.delete(id)
        targets = @targets.delete(id)
        if targets
          @pending -= targets.size
          targets.each do |target, where|
            target.is_a?(Array) ? target[where] = value : target.instance_variable_set(where, value)
          end
        end
        completed(id) if @block && !@waiting.key?(id)
      end

      # A record with an +id+ read inside the body (PHP SoapServer writes +id+
      # on the first copy of a repeated value and +href+ on later copies, in
      # every style): its value goes everywhere it is referenced, as a
      # referent's does (a leniency: SOAP encoding puts referents outside).
      # An +id+ attribute a model declares for itself may repeat (ids of
      # different kinds): that is an error only when an +href+ names it.
      # @raise [DecodeError] when another element has that id and an href names it
      def define(id, value)
        outer = @current
        id.freeze
        if @values.key?(id) || @ambiguous&.key?(id)
          raise DecodeError, "two elements have id=#{id.inspect}, which an href names" if @named.key?(id)

          (@ambiguous ||= {})[id] = true
          return
        end

        @current = id
        resolve(value)
        @current = outer
      end

      # +each+: a record that is not a reference (the decoder looked up the
      # references it holds), yielded in document order once complete.
      def each_record(record)
        children = @top
        if children.empty? && @queue.empty?
          @count += 1
          @block.call(record)
        else
          @top = []
          enqueue([record, 0, children])
        end
      end

      # +each+: a record that is a reference the decoder looked up and found
      # not read yet; yielded in document order once complete.
      def each_reference(id, type)
        children = @top
        @top = []
        box = [nil, 0, children]
        enqueue(box)
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
        return unless @block

        flush
        @spill&.close
        # Unreachable: an incomplete record waits on a cycle, which check_cycles reports.
        raise DecodeError, "#{@queue.size} records wait for references that never completed" unless @queue.empty?
      end

      private

      # Whether +id+ was read along with every referent it reaches.
      def complete?(id)
        @values.key?(id) && !@waiting.key?(id)
      end

      # A box waits for its incomplete children; yielded when none is left and
      # every box before it was yielded.
      def enqueue(box)
        waiting = 0
        box[2].each do |child|
          next if complete?(child)

          waiting += 1
          (@parents[child] ||= []) << box
        end
        box[1] = waiting
        @queue << box
        flush if waiting.zero? && @queue.size == 1
      end

      # +id+ became complete: so may the referents and boxes that wait for it.
      def completed(id)
        done = [id]
        until done.empty?
          parents = @parents.delete(done.pop) or next
          parents.each do |parent|
            if parent.is_a?(Array)
              parent[1] -= 1
            elsif (left = @waiting[parent] - 1).zero?
              @waiting.delete(parent)
              done << parent if @values.key?(parent)
            else
              @waiting[parent] = left
            end
          end
        end
        flush
      end

      def flush
        queue = @queue
        until queue.empty? || queue.first[1].positive?
          record, _, children = queue.shift
          @count += 1
          @block.call(record)
          let_go(children)
        end
      end

      # A record holding references to +ids+ was yielded: a model referent no
      # one holds any more is let go, and so are, in turn, those only it held.
      # It stays among the RECENT last let go, from where a later reference
      # takes it back (the same object); older ones go to the spill.
      def let_go(ids)
        return if ids.empty?

        ids = ids.dup
        until ids.empty?
          id = ids.pop
          left = @holders.fetch(id, 0) - 1
          if left.positive?
            @holders[id] = left
            next
          end
          @holders.delete(id)
          value = @values[id]
          next unless value.is_a?(Wirebind::Model)

          @values.delete(id)
          @recent[id] = value
          children = @edges[id]
          ids.concat(children) if children
          forget_oldest if @recent.size > RECENT
        end
      end

      # A reference to a referent let go (kept aside or spilled): held again,
      # and so is what it holds (counted back as let_go counted it down). What
      # is read back from the spill holds its referents' ids, replaced once
      # every one of them is held again.
      def revive(id)
        read_back = []
        @values[id] = take_back(id, read_back)
        children = (@edges[id] || EMPTY).dup
        until children.empty?
          child = children.pop
          @holders[child] = @holders.fetch(child, 0) + 1
          next unless @recent.key?(child) || @spilled.key?(child)

          @values[child] = take_back(child, read_back)
          grandchildren = @edges[child]
          children.concat(grandchildren) if grandchildren
        end
        read_back.each { |record| Spill.resolve(record, @values) }
      end

      def take_back(id, read_back)
        return @recent.delete(id) if @recent.key?(id)

        value, children, copy = @spill.take(@spilled.delete(id))
        @edges[id] = children unless children.empty?
        read_back << value if copy
        value
      end

      # The oldest referent kept aside goes to the spill (whatever it holds is
      # let go already or still held, so its ids are at hand).
      def forget_oldest
        id, value = @recent.shift
        if @spilled.size >= @max
          raise DecodeError, "each keeps more than #{@max} multiRefs let go, for later references to take back (max_references)"
        end

        children = @edges.delete(id) || EMPTY
        ids = nil # the values it holds that a copy must name by id: not nil, true, false nor an Integer
        children.each do |child|
          held = @values.fetch(child) { @recent.fetch(child) { @spill.alive(@spilled[child]) } }
          (ids ||= {}.compare_by_identity)[held] = child unless held.nil? || held.is_a?(Integer) || held == true || held == false
        end
        @spilled[id] = (@spill ||= Spill.new).put(value, children, ids)
      end

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

      # Where +each+ keeps the referents it let go long ago (see "Streaming"
      # above): an unlinked temporary file, made on first use, holding for each
      # one the ids of its referents and a copy of it in which the values of
      # those referents are {Ref}s to their ids (so that a shared referent is one
      # object again when read back), {BATCH} to a Marshal dump. A handle counts
      # the referents put: its batch and its place there. While something else
      # holds the original, {#take} gives it back instead (a WeakMap on the
      # handle). What a referent costs here is its Marshal dump and the WeakMap
      # entry: about as much again as decoding it (see README, "SOAP client").
      #
      # @api private
      class Spill
        # A referent's place in a spilled copy.
        Ref = Struct.new(:id)

        # Referents written in one Marshal dump (the cost of a dump is much
        # more per call than per object).
        BATCH = 256

        def initialize
          @file = Spill.file_errors { Tempfile.create(["wirebind-multirefs", ".bin"], binmode: true) }
          File.unlink(@file.path)
          @places = []    # per batch: where it starts in the file, or the batch itself when Marshal cannot dump it
          @sizes = []     # per batch written: its bytes
          @end = 0
          @batch = []     # value, its referents' ids, ids by value: not written yet
          @count = 0
          @alive = ObjectSpace::WeakMap.new
        end

        # @param ids [Hash{Object => String}, nil] the values of +value+'s referents (by identity) and their ids
        # @return [Integer] the handle
        def put(value, children, ids)
          handle = @count
          @count += 1
          @alive[handle] = value
          @batch << value << children << ids
          write_batch if @batch.size == 3 * BATCH
          handle
        end

        # @return [Object, nil] the original, while something holds it
        def alive(handle)
          @alive[handle]
        end

        # @return [Array] [value, ids of its referents, whether it is a copy holding {Ref}s]
        def take(handle)
          batch, index = handle.divmod(BATCH)
          place = batch == @places.size ? @batch : @places[batch]
          return [place[3 * index], place[(3 * index) + 1], false] if place.is_a?(Array)

          bytes = Spill.file_errors do
            @file.flush
            @file.pread(@sizes[batch], place)
          end
          # rubocop:disable Security/MarshalLoad -- our own dump, in a file no one else can open (unlinked)
          children, copy = Marshal.load(bytes)[index]
          # rubocop:enable Security/MarshalLoad
          original = @alive[handle]
          original ? [original, children, false] : [copy, children, true]
        end

        def close
          @file.close
        end

        private

        # A batch Marshal cannot dump (a model class without a name, a value
        # such as a Proc) stays in memory as it is.
        def write_batch
          batch = @batch
          @batch = []
          dump = Marshal.dump(Array.new(batch.size / 3) do |i|
            value, children, ids = batch[3 * i, 3]
            [children, ids ? Spill.copy(value, ids) : value]
          end)
          Spill.file_errors { @file.write(dump) }
          @places << @end
          @sizes << dump.bytesize
          @end += dump.bytesize
        rescue TypeError
          @places << batch
          @sizes << 0
        end

        class << self
          # The file's errors (no room, no temporary directory) as {DecodeError}s.
          def file_errors
            yield
          rescue SystemCallError, IOError => e
            raise DecodeError, "each could not keep the multiRefs it let go in a temporary file (#{e.class}: #{e.message})"
          end

          # A copy of +value+ (its models and Arrays; the scalars shared) with
          # the values named in +ids+ replaced by {Ref}s. A loop, not recursion.
          def copy(value, ids)
            root = [value]
            replace_values(root) { |item, stack| copy_one(item, ids, stack) }
            root[0]
          end

          # Puts back, in a copy read back, the values of the referents its {Ref}s name.
          def resolve(value, values)
            replace_values(value) { |item, stack| resolve_one(item, values, stack) }
          end

          # Replaces each item of the Arrays and each value of the models reachable
          # from +holder+ with what the block gives for it; the block pushes onto
          # the stack the holders it wants walked too. A loop, not recursion.
          def replace_values(holder)
            stack = [holder]
            until stack.empty?
              holder = stack.pop
              if holder.is_a?(Array)
                holder.each_with_index { |item, i| holder[i] = yield(item, stack) }
              else
                holder.instance_variables.each do |ivar|
                  holder.instance_variable_set(ivar, yield(holder.instance_variable_get(ivar), stack))
                end
              end
            end
          end

          private

          def copy_one(item, ids, stack)
            if (id = ids[item])
              Ref.new(id)
            elsif item.is_a?(Array) || item.is_a?(Wirebind::Model)
              stack << (item = item.dup)
              item
            else
              item
            end
          end

          def resolve_one(item, values, stack)
            if item.is_a?(Ref)
              values.fetch(item.id)
            else
              stack << item if item.is_a?(Array) || item.is_a?(Wirebind::Model)
              item
            end
          end
        end
      end
    end
  end
end

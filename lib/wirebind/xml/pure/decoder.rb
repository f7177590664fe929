# frozen_string_literal: true

require_relative "tokenizer"

module Wirebind
  module XML
    # The pure-Ruby backend: the reference implementation of the XML contract.
    # @api private
    module Pure
      class << self
        # @see Wirebind::XML.decode
        def decode(input, item, list, path, strict, options)
          decoder = Decoder.new(input, item, path, strict, options, list ? :list : :first, nil)
          decoder.run
          decoder.check_found
          decoder.result
        end

        # @see Wirebind::XML.check
        def check(input, options)
          Tokenizer.new(input, **options).run
          true
        end

        # @see Wirebind::XML.each
        def each(input, item, path, strict, options, block)
          decoder = Decoder.new(input, item, path, strict, options, :each, block)
          decoder.run
          decoder.check_found
          decoder.count
        end
      end

      # Schema-directed decoding in one pass over the tokens: each element's local
      # name is looked up once in the plan's table of the frame it appears in, values
      # are converted as their element ends and collected in an Array per record, and
      # a record becomes an object through its class's generated +__wb_build+.
      #
      # Nothing is built for what the schema does not name: an unknown subtree only
      # moves a counter. Frames are an explicit stack (Arrays, laid out below), so
      # nesting costs heap, not Ruby stack.
      #
      # @api private
      class Decoder < Tokenizer
        SCALAR = Plan::SCALAR
        MODEL = Plan::MODEL
        GROUP = Plan::GROUP

        # Frame layout: [kind, node, values, slot, parent_values, text, nil?, wants_text, mark, children?]
        # node: the Plan (MODEL), Group (GROUP) or Slot (SCALAR) in force;
        # values: the record's values the entries of this frame fill;
        # slot/parent_values: where a finished MODEL goes;
        # mark: where the element started, for errors found at its end;
        # children?: a child element was seen (kept only by frames that want text).
        KIND = 0
        NODE = 1
        VALUES = 2
        SLOT = 3
        PARENT_VALUES = 4
        TEXT = 5
        NIL = 6
        WANTS_TEXT = 7
        MARK = 8
        CHILDREN = 9

        XSI_NS = Syntax::XSI_NS
        BLANK = /\A[ \t\r\n]*\z/

        # @return [Integer] records decoded so far
        attr_reader :count

        def initialize(input, item, path, strict, options, mode, block)
          @default_offset = options[:default_offset]
          @missing = options[:missing]
          super(input, **options.except(:default_offset, :missing))
          @path = path
          @strict = strict
          @mode = mode
          @block = block
          @results = mode == :list ? [] : nil
          @result = nil
          @count = 0
          @stack = []
          @top = nil
          @located = 0 # how many steps of @path the open elements match
          @reached = 0 # the most steps of @path matched at once
          @skip = 0    # depth inside a subtree being passed over
          @record_depth = nil
          @record_slot = Plan::Slot.new(kind: item.is_a?(Class) ? MODEL : SCALAR, index: nil, type: item, list: false,
                                        name: nil, uri: nil, alt: nil, nil_xsi: false, attribute: nil).freeze
        end

        # @return [Object, Array, nil] what the decode produced
        def result
          @mode == :list ? @results : @result
        end

        # Raises the +missing:+ error when the +at:+ path never matched.
        def check_found
          return unless @missing && @reached < (@mode == :first ? @path.size : @path.size - 1)

          raise DecodeError, @missing
        end

        def on_start(local, uri, attrs)
          if @skip > 0
            @skip += 1
            return
          end
          top = @top
          return locate(local, uri, attrs) unless top

          kind = top[KIND]
          scalar_with_children(top, local, nil) if kind == SCALAR
          top[CHILDREN] = true if top[WANTS_TEXT]
          unless (entry = lookup(top[NODE], local, uri))
            unknown_element(local, nil) if @strict
            @skip = 1
            @want_text = false
            return
          end
          values = top[VALUES]
          if entry.kind != GROUP && !entry.list && !values[entry.index].nil?
            # A single value takes the first matching element that gives one.
            @skip = 1
            @want_text = false
            return
          end
          case entry.kind
          when GROUP
            apply_attributes(entry, attrs, values, nil) if attrs
            push([GROUP, entry, values, nil, nil, nil, false, false])
          when MODEL
            start_model(entry, values, attrs)
          else
            start_scalar(entry, values, attrs)
          end
        end

        # The hottest hook: most elements of a payload are leaves, so the common
        # case (a scalar slot, no xsi:nil) is written out here in full.
        def on_leaf(local, uri, attrs, text)
          return if @skip > 0

          top = @top
          unless top
            depth = @names.size + 1
            return unless depth <= @path.size && @located == depth - 1 && @mode != :done && matches?(@path[depth - 1], local, uri)

            @reached = depth if depth > @reached
            return if depth < @path.size

            @record_depth = depth
            leaf_value(@record_slot, nil, attrs, text, local)
            return
          end
          scalar_with_children(top, local, local) if top[KIND] == SCALAR
          top[CHILDREN] = true if top[WANTS_TEXT]

          unless (entry = lookup(top[NODE], local, uri))
            unknown_element(local, local) if @strict
            return
          end
          kind = entry.kind
          if kind == SCALAR && !(attrs && attrs.include?("nil") && nil_attribute?(attrs))
            values = top[VALUES]
            if entry.list
              value = entry.type == :string ? text : convert(entry, text, local)
              list = values[entry.index]
              list ? list << value : values[entry.index] = [value]
            elsif values[entry.index].nil?
              values[entry.index] = entry.type == :string ? text : convert(entry, text, local)
            end
          elsif kind != GROUP # an empty wrapper leaves its lists empty, as they are by default
            leaf_value(entry, top[VALUES], attrs, text, local)
          elsif attrs
            apply_attributes(entry, attrs, top[VALUES], local)
          end
        end

        def on_text(text)
          top = @top
          buffered = top[TEXT]
          top[TEXT] =
            if buffered.nil?
              text
            elsif buffered.frozen?
              buffered + text
            else
              buffered << text
            end
        end

        def on_end
          if @skip > 0
            @skip -= 1
            @want_text = @top ? @top[WANTS_TEXT] : false if @skip.zero?
            return
          end
          top = @top
          unless top
            @located -= 1
            return
          end
          @stack.pop
          @top = @stack.last
          @want_text = @top ? @top[WANTS_TEXT] : false
          case top[KIND]
          when SCALAR
            slot = top[NODE]
            text = top[TEXT] || ""
            value = top[NIL] ? nil : convert(slot, text.frozen? && slot.type == :string ? text.dup : text, nil, top[MARK])
            deliver(slot, top[VALUES], value)
          when MODEL
            plan = top[NODE]
            values = top[VALUES]
            if (text_slot = plan.text)
              text = top[TEXT]
              # White space between child elements is layout, not text.
              text = nil if text && top[CHILDREN] && text.match?(BLANK)
              values[text_slot.index] = text || !top[CHILDREN] ? convert(text_slot, text || "", nil, top[MARK]) : nil
            end
            deliver(top[SLOT], top[PARENT_VALUES], plan.klass.__wb_build(values))
          end
          @located -= 1 unless @top
        end

        private

        # The entry of a plan or wrapper group for a child element: by local name,
        # then the namespace among entries of that name, else the "*" entry.
        # A "{}local" entry (uri "") matches only an element in no namespace (uri nil).
        def lookup(node, local, uri)
          entry = node.table[local]
          entry = entry.alt while entry && (want = entry.uri) && want != uri && !(uri.nil? && want.empty?)
          entry || node.any
        end

        def push(frame)
          @stack << frame
          @top = frame
        end

        # Outside any record: follow the +at:+ path, passing over every subtree
        # that cannot lead to a record.
        def locate(local, uri, attrs)
          depth = @names.size
          if @located != depth - 1 || @mode == :done || !matches?(@path[depth - 1], local, uri)
            @skip = 1
            return
          end
          @located = depth
          @reached = depth if depth > @reached
          return if depth < @path.size

          @record_depth = depth
          if @record_slot.kind == MODEL
            start_model(@record_slot, nil, attrs)
          else
            start_scalar(@record_slot, nil, attrs)
          end
        end

        def matches?(step, local, uri)
          name = step[0]
          (name.nil? || name == local) && (step[1].nil? || step[1] == uri)
        end

        def start_model(slot, parent_values, attrs)
          if attrs && nil_attribute?(attrs)
            deliver(slot, parent_values, nil)
            @skip = 1
            @want_text = false
            return
          end
          plan = Plan.for(slot.type)
          values = Array.new(plan.size)
          apply_attributes(plan, attrs, values, nil) if attrs
          wants_text = !plan.text.nil?
          push([MODEL, plan, values, slot, parent_values, nil, false, wants_text, wants_text ? mark : nil])
          @want_text = wants_text
        end

        def start_scalar(slot, values, attrs)
          push([SCALAR, slot, values, nil, nil, nil, attrs ? nil_attribute?(attrs) : false, true, mark])
          @want_text = true
        end

        # A value element that holds only text, seen whole.
        def leaf_value(slot, values, attrs, text, local)
          if attrs && nil_attribute?(attrs)
            deliver(slot, values, nil)
          elsif slot.kind == MODEL
            plan = slot.plan
            record = Array.new(plan.size)
            apply_attributes(plan, attrs, record, local) if attrs
            if (text_slot = plan.text)
              record[text_slot.index] = convert(text_slot, text, local)
            end
            deliver(slot, values, plan.klass.__wb_build(record))
          else
            deliver(slot, values, convert(slot, text, local))
          end
        end

        def deliver(slot, values, value)
          if (index = slot.index)
            if slot.list
              list = values[index]
              list ? list << value : values[index] = [value]
            elsif values[index].nil?
              values[index] = value
            end
          else
            emit(value)
          end
        end

        def emit(record)
          @count += 1
          case @mode
          when :list then @results << record
          when :each then @block.call(record)
          else
            @result = record
            @mode = :done
          end
        end

        def nil_attribute?(attrs)
          i = 0
          while i < attrs.size
            return attrs[i + 2] == "true" || attrs[i + 2] == "1" if attrs[i] == "nil" && attrs[i + 1] == XSI_NS

            i += 3
          end
          false
        end

        # +plan+: the Plan of a record, or a Group (attributes read by path).
        # +leaf+: the element's name when it is a leaf (not on the name stack), for paths.
        def apply_attributes(plan, attrs, values, leaf)
          table = plan.attributes
          return if table.empty?

          i = 0
          while i < attrs.size
            slot = table[attrs[i]]
            slot = slot.alt while slot && slot.uri != attrs[i + 1] # exact: nil is no namespace
            values[slot.index] = convert(slot, attrs[i + 2], leaf ? "#{leaf}/@#{attrs[i]}" : "@#{attrs[i]}") if slot
            i += 3
          end
        end

        # Text to value. Strings are kept as they are; other types see their
        # surrounding white space collapsed, and an empty element means nil.
        def convert(slot, text, leaf, mark = nil)
          type = slot.type
          return text if type == :string
          # Empty, or only white space (checked only when it starts with some): nil.
          return nil if text.empty? || (text.getbyte(0) <= 32 && text.match?(BLANK))

          if type == :time && (offset = slot.default_offset || @default_offset)
            text = Types::TimeType.with_default_offset(text, offset)
          end
          Types.from_xml_text(type, text)
        rescue Types::InvalidValue => e
          decode_error(e.message, leaf, mark)
        end

        # A child element inside a value declared as a scalar: its text alone would
        # silently drop the markup (+leaf+ as in {#unknown_element}).
        def scalar_with_children(top, local, leaf)
          slot = top[NODE]
          decode_error("<#{local}> is an element inside a #{slot.type.inspect} value; a scalar holds text only " \
                       "(declare a model, or :xml for the raw content)", leaf)
        end

        # +leaf+: the element's name when it is a leaf (not on the name stack).
        def unknown_element(local, leaf)
          decode_error("unknown element <#{local}> (strict: true)", leaf)
        end

        # Path from the record element down, by local names, e.g. "item/votes".
        def decode_error(message, leaf, mark = nil)
          from = (@record_depth || 1) - 1
          names = (@names[from..] || []).map { |qname| (colon = prefix_end(qname)) ? qname[(colon + 1)..] : qname }
          names << leaf if leaf
          line, column, = mark ? position(mark) : position
          raise DecodeError.new(message, path: names.join("/").force_encoding(Encoding::UTF_8), line: line, column: column)
        end
      end
    end
  end
end

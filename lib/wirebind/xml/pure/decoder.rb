# frozen_string_literal: true

require_relative "../tokenizer"

module Wirebind
  module XML
    # The pure-Ruby backend: the reference implementation of the XML contract.
    # @api private
    module Pure
      class << self
        # The native decoder's message for an unknown xsi:type is this one.
        # @see Decoder.unknown_type_message
        def unknown_type_message(declared, local, uri) = Decoder.unknown_type_message(declared, local, uri)

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
      # a record becomes an object through its plan's +build+ (the builder of the schema the plan was made from).
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
        OPEN = Plan::OPEN
        # The frame of a +:xml+ or +:any+ element: its NODE is the Capture fed
        # with everything inside it (VALUES and SLOT: where its value goes).
        CAPTURE = 4
        # How many instance xsi:types (per declared type, and namespaces per
        # type) a decoder remembers as leaving text as it is.
        PLAIN_TYPES = 8

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
        # MODEL: the id of a record read inside the body (References#define).
        ID = 10
        # SCALAR (in the place of a MODEL's slot): [local, uri] of an instance
        # xsi:type that changes its text, applied at its end to the text as
        # assembled (its pieces: IO reads, references, CDATA sections).
        XSI_TYPE = SLOT
        # PARENT_VALUES of a CAPTURE frame holding a record's whole content (:xml as ".").
        WHOLE = :whole

        XSI_NS = Syntax::XSI_NS
        BLANK = /\A[ \t\r\n]*\z/

        # @return [String] the message of a strict decode's DecodeError for an unknown xsi:type
        def self.unknown_type_message(declared, local, uri)
          "xsi:type #{local.inspect}#{" (#{uri})" if uri} names no subclass of #{declared} that declared xml_type (strict: true)"
        end

        # @return [Integer] records decoded so far (with references, yielded so far)
        def count
          @refs && @mode == :each ? @refs.count : @count
        end

        def initialize(input, item, path, strict, options, mode, block)
          @default_offset = options[:default_offset]
          @missing = options[:missing]
          @refs = options[:references]
          super(input, **options.except(:references, :default_offset, :missing))
          # xsi:type is looked at only once some model declared an xml_type.
          @poly = Model.xml_types?
          @referent_slots = nil
          @plain_types = {} # instance_text
          @loose = nil # values a plain name took from another namespace (single_taken?)
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
          return @results if @mode == :list

          @result_box ? @result_box[0] : @result
        end

        # Reads the whole document; with references, checks they all resolved.
        def run
          super
          @refs&.finish
          nil
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
          return top[NODE].start(*tag_source(attrs).insert(1, uri)) if kind == CAPTURE

          scalar_with_children(top, local, nil) if kind == SCALAR
          top[CHILDREN] = true if top[WANTS_TEXT]
          unless (entry = lookup(top[NODE], local, uri))
            unknown_element(local, nil) if @strict
            @skip = 1
            @want_text = false
            return
          end
          values = top[VALUES]
          if attrs && @refs && (id = href(attrs)) && (entry.kind != GROUP || (entry = referenced_list(entry)))
            reference(entry, values, id)
            @skip = 1
            @want_text = false
            return
          end
          if entry.kind != GROUP && !entry.list && (!values[entry.index].nil? || @loose || (uri && !entry.uri && uri != entry.home)) &&
             single_taken?(entry, values, uri, local, nil)
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
          when OPEN
            start_capture(entry, values, attrs, uri, local)
          else
            apply_attributes(entry, attrs, values, nil) if attrs && entry.attributes # "Amt/@Ccy" beside "Amt"
            start_scalar(entry, values, attrs)
          end
        end

        # The hottest hook: most elements of a payload are leaves, so the common
        # case (a scalar slot, no xsi:nil) is written out here in full.
        def on_leaf(local, uri, attrs, text)
          return if @skip > 0

          top = @top
          unless top
            return if attrs && @refs && referent_leaf(attrs, text, local)

            depth = @names.size + 1
            return unless depth <= @path.size && @located == depth - 1 && @mode != :done && matches?(@path[depth - 1], local, uri)

            @reached = depth if depth > @reached
            return if depth < @path.size

            @record_depth = depth
            if attrs && @refs && (id = href(attrs))
              reference(@record_slot, nil, id)
              return
            end

            leaf_value(@record_slot, nil, attrs, text, local)
            return
          end
          if (kind = top[KIND]) == CAPTURE
            qname, written, decls = tag_source(attrs)
            return top[NODE].leaf(qname, uri, written, decls, text)
          end
          scalar_with_children(top, local, local) if kind == SCALAR
          top[CHILDREN] = true if top[WANTS_TEXT]

          unless (entry = lookup(top[NODE], local, uri))
            unknown_element(local, local) if @strict
            return
          end
          kind = entry.kind
          if attrs && @refs && (id = href(attrs)) && (kind != GROUP || (entry = referenced_list(entry)))
            reference(entry, top[VALUES], id)
            return
          end

          values = top[VALUES]
          if kind != GROUP && !entry.list && (!values[entry.index].nil? || @loose || (uri && !entry.uri && uri != entry.home)) &&
             single_taken?(entry, values, uri, local, local)
            return # the first one stays
          end

          apply_attributes(entry, attrs, values, local) if attrs && kind == SCALAR && entry.attributes # "Amt/@Ccy" beside "Amt"

          # An xsi:type that leaves the text as it is (remembered per decoder) stays on this path.
          if kind == SCALAR &&
             !(attrs && ((attrs.include?("nil") && nil_attribute?(attrs)) || (attrs.include?("type") && text_changing_type(entry, attrs))))
            if entry.list
              value = entry.type == :string ? text : convert(entry, text, local)
              list = values[entry.index]
              list ? list << value : values[entry.index] = [value]
            else
              values[entry.index] = entry.type == :string ? text : convert(entry, text, local)
            end
          elsif kind != GROUP # an empty wrapper leaves its lists empty, as they are by default
            leaf_value(entry, top[VALUES], attrs, text, local, uri)
          elsif attrs
            apply_attributes(entry, attrs, top[VALUES], local)
          end
        end

        def on_text(text)
          top = @top
          return top[NODE].text(text) if top[KIND] == CAPTURE

          buffered = top[TEXT]
          top[TEXT] =
            if buffered.nil?
              text_size_checked(text)
            elsif buffered.frozen?
              text_size_checked(buffered + text)
            else
              text_size_checked(buffered << text)
            end
        end

        # max_token_size bounds a text value as assembled: pieces from a stream,
        # around comments, CDATA sections and character references add up.
        def text_size_checked(text)
          return text if text.bytesize <= @max_token_size

          # At the current token's start, as the native backend says (a CDATA
          # section read past its start keeps it in @token_mark).
          error("a text value is larger than max_token_size (#{@max_token_size} bytes)", LimitError,
                @token_start.negative? ? @token_mark : @token_start)
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
          return top[NODE].finish if top[KIND] == CAPTURE && top[NODE].depth > 0

          @stack.pop
          @top = @stack.last
          @want_text = @top ? @top[WANTS_TEXT] : false
          case top[KIND]
          when CAPTURE
            deliver(top[SLOT], top[VALUES], top[NODE].value)
            return on_end if top[PARENT_VALUES] == WHOLE # the record's end tag too
          when SCALAR
            slot = top[NODE]
            text = top[TEXT] || ""
            text = XML.instance_text(slot.type, *top[XSI_TYPE], text) if top[XSI_TYPE]
            value = top[NIL] ? nil : convert(slot, text.frozen? && slot.type == :string ? text.dup : text, nil, top[MARK])
            deliver(slot, top[VALUES], value)
          when MODEL
            plan = top[NODE]
            values = top[VALUES]
            if (text_slot = plan.text) && text_slot.kind != OPEN
              text = top[TEXT]
              # White space between child elements is layout, not text.
              text = nil if text && top[CHILDREN] && text.match?(BLANK)
              values[text_slot.index] = text || !top[CHILDREN] ? convert(text_slot, text || "", nil, top[MARK]) : nil
            end
            @loose&.delete(values)
            record = build(plan, values, nil, top[MARK])
            @refs.built(record, values) if @refs&.holding?
            deliver(top[SLOT], top[PARENT_VALUES], record)
            @refs.define(top[ID], record) if top[ID]
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
          return if attrs && @refs && referent_start(attrs, depth)

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

        def start_model(slot, parent_values, attrs, plan = nil)
          if attrs && nil_attribute?(attrs)
            deliver(slot, parent_values, nil)
            @skip = 1
            @want_text = false
            return
          end
          plan ||= Plan.for(slot.type)
          plan = subtype_plan(plan, attrs, nil) if @poly && attrs
          values = Array.new(plan.size)
          apply_attributes(plan, attrs, values, nil) if attrs
          wants_text = !(text_slot = plan.text).nil?
          whole = wants_text && text_slot.kind == OPEN
          wants_text = false if whole
          # A mark for the text's errors, and for a value the builder refuses (at the start tag).
          frame = [MODEL, plan, values, slot, parent_values, nil, false, wants_text, wants_text || plan.checked ? mark : nil]
          frame[ID] = referent_id(attrs) if attrs && @refs && slot.attribute != References::REFERENT
          push(frame)
          @want_text = wants_text
          start_whole_content(text_slot, values, attrs) if whole
        end

        # :xml as ".": the record's whole content is captured, by a frame that
        # ends at the record's own end tag and then ends the record's (see on_end).
        def start_whole_content(slot, values, attrs)
          push([CAPTURE, Capture.new(slot.type, nil, attrs, scope: self), values, slot, WHOLE, nil, false, true, nil])
          @want_text = true
        end

        # A +:xml+ or +:any+ element: text wanted throughout, so that every tag
        # inside is read by open_element (see Tokenizer#tag_source).
        def start_capture(slot, values, attrs, uri, local)
          if (named = wildcard(slot, local))
            # A wildcard item keeps its element (xsi:nil and xsi:type among its attributes).
            push([CAPTURE, Capture.new(:any, uri, attrs, named: named), values, slot, nil, nil, false, true, nil])
            @want_text = true
            return
          end
          if attrs && nil_attribute?(attrs)
            deliver(slot, values, nil)
            @skip = 1
            @want_text = false
            return
          end
          if (plan = typed_any_plan(slot, attrs))
            return start_model(slot, values, attrs, plan)
          end

          capture = Capture.new(slot.type, uri, attrs, scope: self)
          push([CAPTURE, capture, values, slot, nil, nil, false, true, nil])
          @want_text = true
        end

        def start_scalar(slot, values, attrs)
          null = attrs ? nil_attribute?(attrs) : false
          typed = attrs && !null ? text_changing_type(slot, attrs) : nil
          push([SCALAR, slot, values, typed, nil, nil, null, true, mark])
          @want_text = true
        end

        # A "*" :any item: [its local name, the record's namespace] (Capture's +named:+), else nil.
        def wildcard(slot, local)
          [local, slot.home] if slot.name.nil? && slot.type == :any && slot.kind == OPEN
        end

        # A value element that holds only text, seen whole.
        def leaf_value(slot, values, attrs, text, local, uri = nil)
          if (named = wildcard(slot, local))
            deliver(slot, values, Capture.leaf_value(:any, attrs, text, named, uri))
          elsif attrs && nil_attribute?(attrs)
            deliver(slot, values, nil)
          elsif slot.kind == OPEN && !(plan = typed_any_plan(slot, attrs))
            deliver(slot, values, Capture.leaf_value(slot.type, attrs, text))
          elsif plan || slot.kind == MODEL
            plan ||= slot.plan
            plan = subtype_plan(plan, attrs, local) if @poly && attrs
            record = Array.new(plan.size)
            apply_attributes(plan, attrs, record, local) if attrs
            if (text_slot = plan.text)
              record[text_slot.index] = text_slot.kind == OPEN ? Capture.leaf_value(text_slot.type, attrs, text) : convert(text_slot, text, local)
            end
            deliver(slot, values, build(plan, record, local, nil))
          else
            text = instance_text(slot, attrs, text) if attrs
            deliver(slot, values, convert(slot, text, local))
          end
        end

        # A scalar's text as its instance xsi:type gives it (XML.instance_text).
        # Pairs that leave the text as it is are remembered (a bounded number,
        # as the C decoder does), so rpc/encoded leaves ask XML once per pair.
        def instance_text(slot, attrs, text)
          local, uri = text_changing_type(slot, attrs)
          local ? XML.instance_text(slot.type, local, uri, text) : text
        end

        # [local, uri] of the element's instance xsi:type when it changes the
        # text of a value declared as +slot+'s type, else nil.
        def text_changing_type(slot, attrs)
          local, uri = xsi_type(attrs)
          return nil unless local

          plain = @plain_types[slot.type] ||= {}
          return nil if plain.dig(uri, local)
          return [local, uri] if XML.instance_rule(slot.type, local, uri)

          (plain[uri] ||= {})[local] = true if plain.size < PLAIN_TYPES && (plain[uri].nil? || plain[uri].size < PLAIN_TYPES)
          nil
        end

        def deliver(slot, values, value)
          if (index = slot.index)
            if slot.list
              list = values[index]
              list ? list << value : values[index] = [value]
            elsif values[index].nil?
              values[index] = value
            end
          elsif slot.attribute == References::REFERENT
            @refs.resolve(value)
          else
            emit(value)
          end
        end

        def emit(record)
          @count += 1
          case @mode
          when :list then @results << record
          when :each then @refs ? @refs.each_record(record) : @block.call(record)
          else
            @result = record
            @mode = :done
          end
        end

        # Whether an element matched by a single-valued +entry+ leaves the value it
        # has. A plain name ("link") prefers an element in the record's own namespace
        # or in none over one in another namespace: the first such element wins over
        # an earlier one from elsewhere (strict: an error), and an element from
        # elsewhere never replaces it. @loose marks, per values Array, the values a
        # plain name took from elsewhere (bits by index).
        def single_taken?(entry, values, uri, local, leaf)
          index = entry.index
          loose = !uri.nil? && entry.uri.nil? && uri != entry.home
          marks = @loose && @loose[values]
          if values[index].nil?
            if loose
              (@loose ||= {}.compare_by_identity)[values] = (marks || 0) | (1 << index)
            elsif marks
              @loose[values] = marks & ~(1 << index)
            end
            return false
          end
          return true if loose == (marks ? marks[index] == 1 : false)

          ambiguous_element(local, leaf) if @strict
          return true if loose

          values[index] = nil
          @loose[values] = marks & ~(1 << index)
          false
        end

        def ambiguous_element(local, leaf)
          decode_error("<#{local}> matches \"#{local}\" in the record's own namespace (or none) and in another one " \
                       "(strict: true; declare \"{uri}#{local}\" to choose)", leaf)
        end

        def nil_attribute?(attrs)
          i = 0
          while i < attrs.size
            return Types::BooleanType.parse(attrs[i + 2].strip) == true if attrs[i] == "nil" && attrs[i + 1] == XSI_NS

            i += 3
          end
          false
        end

        # The id a reference names: SOAP 1.1's +href="#id"+ (no namespace) or
        # SOAP 1.2's +enc:ref="id"+; nil when the element is not a reference.
        def href(attrs)
          i = 0
          while i < attrs.size
            name = attrs[i]
            if name == "href" && attrs[i + 1].nil?
              value = attrs[i + 2]
              return value.start_with?("#") ? value[1..] : nil
            end
            return attrs[i + 2] if name == "ref" && attrs[i + 1] == References::ENCODING_NS_12

            i += 3
          end
          nil
        end

        # The id a referent carries: SOAP 1.1's +id+ (no namespace) or SOAP 1.2's +enc:id+.
        def referent_id(attrs)
          attr_value(attrs, "id", nil) || attr_value(attrs, "id", References::ENCODING_NS_12)
        end

        # The list a wrapper element with an +href+ holds (SOAP::Lite's shared
        # +soapenc:Array+): a slot for the whole list, or nil when the wrapper
        # holds anything else (the href is then left alone, as on any group).
        def referenced_list(group)
          slots = group.table.values
          slots << group.any if group.any
          list = slots.first
          return nil unless slots.size == 1 && list.list && !list.alt

          whole = list.dup
          whole.list = false
          whole.kind = MODEL
          whole.type = References.list_of(list.type)
          whole
        end

        # A reference where +slot+'s value goes: filled now if its referent was
        # read, else remembered (References).
        def reference(slot, values, id)
          value = @refs.lookup(id)
          return deliver(slot, values, value) unless value.equal?(References::PENDING)

          type = slot.type
          if (index = slot.index)
            if slot.list
              list = values[index] ||= []
              list << nil
              @refs.into_array(id, type, list, list.size - 1)
            else
              @refs.hold(id, type, values, index)
            end
          elsif slot.attribute == References::REFERENT
            decode_error("a referenced element (id) may not itself be a reference (href)", nil)
          else
            @count += 1
            case @mode
            when :list
              @results << nil
              @refs.into_array(id, type, @results, @results.size - 1)
            when :each
              @refs.each_reference(id, type)
            else
              @result_box = [nil]
              @refs.into_array(id, type, @result_box, 0)
              @mode = :done
            end
          end
        end

        # An element outside the records with an id: a referent, decoded when
        # its type is known. It is not a record (soapenc:root="0").
        def referent_start(attrs, depth)
          id = referent_id(attrs) or return false
          type = @refs.referent_type(id, *xsi_type(attrs)) or return false

          @located += 1 # undone at its end, as for a record
          @record_depth = depth
          slot = referent_slot(type)
          slot.kind == MODEL ? start_model(slot, nil, attrs) : start_scalar(slot, nil, attrs)
          true
        end

        def referent_leaf(attrs, text, local)
          id = referent_id(attrs) or return false
          type = @refs.referent_type(id, *xsi_type(attrs)) or return false

          @record_depth = @names.size + 1
          leaf_value(referent_slot(type), nil, attrs, text, local)
          true
        end

        def referent_slot(type)
          (@referent_slots ||= {})[type] ||=
            Plan::Slot.new(kind: type.is_a?(Class) ? MODEL : SCALAR, index: nil, type: type, list: false, name: nil,
                           uri: nil, alt: nil, nil_xsi: false, attribute: References::REFERENT).freeze
        end

        def attr_value(attrs, name, uri)
          i = 0
          while i < attrs.size
            return attrs[i + 2] if attrs[i] == name && attrs[i + 1] == uri

            i += 3
          end
          nil
        end

        # [local, uri] of the element's xsi:type, its prefix resolved where it appears.
        def xsi_type(attrs)
          qname = attr_value(attrs, "type", XSI_NS) or return [nil, nil]
          colon = qname.index(":")
          return [qname, @default_ns] unless colon

          [qname[(colon + 1)..], @ns[qname[0, colon]]]
        end

        # The Plan of the model an +:any+ element's xsi:type names (a class that
        # declared that xml_type, the innermost record's module's first), or nil:
        # then its content is captured.
        def typed_any_plan(slot, attrs)
          return unless @poly && attrs && slot.type == :any

          local, uri = xsi_type(attrs)
          klass = local && Model.xml_type_named(local, uri, @stack.reverse_each.find { |frame| frame[KIND] == MODEL }&.[](NODE)&.klass)
          klass && Plan.for(klass)
        end

        # The plan of the subclass an xsi:type names, else +plan+ (strict: an
        # xsi:type naming nothing known is a DecodeError).
        def subtype_plan(plan, attrs, leaf)
          local, uri = xsi_type(attrs)
          return plan unless local

          declared = plan.klass
          klass = Model.xml_subtype(declared, local, uri)
          return Plan.for(klass) if klass && !klass.equal?(declared)
          return plan if klass || !@strict || local == declared.xml_root

          decode_error(Decoder.unknown_type_message(declared, local, uri), leaf)
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
        # surrounding white space collapsed, and an empty element means nil,
        # except for base64, whose empty text is a value: zero bytes.
        def convert(slot, text, leaf, mark = nil)
          type = slot.type
          return text if type == :string
          # Empty, or only white space (checked only when it starts with some).
          return type == :base64 ? "".b : nil if text.empty? || (text.getbyte(0) <= 32 && text.match?(BLANK))

          if type == :time && (offset = slot.default_offset || @default_offset)
            text = Types::TimeType.with_default_offset(text, offset)
          end
          return qname(text) if type == :qname

          Types.from_xml_text(type, text)
        rescue Types::InvalidValue => e
          decode_error(e.message, leaf, mark)
        end

        # A +:qname+'s prefix resolved where the text appears (on_end runs while
        # the element's own declarations are still in force).
        def qname(text)
          prefix, local = Types::QNameType.split(text)
          Types::QNameType.resolve(prefix, local, prefix.empty? ? @default_ns : @ns[prefix], text)
        end

        # A child element inside a value declared as a scalar: its text alone would
        # silently drop the markup (+leaf+ as in {#unknown_element}).
        def scalar_with_children(top, local, leaf)
          slot = top[NODE]
          decode_error("<#{local}> is an element inside a #{slot.type.inspect} value; a scalar holds text only " \
                       "(declare a model, or :xml for the raw content)", leaf)
        end

        # The record of +values+; a value its builder refuses is an error at
        # the attribute's place in the record's element, positioned at its
        # start tag (+leaf+: the element's name when it is a leaf, not on the
        # name stack, and its token the current one; else +mark+).
        def build(plan, values, leaf, mark)
          plan.build(values)
        rescue Model::Attribute::Refusal => e
          below = [leaf, e.xml_path].compact
          decode_error(e.reason, below.empty? ? nil : below.join("/"), mark)
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

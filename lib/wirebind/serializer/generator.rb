# frozen_string_literal: true

module Wirebind
  class Serializer
    # Translates a {Program} into the Ruby source of a {Compiled}'s methods,
    # the pure backend's: +write(r, out, ctx, d)+ (Siren's takes the head too,
    # +write(r, out, ctx, d, head)+; JSON:API's the document's state,
    # +write(r, out, st, d)+, and gets +id_of(r)+ as well).
    #
    # Each operation becomes the code the native engine runs for it, inline:
    # slots become locals (+s0+, +s1+...), blocks +if+/+else+ blocks, lists
    # +while+ loops, nested records calls of the nested serializer's +write+
    # (+@n3+, the instance variable of field 3). A literal run travels with
    # the value written after it, in each branch of the value's test, so that
    # +out << ',"key":"' << v << '"'+ is one statement in the common case.
    # The source holds only names the schema declared and +inspect+-quoted
    # literals.
    #
    # @api private
    class Generator
      # @param compiled [Compiled]
      # @param program [Program] +compiled+'s
      def initialize(compiled, program)
        @compiled = compiled
        @program = program
        @lines = []
        @pending = +""
        @pad = 0
        @at = nil
        ops = []
        each_op(program.tree) { |op| ops << op }
        # Slots some operation reads: a flag no one reads is not kept (Ruby
        # would warn of a local assigned but unused).
        @read = {}
        ops.each do |op|
          case op.code
          when Program::COMMA_IF, Program::HREF then @read[op.slot] = true
          when Program::UNLESS_ANY then op.slots.each { |slot| @read[slot] = true }
          when Program::FIELD then @read[op.from] = true
          end
          @read[op.flag] = true if op.flag
          @read[op.from] = true if (op.code == Program::ONE || op.code == Program::ATTR) && op.from
        end
        # Slots holding whether a fieldset keeps a member: true or false, tested as such.
        @kept = ops.select { |op| op.code == Program::FIELD }.to_h { |op| [op.slot, true] }
        @id = ops.find { |op| op.code == Program::ID }
        @head = ops.any? { |op| op.code == Program::HEAD }
        @links = ops.any? { |op| op.code == Program::LINK }
      end

      # @return [String]
      def source
        line "# frozen_string_literal: true"
        id_method if @id
        params = if @head then "ctx, d, head"
                 elsif @id then "st, d"
                 else "ctx, d"
                 end
        record_method("write", params) do
          line "ctx = st.context" if @id && @links
          translate(@program.tree)
        end
        @lines.join("\n")
      end

      private

      def each_op(list, &each)
        list.each do |op|
          each.call(op)
          each_op(op.body, &each) if op.body
          each_op(op.otherwise, &each) if op.otherwise
        end
      end

      # ---- output of source --------------------------------------------------

      def line(code)
        @lines << ("  " * @pad) + code
      end

      def indent
        @pad += 1
        yield
      ensure
        @pad -= 1
      end

      # Opens a method that writes one record; +params+ after +r, out+. The
      # locals +at+ (the field, or link, being written) and +i+ (the index in
      # its list) give an error its path.
      def record_method(name, params)
        line "def #{name}(r, out, #{params})"
        indent do
          line "raise wrong_record(r) unless @model === r"
          line "raise too_deep if d > MAX_DEPTH"
          line "at = i = nil"
          yield
          flush
        end
        line "rescue EncodeError, Types::InvalidValue => e"
        line "  raise nested_error(e, at, i)"
        line "end"
      end

      # JsonApi::Compiled#id_of: the resource's id as a String, from the
      # attribute the ID operation reads.
      def id_method
        name = @id.reader
        line "def id_of(r)"
        line "  v = #{read(@id)}"
        line "  return v if String === v"
        line "  return v.to_s if Integer === v"
        line "  raise EncodeError.new(#{"a JSON:API resource needs an id: #{name} is ".inspect} + Types.describe(v), path: #{name.name.inspect})"
        line "end"
      end

      # ---- literal text ------------------------------------------------------

      def flush
        line "out << #{@pending.inspect}" unless @pending.empty?
        @pending = +""
      end

      # @return [String] the pending literal, now no longer pending
      def take
        text = @pending
        @pending = +""
        text
      end

      # Sets +at+, unless it already holds +at+ here.
      def at(at)
        return if @at == at

        line "at = #{at.nil? ? 'nil' : at}"
        @at = at
      end

      # A block: the pending text written before, and inside at its end;
      # what +at+ holds afterwards is not known.
      def branch(list)
        entry = @at
        indent do
          translate(list)
          flush
        end
        @at = entry
      end

      # The expression reading the attribute +op+ reads from the record in
      # local +r+: a model's instance variable (a model's values are its
      # ivars, see {Wirebind::Model}), the reader of an object that is
      # not a model, or a Hash record's value by key.
      def read(op)
        return "Values.hash_value(r, #{op.reader.inspect})" if op.hash

        op.ivar ? "r.instance_variable_get(#{op.ivar.inspect})" : "r.#{op.reader}"
      end

      # The local of +slot+ assigned (or nothing, for a slot no one reads).
      def assign(slot)
        @read[slot] ? "s#{slot} = " : ""
      end

      # ---- operations --------------------------------------------------------

      def translate(list)
        list.each do |op|
          case op.code
          when Program::LIT then @pending << op.text
          when Program::ATTR then attribute(op)
          when Program::LINK
            at(op.at)
            line "#{assign(op.slot)}@links[#{op.target}].call(r, ctx)"
          when Program::LOAD
            at(op.at)
            line "#{assign(op.slot)}#{read(op)}"
          when Program::HREF
            at(op.at)
            string_value("s#{op.slot}")
          when Program::UNLESS_ANY then unless_any(op)
          when Program::FLAG_CLEAR then line "s#{op.slot} = false" if @read[op.slot]
          when Program::FLAG_SET then line "s#{op.slot} = true" if @read[op.slot]
          when Program::COMMA_IF
            flush
            line "out << ',' if s#{op.slot}"
          when Program::ONE then one(op)
          when Program::MANY then many(op)
          when Program::HEAD
            flush
            line "out << head"
          when Program::ID
            at(nil)
            line "id = id_of(r)"
            string_value("id")
          when Program::SPARSE then sparse(op)
          when Program::FIELD then line "#{assign(op.slot)}s#{op.from}.key?(#{op.text.inspect})"
          when Program::RELATE then relate(op)
          else raise ArgumentError, "serializer program: unknown op #{op.code}"
          end
        end
      end

      def unless_any(op)
        flush
        line "if #{op.slots.map { |slot| @kept[slot] ? "s#{slot}" : "!s#{slot}.nil?" }.join(' || ')}"
        branch(op.body)
        line "end"
        @at = :unknown
      end

      def sparse(op)
        flush
        line "if (f = st.fields) && (#{assign(op.slot)}f[#{op.text.inspect}])"
        branch(op.body)
        line "else"
        branch(op.otherwise)
        line "end"
        @at = :unknown
      end

      # The attribute's value from local +v+ (set here), or its list of values.
      def attribute(op)
        at(op.at)
        line "v = #{op.from ? "s#{op.from}" : read(op)}"
        return scalar(op, "v") unless op.list

        @pending << "["
        flush
        list_loop("raise not_a_list(v) unless Array === v") do
          line "out << ',' unless i.zero?"
          scalar(op, "x")
        end
        @pending << "]"
      end

      # Writes local +x+ (nil as null) after the pending literal, which every
      # branch repeats: +out << ',"key":"' << x << '"'+ in the common case.
      def scalar(op, x)
        pre = take
        head = pre.empty? ? "" : "out << #{pre.inspect}; "
        case op.type
        when :string
          line "if #{Values.string_fast(x)} then out << #{(pre + '"').inspect} << #{x} << '\"'"
          line "elsif #{x}.nil? then out << #{(pre + 'null').inspect}"
          line "else #{head}Values.string(out, #{x})"
          line "end"
        when :integer
          line "if Integer === #{x} && #{x}.bit_length < Writer::SHORT_INTEGER_BITS then out#{" << #{pre.inspect}" unless pre.empty?} << #{x}.to_s"
          line "elsif #{x}.nil? then out << #{(pre + 'null').inspect}"
          line "else #{head}Writer.integer(out, #{x})"
          line "end"
        when :boolean
          line "if true.equal?(#{x}) then out << #{(pre + 'true').inspect}"
          line "elsif false.equal?(#{x}) then out << #{(pre + 'false').inspect}"
          line "elsif #{x}.nil? then out << #{(pre + 'null').inspect}"
          line "else #{head}Writer.boolean(out, #{x})"
          line "end"
        when :time
          line "if #{x}.nil? then out << #{(pre + 'null').inspect}"
          line "else #{head}Values.time(out, #{x})"
          line "end"
        when *Values::TIME_FORMATS.keys
          line "if #{x}.nil? then out << #{(pre + 'null').inspect}"
          line "else #{head}Values.formatted_time(out, #{op.type.inspect}, #{x})"
          line "end"
        when :float, :decimal, :date, :base64
          line "if #{x}.nil? then out << #{(pre + 'null').inspect}"
          line "else #{head}Writer.#{op.type}(out, #{x})"
          line "end"
        when :any
          # A reader's value, written by its class: the commonest inline.
          line "if #{Values.string_fast(x)} then out << #{(pre + '"').inspect} << #{x} << '\"'"
          line "elsif #{x}.nil? then out << #{(pre + 'null').inspect}"
          line "elsif Integer === #{x} && #{x}.bit_length < Writer::SHORT_INTEGER_BITS then out#{" << #{pre.inspect}" unless pre.empty?} << #{x}.to_s"
          line "else #{head}Values.any(out, #{x}, d)"
          line "end"
        when :model
          # A record written as a value: Wirebind::JSON's encoding of it.
          line "if #{x}.nil? then out << #{(pre + 'null').inspect}"
          line "else"
          line "  raise wrong_value(#{op.at}, #{x}) unless @types[#{op.at}] === #{x}"
          line "  #{head}Writer.model(out, #{x}, d + 1, MAX_DEPTH)"
          line "end"
        else raise ArgumentError, "serializer program: no JSON form for #{op.type.inspect}"
        end
      end

      # Writes the String in local +x+ (a link's href, an id) after the
      # pending literal; anything but a String or Symbol raises.
      def string_value(x)
        pre = take
        line "if #{Values.string_fast(x)} then out << #{(pre + '"').inspect} << #{x} << '\"'"
        line "else #{"out << #{pre.inspect}; " unless pre.empty?}Values.string(out, #{x})"
        line "end"
      end

      # A comma before a record when flag +slot+ says one was written.
      def comma(slot)
        line "if s#{slot} then out << ',' else s#{slot} = true end" if slot
      end

      # A call of the nested serializer of +op+ for the record in +x+.
      def write_nested(op, x, serializer = "@n#{op.at}")
        "#{serializer}.write(#{x}, out, ctx, d + 1#{", #{op.head.inspect}" if op.head})"
      end

      # A nested record: from a slot, or read; a nil one left out or null.
      def one(op)
        at(op.at)
        if op.from
          x = "s#{op.from}"
        else
          x = "v"
          line "v = #{read(op)}"
        end
        if op.skip_nil
          flush
          line "unless #{x}.nil?"
        else
          pre = take
          line "if #{x}.nil? then out << #{(pre + 'null').inspect}"
          line "else"
          line "  out << #{pre.inspect}" unless pre.empty?
        end
        indent do
          comma(op.flag)
          line write_nested(op, x)
        end
        line "end"
      end

      # Nested records, from the list in local +v+; nil items left out or null.
      def many(op)
        at(op.at)
        line "v = #{read(op)}"
        each_item(op) do
          if op.skip_nil
            line "unless x.nil?"
            indent do
              comma(op.flag)
              line write_nested(op, "x", "s")
            end
          else
            comma(op.flag)
            line "if x.nil? then out << \"null\""
            line "else #{write_nested(op, 'x', 's')}"
          end
          line "end"
        end
      end

      # JSON:API's resource identifiers of a relationship's records, each
      # queued for +included+ (JsonApi::Compiled#relate).
      def relate(op)
        at(op.at)
        line "v = #{read(op)}"
        call = "relate(%s, out, st, #{op.text.inspect})"
        unless op.list
          pre = take
          line "if v.nil? then out << #{(pre + 'null').inspect}"
          line "else #{"out << #{pre.inspect}; " unless pre.empty?}@n#{op.at}.#{format(call, 'v')}"
          line "end"
          return
        end

        each_item(op) do
          line "unless x.nil?"
          indent do
            comma(op.flag)
            line "s.#{format(call, 'x')}"
          end
          line "end"
        end
      end

      # A loop over the list in local +v+ (nothing for nil), the nested
      # serializer in +s+, each item in +x+ and its index in +i+.
      def each_item(op, &each)
        flush
        # A record read through its readers may hold any Enumerable (an
        # ActiveRecord relation, a Set): written as its +to_a+.
        to_a = op.readers ? ["v = v.to_a if Enumerable === v && !(Array === v)"] : []
        list_loop(*to_a, "raise not_a_list(v) unless Array === v", "s = @n#{op.at}", &each)
      end

      # A loop over the list in local +v+ (nothing for nil): the lines
      # +first+, then the block's for each item, in +x+, its index in +i+.
      def list_loop(*first)
        line "unless v.nil?"
        indent do
          first.each { |text| line text }
          line "i = 0"
          line "while i < v.size"
          indent do
            line "x = v[i]"
            yield
            line "i += 1"
          end
          line "end"
          line "i = nil"
        end
        line "end"
      end
    end
  end
end

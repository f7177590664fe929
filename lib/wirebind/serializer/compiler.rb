# frozen_string_literal: true

require "monitor"

module Wirebind
  class Serializer
    # A serializer compiled for one model class and one format: an object
    # whose singleton methods (+write+, and for JSON:API a few more) are
    # generated Ruby source, evaluated once. The source holds only names the
    # schema declared and +inspect+-quoted literals; the link blocks are
    # called from a frozen Array by index, and nested serializers through
    # instance variables set once, before the object is published.
    #
    # @api private
    class Compiled
      # Records nested deeper than this are refused: a cycle, most likely.
      MAX_DEPTH = JSON::Pure::Writer::DEFAULT_MAX_DEPTH
      # For the generated source.
      Writer = JSON::Pure::Writer

      # One declared field, resolved against the model.
      Resolved = Struct.new(:field, :attribute, :key, :at, :serializer, :model, keyword_init: true)

      # @return [Class] the serializer class
      attr_reader :serializer
      # @return [Class] the model class written
      attr_reader :model
      # @return [Symbol] the format
      attr_reader :format
      # @return [JSON::Plan] the model's JSON plan this was compiled from
      attr_reader :plan
      # @return [String, nil] the serializer's type
      attr_reader :type
      # @return [String] the generated source, for debugging
      attr_reader :source

      # @param serializer [Class]
      # @param model [Class]
      # @param format [Symbol]
      # @param generator [Class] the format's Generator class
      # @raise [SchemaError] a declaration does not fit the model or the format
      def initialize(serializer, model, format, generator)
        @serializer = serializer
        @model = model
        @format = format
        # nil for a class that is not a model: its records are read through
        # their readers, and their values written by their Ruby class.
        @plan = model.include?(Model) ? JSON::Plan.for(model) : nil
        @type = serializer.type
        @links = serializer.__wb_link_blocks
        @fields = resolve_fields.freeze
        # Path parts of errors, by the +at+ index the generated code sets.
        # Error paths by +at+: the fields, then each link block (a resource
        # link by its relation, a relationship link by the relationship's key).
        link_paths = Array.new(@links.size)
        serializer.__wb_links.each { |link| link_paths[link.index] = link.rel }
        @fields.each { |resolved| resolved.field.links&.each { |link| link_paths[link.index] = resolved.key } }
        @paths = (@fields.map(&:key) + link_paths).freeze
        @types = @fields.map { |resolved| resolved.attribute.type }.freeze
        @fields.each { |resolved| instance_variable_set(:"@n#{resolved.at}", nil) if resolved.serializer }
        @native_program = nil
        prepare
        @source = generator.new(self).source
        singleton_class.class_eval(@source, "(#{Model.display_name(serializer)} #{format} for #{Model.display_name(model)})", 1)
      end

      # @return [Array<Resolved>]
      attr_reader :fields

      # Sets the instance variables of the nested serializers' compiled forms.
      # Called once, before this object is published (the nested ones may be
      # this one, or on their way: see {Serializer.__wb_compiled}).
      # @return [void]
      def resolve_nested
        @fields.each do |resolved|
          next unless resolved.serializer

          nested = resolved.model ? resolved.serializer.__wb_compiled(@format, resolved.model) : Dispatch.new(resolved.serializer, @format)
          instance_variable_set(:"@n#{resolved.at}", nested)
        end
      end

      # @return [Object] the native engine's compiled program (a
      #   Serializer::Native::Program), made on first use
      def native_program
        @native_program ||= begin
          program = FORMATS.fetch(@format).program(self)
          Native.compile(self, @model, @links, program.ops, program.slot_count, MAX_DEPTH)
        end
      end

      # The native engine's way out for a model-typed attribute's value: the
      # generated source's, as a String.
      # @return [String]
      def native_model_value(at, value, depth)
        raise wrong_value(at, value) unless @types[at] === value

        JSON::Pure::Encoder.for(value.class).write(value, +"", depth + 1, MAX_DEPTH)
      end

      # @return [String]
      def inspect
        "#<#{self.class.name} #{Model.display_name(@serializer)} #{@format} for #{Model.display_name(@model)}>"
      end

      # @return [EncodeError] +error+ with its path under field +at+ and list index +index+
      def nested_error(error, at, index)
        error = EncodeError.new(error.message) unless error.is_a?(EncodeError)
        error = JSON::Pure::Writer.nested(error, index) if index
        error = JSON::Pure::Writer.nested(error, @paths[at]) if at
        error
      end

      # @return [EncodeError] for a record that is not an instance of the model
      def wrong_record(record)
        EncodeError.new("#{Model.display_name(@serializer)} writes #{Model.display_name(@model)} records, got #{Types.describe(record)}")
      end

      # @return [EncodeError] for a list attribute that is not an Array
      def not_a_list(value)
        EncodeError.new("expected an Array, got #{Types.describe(value)}")
      end

      # @return [EncodeError] for a model-typed value of the wrong class
      def wrong_value(at, value)
        EncodeError.new("expected #{Model.display_name(@types[at])} object, got #{Types.describe(value)}")
      end

      # @return [EncodeError]
      def too_deep
        EncodeError.new("records nest deeper than #{MAX_DEPTH}: is there a cycle?")
      end

      private

      # Format-specific checks and instance variables, before generation.
      def prepare; end

      def resolve_fields
        keys = {}
        @serializer.__wb_fields.each_with_index.map do |field, at|
          attribute = @plan ? @serializer.__send__(:check_against_model, field, @model) : reader(field.name)
          key = field.key || (@plan ? @plan.slots[attribute.index].key : field.name.name)
          if (other = keys[key])
            raise SchemaError, "#{Model.display_name(@serializer)}: #{other.inspect} and #{field.name.inspect} are both written as #{key.inspect}"
          end

          keys[key] = field.name
          nested_model = field.serializer && (field.serializer.model || (attribute.model? ? attribute.type : nil))
          Resolved.new(field: field, attribute: attribute, key: key, at: at, serializer: field.serializer, model: nested_model).freeze
        end
      end
    end

    # Writes the source of a {Compiled}'s methods. Output is built from
    # literal pieces kept pending until a value is written, so that
    # punctuation, keys and the next key travel in one +out << "..."+; where
    # a member may be left out at run time, a local flag says whether a comma
    # is due.
    #
    # Subclasses (one per format) write the methods in +write_methods+.
    #
    # @api private
    # What the serializer reads of a record that is not a model: a reader,
    # whose values are written by their Ruby class ({JSON::Pure::Writer.value}).
    # Answers what the generators ask of a {Model::Attribute}.
    #
    # @api private
    ReaderAttribute = Struct.new(:name) do
      def type
        :any
      end

      # No instance variable: read through the reader, always.
      def ivar
        nil
      end

      def list?
        false
      end

      def model?
        false
      end
    end

    class Compiled
      private

      # @return [ReaderAttribute] the reader +name+ of the (non-model) record class
      # @raise [EncodeError] the class has no public reader of that name
      def reader(name)
        return ReaderAttribute.new(name).freeze if @model.public_method_defined?(name)

        raise EncodeError, "#{Model.display_name(@serializer)} reads ##{name}, which #{Model.display_name(@model)} does not have"
      end
    end

    # The nested serializer of a relation whose records' class is not known
    # when compiling (a serializer without a declared model, under a record
    # that is not a model): each record is written by the compiled form for
    # its own class.
    #
    # @api private
    class Dispatch
      NO_HEAD = Object.new.freeze
      NOTHING = [nil, nil].freeze

      def initialize(serializer, format)
        @serializer = serializer
        @format = format
        # The (non-model) class last seen and its compiled form, in one frozen
        # pair: one write, so that threads sharing this object never see a
        # mismatched pair.
        @last = NOTHING
      end

      # Compiled#write (Siren's takes a head too).
      def write(record, out, context, depth, head = NO_HEAD)
        compiled = compiled_for(record)
        return compiled.write(record, out, context, depth) if NO_HEAD.equal?(head)

        compiled.write(record, out, context, depth, head)
      end

      # JsonApi::Compiled#relate
      def relate(record, out, state, key)
        compiled_for(record).relate(record, out, state, key)
      end

      # The native engine's program for +record+ (Compiled#native_program of
      # the compiled form for its class).
      def native_program_for(record)
        compiled_for(record).native_program
      end

      private

      def compiled_for(record)
        klass = record.class
        last = @last
        return last[1] if last[0].equal?(klass)

        compiled = @serializer.__wb_compiled(@format, klass)
        # A model's compiled form follows its schema: asked for each time.
        @last = [klass, compiled].freeze if compiled.plan.nil?
        compiled
      end
    end

    class Generator
      Container = Struct.new(:close, :state, :flag)

      # @param compiled [Compiled]
      def initialize(compiled)
        @compiled = compiled
        @lines = []
        @pending = +""
        @pad = 0
        @containers = []
        @flags = 0
      end

      # @return [String]
      def source
        line "# frozen_string_literal: true"
        write_methods
        # A flag no later member reads is not kept (Ruby would warn of it).
        (1..@flags).each do |n|
          next if @lines.any? { |code| code.match?(/\bif c#{n}\b/) }

          @lines.reject! { |code| code.match?(/\A *c#{n} = (?:true|false)\z/) }
        end
        @lines.join("\n")
      end

      private

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

      # Opens a method that writes one record; +params+ after +r, out+.
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

      # ---- literal text ------------------------------------------------------

      def lit(text)
        @pending << text
      end

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

      # @return [String] +"key":+, escaped
      def key_text(key)
        JSON::Pure::Writer.key(+"", key)
      end

      # ---- objects and arrays ------------------------------------------------

      # Opens an object (or, with +close+ "]", an array) whose opening text is
      # +opening+, or was already written when +opening+ is nil.
      def open(opening = "{", close = "}")
        lit(opening) if opening
        @containers << Container.new(close, :empty, nil)
      end

      def close
        lit(@containers.pop.close)
      end

      # Starts a member that is always written (+key+ nil in an array).
      def member(key = nil)
        container = @containers.last
        case container.state
        when :nonempty then lit(",")
        when :unknown
          flush
          line "out << ',' if #{container.flag}"
        end
        lit(key_text(key)) if key
        container.state = :nonempty
      end

      # A member, or several, written only when +condition+ holds at run time.
      def conditional(condition)
        container = @containers.last
        before = container.state
        flush
        if before == :empty
          container.flag = "c#{@flags += 1}"
          line "#{container.flag} = false"
        end
        line "if #{condition}"
        indent do
          yield
          flush
          line "#{container.flag} = true" unless before == :nonempty
        end
        line "end"
        container.state = before == :nonempty ? :nonempty : :unknown
      end

      # ---- values ------------------------------------------------------------

      # Writes the value of attribute +resolved+ from local +v+ (set here),
      # after the pending literal.
      def attribute_value(resolved)
        attribute = resolved.attribute
        line "at = #{resolved.at}"
        line "v = #{read(attribute)}"
        if attribute.list?
          lit("[")
          flush
          line "unless v.nil?"
          indent do
            line "raise not_a_list(v) unless Array === v"
            line "i = 0"
            line "while i < v.size"
            indent do
              line "out << ',' unless i.zero?"
              line "x = v[i]"
              scalar(resolved, "x")
              line "i += 1"
            end
            line "end"
            line "i = nil"
          end
          line "end"
          lit("]")
        else
          scalar(resolved, "v")
        end
      end

      # Writes local +x+ (nil as null) after the pending literal, which every
      # branch repeats: +out << ',"key":"' << x << '"'+ in the common case.
      def scalar(resolved, x)
        pre = take
        head = pre.empty? ? "" : "out << #{pre.inspect}; "
        case resolved.attribute.model? ? :model : Values.json_type(resolved.attribute)
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
        when :float, :decimal, :date, :base64
          line "if #{x}.nil? then out << #{(pre + 'null').inspect}"
          line "else #{head}Writer.#{resolved.attribute.type}(out, #{x})"
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
          line "  raise wrong_value(#{resolved.at}, #{x}) unless @types[#{resolved.at}] === #{x}"
          line "  #{head}JSON::Pure::Encoder.for(#{x}.class).write(#{x}, out, d + 1, MAX_DEPTH)"
          line "end"
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

      # Calls the link blocks into locals +h0+, +h1+...
      def call_links
        links.each do |link|
          line "at = #{@compiled.fields.size + link.index}"
          line "h#{link.index} = @links[#{link.index}].call(r, ctx)"
        end
        line "at = nil" unless links.empty?
      end

      # Writes the link hrefs in +h0+... as members of the open object, each
      # only when not nil, through +each+ (which writes one, given its link).
      def link_members(&each)
        if links.size == 1
          member(links.first.rel)
          yield links.first
        else
          links.each do |link|
            conditional("!h#{link.index}.nil?") do
              member(link.rel)
              each.call(link)
            end
          end
        end
      end

      # @return [String] a condition: some link has an href
      def any_link
        links.map { |link| "!h#{link.index}.nil?" }.join(" || ")
      end

      # Writes the records in local +v+, a list for field +resolved+, each by
      # the nested serializer's +call+ (a format of "%s" for the record);
      # nil items are left out unless +nils+ is given (written as it says).
      def each_record(resolved, call, nils: nil)
        lit("[")
        flush
        line "unless v.nil?"
        indent do
          check_list(resolved)
          line "s = @n#{resolved.at}"
          line "i = 0"
          line "w = false" unless nils
          line "while i < v.size"
          indent do
            line "x = v[i]"
            if nils
              line "out << ',' unless i.zero?"
              line "if x.nil? then out << #{nils.inspect}"
              line "else #{format(call, 'x')}"
              line "end"
            else
              line "unless x.nil?"
              line "  if w then out << ',' else w = true end"
              line "  #{format(call, 'x')}"
              line "end"
            end
            line "i += 1"
          end
          line "end"
          line "i = nil"
        end
        line "end"
        lit("]")
      end

      # The expression reading +attribute+ of the record in local +r+: a
      # model's instance variable (a model's values are its ivars, see
      # {Wirebind::Model}), or the reader of an object that is not a model.
      def read(attribute)
        attribute.ivar ? "r.instance_variable_get(#{attribute.ivar.inspect})" : "r.#{attribute.name}"
      end

      # Checks that local +v+, the value of a +many+ field, is an Array. A
      # record read through its readers may hold any Enumerable (an
      # ActiveRecord relation, a Set): written as its +to_a+.
      def check_list(resolved)
        line "v = v.to_a if Enumerable === v && !(Array === v)" unless resolved.attribute.is_a?(Model::Attribute)
        line "raise not_a_list(v) unless Array === v"
      end

      def links
        @compiled.serializer.__wb_links
      end

      def fields(kind = nil)
        kind ? @compiled.fields.select { |resolved| kind.include?(resolved.field.kind) } : @compiled.fields
      end
    end
  end
end

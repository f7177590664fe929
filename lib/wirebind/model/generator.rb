# frozen_string_literal: true

module Wirebind
  module Model
    # The module that holds a model class's generated methods. Living in a
    # module rather than in the class itself, they can be overridden in the
    # class body and reached again with +super+.
    #
    # @api private
    class GeneratedMethods < Module
      # @param model [Class] the class these methods are for
      def initialize(model)
        super()
        @model = model
      end

      # @return [String]
      def inspect
        "#<#{self.class.name} for #{Model.display_name(@model)}>"
      end
      alias to_s inspect

      # Defines an attribute's reader and writer. attr_accessor methods run
      # inside the VM, without a Ruby frame: the fastest readers and writers
      # there are. JRuby's attr_accessor refuses keywords (+:end+, +:self+...)
      # that MRI takes; there the two methods are written as source instead
      # (+name+ has passed {Attribute.check_name}). A reserved name's reader has
      # another name ({Attribute.reader_name}): written as source too.
      # @param reader [Symbol] the reader's name
      # @param name [Symbol] the attribute's (its instance variable's) name
      def accessor(reader, name)
        return source_accessor(reader, name) unless reader == name

        attr_accessor(name)
      rescue NameError
        source_accessor(reader, name)
      end

      private

      def source_accessor(reader, name)
        module_eval("def #{reader}; @#{name}; end\ndef #{reader}=(value); @#{name} = value; end\n", __FILE__, __LINE__)
      end
    end

    # Stand-ins for a model's generated methods while they are out of date
    # ({Generator.defer}): the first call writes the class's methods
    # (ClassMethods#__wb_methods) and runs the one it stood for, bound to the
    # receiver directly, so a method of the class body that called +super+
    # into a placeholder does not run twice. Copied, not closures: no source
    # is compiled and nothing is captured.
    #
    # A placeholder in a class's module is only ever reached by receivers of
    # that class: each model class has its own module with all of these
    # methods, ahead of its parent's, so +self.class+ is the class to write.
    #
    # @api private
    module Placeholders
      def initialize(**values)
        self.class.__wb_methods.instance_method(:initialize).bind_call(self, **values)
      end

      def __wb_load(values)
        self.class.__wb_methods.instance_method(:__wb_load).bind_call(self, values)
      end

      def ==(other)
        self.class.__wb_methods.instance_method(:==).bind_call(self, other)
      end

      def eql?(other)
        self.class.__wb_methods.instance_method(:eql?).bind_call(self, other)
      end

      def hash
        self.class.__wb_methods.instance_method(:hash).bind_call(self)
      end

      def to_h
        self.class.__wb_methods.instance_method(:to_h).bind_call(self)
      end

      def inspect
        self.class.__wb_methods.instance_method(:inspect).bind_call(self)
      end
    end

    # Writes the Ruby source of a model's +initialize+, +__wb_load+, +==+,
    # +eql?+, +hash+, +to_h+ and +inspect+, and evaluates it into the model's
    # {GeneratedMethods}. Plain methods with one line per attribute run as
    # fast as handwritten ones: no closures, no reflection, no per-call loops.
    #
    # Only names {Attribute.check_name} has passed reach the source.
    #
    # @api private
    module Generator
      METHOD_NAMES = %i[initialize __wb_load == eql? hash to_h inspect].freeze
      PLACEHOLDERS = METHOD_NAMES.to_h { |name| [name, Placeholders.instance_method(name)] }.freeze
      # Keywords pass the name check, and serve as keyword parameters and hash
      # keys, but a parameter named +end+ can only be read through its binding.
      KEYWORDS = %i[
        __ENCODING__ __FILE__ __LINE__ alias and begin break case def do else elsif
        end ensure false for if in module next nil not or redo rescue retry return
        self super true undef unless until when while yield class then
      ].freeze

      module_function

      # Puts {Placeholders} in place of the generated methods in +methods_module+,
      # until {generate} writes them.
      #
      # @param methods_module [GeneratedMethods]
      # @return [true] (the methods are out of date)
      def defer(methods_module)
        PLACEHOLDERS.each do |method_name, placeholder|
          keep_quiet(methods_module, method_name)
          methods_module.define_method(method_name, placeholder)
        end
        true
      end

      # Replaces the generated methods in +methods_module+ with ones for +attributes+.
      #
      # @param methods_module [GeneratedMethods]
      # @param attributes [Array<Attribute>]
      # @return [void]
      def generate(methods_module, attributes)
        # Every line below is one generated method, so backtraces and
        # source_location point at the template that wrote it.
        line = __LINE__ + 2
        source = <<~RUBY
          def initialize(#{attributes.map { |a| "#{a.name}: nil" }.join(', ')}); #{assign_keywords(attributes)}; end
          def __wb_load(values); #{assign_values(attributes)}; self; end
          def ==(other); other.class == self.class#{compare(attributes, '%s == %s')}; end
          def eql?(other); other.class == self.class#{compare(attributes, '%s.eql?(%s)')}; end
          def hash; [self.class#{attributes.map { |a| ", #{a.ivar}" }.join}].hash; end
          def to_h; { #{attributes.map { |a| "#{a.name}: #{hash_value(a)}" }.join(', ')} }; end
          def inspect; text = +"#<" << self.class.inspect; #{inspect_parts(attributes)}; text << ">"; end
        RUBY
        METHOD_NAMES.each { |method_name| keep_quiet(methods_module, method_name) }
        methods_module.module_eval(source, __FILE__, line)
      end

      # Ruby warns, under -w, when a method nothing aliases is redefined (and
      # when initialize is removed): aliasing it to itself first keeps the
      # replacement silent.
      def keep_quiet(methods_module, method_name)
        return unless methods_module.method_defined?(method_name, false) ||
                      methods_module.private_method_defined?(method_name, false)

        methods_module.alias_method(method_name, method_name)
      end

      # Defines +__wb_load_v<version>+ and +__wb_fill_v<version>+ for
      # +attributes+ in +methods_module+ (see ClassMethods#__wb_builders).
      #
      # @param methods_module [GeneratedMethods]
      # @param attributes [Array<Attribute>]
      # @param version [Integer] new for each schema of the class
      # @return [Array(Symbol, Symbol)] the frozen names of both
      def generate_builders(methods_module, attributes, version)
        load = :"__wb_load_v#{version}"
        fill = :"__wb_fill_v#{version}"
        line = __LINE__ + 2
        checks = enum_checks(methods_module, attributes, version)
        source = <<~RUBY
          def #{load}(values); #{assign_values(attributes)}#{checks}; self; end
          def #{fill}(#{attributes.map { |a| "v#{a.index}" }.join(', ')}); #{assign_arguments(attributes)}#{checks}; self; end
        RUBY
        methods_module.module_eval(source, __FILE__, line)
        [load, fill].freeze
      end

      # Decoded values of +enum:+ attributes (but +open_enum:+ ones) are checked,
      # and those of +:time+ attributes with a +format:+ (and lists of lists)
      # converted from their wire type, as the record is built (both backends
      # build through these builders). The attributes are kept in a constant of
      # the methods module, one per schema version.
      def enum_checks(methods_module, attributes, version)
        checked = attributes.select(&:checked_on_build?)
        return "" if checked.empty?

        constant = :"WB_ENUM_ATTRIBUTES_V#{version}"
        methods_module.const_set(constant, attributes) unless methods_module.const_defined?(constant, false)
        checked.map do |attribute|
          ivar = attribute.ivar
          if attribute.converted?
            "; #{ivar} = #{constant}[#{attribute.index}].decode_wire(#{ivar})"
          else
            "; #{constant}[#{attribute.index}].check_decoded(#{ivar})"
          end
        end.join
      end

      # +@id = id; @labels = labels || []+: a list is never nil after +new+.
      def assign_keywords(attributes)
        attributes.map do |attribute|
          # ::Kernel.binding: an attribute may be named binding.
          local = KEYWORDS.include?(attribute.name) ? "::Kernel.binding.local_variable_get(:#{attribute.name})" : attribute.name
          "#{attribute.ivar} = #{local}#{' || []' if attribute.list?}"
        end.join("; ")
      end

      # +@id = values[0]; @labels = values[6] || []+: every ivar, in declaration
      # order, so every decoded object of a class gets the same shape.
      def assign_values(attributes)
        attributes.map do |attribute|
          "#{attribute.ivar} = values[#{attribute.index}]#{' || []' if attribute.list?}"
        end.join("; ")
      end

      # +@id = v0; @labels = v6 || []+: as {assign_values}, from arguments. The
      # native decoders call it with the values in place on their own stack: one
      # method call sets every ivar through the VM's inline caches, where
      # rb_ivar_set from C looks each name up again (a tenth of a native decode).
      def assign_arguments(attributes)
        attributes.map do |attribute|
          "#{attribute.ivar} = v#{attribute.index}#{' || []' if attribute.list?}"
        end.join("; ")
      end

      # Compares stored values, not readers, so an overridden reader cannot make
      # equality lopsided.
      def compare(attributes, template)
        attributes.map do |attribute|
          " && #{format(template, attribute.ivar, "other.instance_variable_get(:#{attribute.ivar})")}"
        end.join
      end

      def hash_value(attribute)
        if attribute.list?
          return "#{attribute.ivar}&.map { |row| row&.map { |item| item&.to_h } }" if attribute.model? && attribute.nested_list?
          return "#{attribute.ivar}&.map { |item| ::Wirebind::Model === item ? item.to_h : item }" if attribute.expandable?

          attribute.model? ? "#{attribute.ivar}&.map { |item| item&.to_h }" : "#{attribute.ivar}&.dup"
        else
          return "(::Wirebind::Model === #{attribute.ivar} ? #{attribute.ivar}.to_h : #{attribute.ivar})" if attribute.expandable?

          attribute.model? ? "#{attribute.ivar}&.to_h" : attribute.ivar.to_s
        end
      end

      # Leaves out nils and empty lists: what is there is what matters.
      def inspect_parts(attributes)
        attributes.map do |attribute|
          ivar = attribute.ivar
          blank = attribute.list? ? "#{ivar}.nil? || (::Array === #{ivar} && #{ivar}.empty?)" : "#{ivar}.nil?"
          %(text << " #{attribute.name}=" << #{ivar}.inspect unless #{blank})
        end.join("; ")
      end

      private_class_method :keep_quiet, :enum_checks, :assign_keywords, :assign_values, :compare, :hash_value, :inspect_parts
    end
  end
end

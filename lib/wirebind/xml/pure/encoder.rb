# frozen_string_literal: true

require_relative "../../source_writer"

module Wirebind
  module XML
    module Pure
      class << self
        # @see Wirebind::XML.encode
        def encode(value, io, root, item, nil_style, declaration)
          out = String.new(capacity: 16 * 1024, encoding: Encoding::UTF_8)
          out << Encoder::DECLARATION if declaration
          xsi_all = nil_style == :xsi
          written = 0
          if value.is_a?(Array)
            # The wrapper declares what the first item's class can use; items of
            # other classes declare what else they need themselves.
            namespaces = value.empty? ? nil : Plan.namespaces(value.first.class)
            out << "<" << root << (namespaces ? namespaces.declarations : "") << ">"
            scope = Encoder::Scope.new(namespaces ? namespaces.needs : EMPTY)
            value.each do |record|
              subtype = XML.top_level_subtype?(record.class) ? Encoder.subtype(record.class, scope) : ""
              Encoder.for(record.class).write(record, out, item, subtype, xsi_all, nil, scope, false)
              written += Chunks.flush(io, out) if io && out.bytesize >= Encoder::FLUSH_SIZE
            end
            out << "</" << root << ">"
          else
            namespaces = Plan.namespaces(value.class)
            scope = Encoder::Scope.new(namespaces.needs)
            declarations = namespaces.declarations
            declarations = Encoder.subtype(value.class, scope) + declarations if XML.top_level_subtype?(value.class)
            Encoder.for(value.class).write(value, out, root, declarations, xsi_all, nil, scope, false)
          end
          return out unless io

          written + Chunks.flush(io, out)
        end

        # A model in an +:any+ element (OpenContent's +typed_content+): the
        # element +qname+ as its document element would be written, its
        # xsi:type naming its class and its namespaces declared on it.
        # @return [String]
        def typed_element(value, qname)
          klass = value.class
          namespaces = Plan.namespaces(klass)
          scope = Encoder::Scope.new(namespaces.needs)
          out = String.new(encoding: Encoding::UTF_8)
          Encoder.for(klass).write(value, out, qname, Encoder.subtype(klass, scope) + namespaces.declarations, false, nil, scope, false)
          out
        end

        # A record as the child element +name+ of an element whose default
        # namespace is +default_ns+ (a document/literal part under its operation
        # element): the element is in that namespace, the record's own children
        # in its class's (with a prefix the element declares when the two
        # differ); a subclass that declared xml_type says so with xsi:type, as
        # at the top of a document.
        # @return [String]
        def nested_element(value, name, default_ns)
          klass = value.class
          scope = Encoder::Scope.new(EMPTY)
          tag_decl = XML.top_level_subtype?(klass) ? Encoder.subtype(klass, scope) : ""
          out = String.new(encoding: Encoding::UTF_8)
          Encoder.for(klass).write(value, out, name, tag_decl, false, default_ns, scope, true)
          out
        end
      end

      EMPTY = [].freeze
      private_constant :EMPTY

      # Writes models as XML through a method generated, once per class, from the
      # class's plan: straight-line code that reads each attribute and appends its
      # element, with the names already in string literals. The source is built
      # only from names the schema declared (checked NCNames) and inspect-quoted
      # namespace URIs, never from payload data.
      #
      # @api private
      class Encoder
        DECLARATION = %(<?xml version="1.0" encoding="UTF-8"?>)
        FLUSH_SIZE = Chunks::SIZE

        class << self
          # @return [Encoder] the (cached) encoder of +klass+
          def for(klass)
            klass.wirebind_plan(:pure_xml_encoder) { Shareable.make(new(Plan.for(klass))) }
          end

          # @return [String] XML.subtype_attributes of +klass+, without declaring
          #   the type's namespace when +scope+ has it bound to the same prefix
          def subtype(klass, scope)
            declared, bare, prefix, uri = XML.subtype_parts(klass)
            prefix && scope.uris[prefix] == uri ? bare : declared
          end
        end

        # @return [Plan]
        attr_reader :plan

        def initialize(plan)
          @plan = plan
          @types = plan.klass.attributes.map(&:type).freeze
          singleton_class.class_eval(Generator.new(plan, Plan.namespaces(plan.klass).default_at_top).source, __FILE__, __LINE__)
          freeze
        end

        # The namespace bindings in scope while one document is written: the
        # document element's (see Plan.namespaces), and those a record declared
        # on its own element, undone at its end tag. One per encode call.
        #
        # The hook for values that carry names of their own (open content,
        # QNames): look up what is bound ({#uris}, {#pre_for}) and declare what is
        # missing on the element being written ({#bind}, then {#release} after its
        # end tag); the native encoder has the same operations (scope_uri,
        # scope_pre_for, scope_bind, scope_release in xml_encoder.c).
        #
        # @api private
        class Scope
          # @return [Hash{String => String}] the namespace bound to each prefix in scope
          attr_reader :uris

          # @param needs [Array<Plan::Need>] the bindings the document element declares
          def initialize(needs)
            @uris = {}
            @prefixes = {} # uri => [prefix, "prefix:"]
            @undo = []
            needs.each do |need|
              @uris[need.prefix] = need.uri
              @prefixes[need.uri] ||= [need.prefix, "#{need.prefix}:"]
            end
          end

          # @return [String, nil] "p:" for a prefix bound to +uri+ in scope
          def pre_for(uri)
            prefix, pre = @prefixes[uri]
            pre if prefix && @uris[prefix] == uri
          end

          # Declares +prefix+ for +uri+ on the element being written (named +tag+,
          # +tag_decl+ already written on it, which may declare it already: an
          # xsi:type's namespace), for that element and what it contains.
          # @return [Integer] 1, the bindings to release at its end tag
          # @raise [Types::InvalidValue] the element's own name uses +prefix+ for another namespace
          def bind(out, tag, tag_decl, prefix, uri, declaration)
            current = @uris[prefix]
            if current && tag.start_with?(prefix) && tag.getbyte(prefix.bytesize) == 58 # ":"
              raise Types::InvalidValue, "the prefix #{prefix.inspect} of <#{tag}> stands for #{current.inspect}, and its content " \
                                         "needs it for #{uri.inspect}: declare another prefix for one of them"
            end

            out << declaration unless tag_decl.include?(declaration)
            @undo << prefix << current << uri << @prefixes[uri]
            @uris[prefix] = uri
            @prefixes[uri] = [prefix, "#{prefix}:"]
            1
          end

          # Undoes the last +count+ bindings.
          # @return [void]
          def release(count)
            count.times do
              previous_prefix = @undo.pop
              uri = @undo.pop
              previous_uri = @undo.pop
              prefix = @undo.pop
              previous_uri ? @uris[prefix] = previous_uri : @uris.delete(prefix)
              previous_prefix ? @prefixes[uri] = previous_prefix : @prefixes.delete(uri)
            end
          end
        end

        # Generates the source of
        # +write(record, out, tag, tag_decl, xsi_all, default_ns, ns, nested)+:
        # +tag+ and +tag_decl+ are the element's name (nil: the class's own root
        # name, in its namespace) and what the caller writes in its start tag
        # (+xmlns=""+, +xsi:type+), +default_ns+ the default namespace in scope,
        # +ns+ the {Scope}, +nested+ false for the document's top element.
        #
        # Namespaces: a model's child elements are in its namespace, written with
        # its prefix; an element declared in another namespace (`{uri}local`) with
        # the prefix the model declares for it (Model::ClassMethods#xml_prefix) or
        # the automatic one. The document element declares every binding the tree
        # of classes may use (Plan.namespaces); a record checks the ones its own
        # names need (Plan#needs) against the scope and declares only what is
        # missing (records of a subclass, a prefix taken by another namespace). A
        # model with a namespace but no prefix makes it the default namespace at
        # the top, unless the tree writes names in no namespace (then, and where
        # nested, it takes a prefix bound to it in scope, or its own). A model
        # without a namespace under a default namespace writes xmlns="" on its
        # children. So a document always decodes back to the expanded names it
        # was encoded with, whichever way it nests.
        # @api private
        class Generator
          include SourceWriter

          def initialize(plan, default_at_top)
            @plan = plan
            @default_at_top = default_at_top
            @lines = []
            @temp = 0
          end

          def source
            emit "def write(record, out, tag, tag_decl, xsi_all, default_ns, ns, nested)"
            emit "  raise Types::InvalidValue, XML.abstract_message(record.class)" if @plan.klass.xml_abstract?
            emit "  field = nil"
            scope
            @plan.attribute_writes.each { |slot| attribute(slot) }
            emit "  out << '>'"
            text_content(@plan.text) if @plan.text
            @plan.writes.each { |entry| entry.kind == Plan::GROUP ? group(entry, 1, true) : element(entry, 1, true) }
            emit "  out << '</' << tag << '>'"
            emit "  ns.release(bound) if bound > 0" if binds?
            drop_unused_locals
            emit "rescue Types::InvalidValue => e"
            emit "  raise EncodeError.new(e.message, path: field ? \"\#{tag}/\#{field}\" : tag)"
            emit "rescue EncodeError => e"
            emit "  raise EncodeError.new(e.message.sub(/ \\(at [^)]*\\)\\z/, ''), path: \"\#{tag}/\#{e.path}\")"
            emit "end"
            @lines.join("\n")
          end

          private

          # Whether a record may declare bindings of its own.
          def binds?
            !@plan.needs.empty? || (@plan.namespace && !@plan.prefix)
          end

          # The scope's locals are computed for every model; a model that names no
          # child element or nests no model does not read some of them, and Ruby
          # warns about a local assigned and never read.
          def drop_unused_locals
            body = @lines[(@lines_before_scope + 1)..].join("\n")
            %w[pre reset child_default].each do |local|
              next if body.match?(/\b#{local}\b(?! =)/)

              @lines.reject! { |line| line.match?(/\A\s*#{local} = /) }
            end
          end

          # Works out the prefix of the model's own child elements (+pre+),
          # whether unprefixed children must reset the default namespace
          # (+reset+), and the default namespace nested models see; writes the
          # start tag's name and the declarations the record's names need.
          def scope
            uri = @plan.namespace
            prefix = @plan.prefix
            root = @plan.root_name
            @lines_before_scope = @lines.size
            if uri.nil?
              emit "  pre = ''"
              emit "  reset = default_ns ? ' xmlns=\"\"' : ''"
              emit "  child_default = nil"
              # A "*" item is named after its class, in no namespace.
              emit "  tag_decl = reset + tag_decl if tag.nil? && default_ns"
              emit "  out << '<' << (tag ||= #{q(root)}.freeze) << tag_decl"
            elsif prefix
              emit "  pre = #{q("#{prefix}:")}"
              emit "  reset = ''"
              emit "  child_default = default_ns"
              emit "  out << '<' << (tag ||= #{q("#{prefix}:#{root}")}.freeze) << tag_decl"
            else
              emit "  own = false"
              emit "  reset = ''"
              emit "  if default_ns == #{q(uri)}"
              emit "    pre = ''"
              emit "    child_default = default_ns"
              emit "    out << '<' << (tag ||= #{q(root)}.freeze) << tag_decl"
              if @default_at_top
                emit "  elsif !nested"
                emit "    pre = ''"
                emit "    child_default = #{q(uri)}"
                emit "    out << '<' << (tag ||= #{q(root)}.freeze) << #{q(%( xmlns="#{Escape.attribute(uri)}"))} << tag_decl"
              end
              emit "  else"
              emit "    child_default = default_ns"
              emit "    own = !(pre = ns.pre_for(#{q(uri)}))"
              emit "    pre = #{q("#{@plan.default_prefix}:")} if own"
              # At the top, or a "*" item: the name is in the model's namespace.
              emit "    tag = pre + (tag || #{q(root)}) if tag.nil? || !nested"
              emit "    out << '<' << tag << tag_decl"
              emit "  end"
            end
            return unless binds?

            emit "  bound = 0"
            if uri && !prefix
              declaration = Escape.declaration(@plan.default_prefix, uri)
              emit "  bound += ns.bind(out, tag, tag_decl, #{q(@plan.default_prefix)}, #{q(uri)}, #{q(declaration)}) if own"
            end
            return if @plan.needs.empty?

            emit "  uris = ns.uris"
            @plan.needs.each do |need|
              emit "  bound += ns.bind(out, tag, tag_decl, #{q(need.prefix)}, #{q(need.uri)}, #{q(need.declaration)}) " \
                   "unless uris[#{q(need.prefix)}] == #{q(need.uri)}"
            end
          end

          # Ruby expressions for an entry's start-tag opening ("<name" plus any
          # reset of the default namespace) and its name for the end tag.
          def name_parts(entry, top)
            name = entry.name || "item"
            if no_namespace?(entry)
              ["'<#{name}' << (child_default ? ' xmlns=\"\"' : '')", q(name)]
            elsif foreign?(entry)
              [q("<#{entry.prefix}:#{name}"), q("#{entry.prefix}:#{name}")]
            elsif top
              ["'<' << pre << #{q(name)} << reset", "(pre + #{q(name)})"]
            else
              ["'<' << pre << #{q(name)}", "(pre + #{q(name)})"]
            end
          end

          # A "{}local" entry in a model with a namespace: written unprefixed, with
          # the default namespace reset if one is in scope (in a model without a
          # namespace it is any element).
          def no_namespace?(entry)
            entry.uri == "" && !@plan.namespace.nil?
          end

          # An entry in a namespace other than the model's: written with its prefix,
          # which the record's element has in scope (Plan#needs).
          def foreign?(entry)
            entry.uri && !entry.uri.empty? && entry.uri != @plan.namespace
          end

          # Encoding reads the values decoding set: the instance variables, not
          # readers a model may have overridden (the native encoder does the same).
          def reader(slot)
            "record.instance_variable_get(#{slot.attribute.ivar.inspect})"
          end

          def attribute(slot)
            name = slot.uri.nil? ? slot.name : "#{slot.prefix}:#{slot.name}"
            emit "  field = #{q("@#{slot.name}")}"
            emit "  unless (v = #{reader(slot)}).nil?"
            emit "    out << #{q(" #{name}=\"")} << #{attribute_value(slot)}"
            emit "  end"
          end

          # What follows name=" for a value v: the text and the closing quote (and
          # for a :qname the declaration of its prefix).
          def attribute_value(slot)
            return "OpenContent.qname_attribute(v, !child_default.nil?, #{slot.index})" if slot.type == :qname

            "Escape.attribute(Types.to_xml_text(#{slot.type.inspect}, v)) << '\"'"
          end

          # XML attributes read from a wrapper (or a scalar's element) by path
          # ("city-state/@zipcode"); +field+: the path to say in errors after them.
          def group_attributes(group, pad, field = nil)
            group.attribute_writes.each do |slot|
              name = slot.uri.nil? ? slot.name : "#{slot.prefix}:#{slot.name}"
              emit "#{pad}field = #{q(slot.attribute.xml)}"
              emit "#{pad}unless (v = #{reader(slot)}).nil?"
              emit "#{pad}  out << #{q(" #{name}=\"")} << #{attribute_value(slot)}"
              emit "#{pad}end"
            end
            emit "#{pad}field = #{q(field)}" if field
          end

          # Whether any XML attribute a scalar's element carries has a value: a nil
          # value is then written as xsi:nil beside them, not left out with them.
          def any_attribute(slot)
            slot.attribute_writes.map { |attribute| "!#{reader(attribute)}.nil?" }.join(" || ")
          end

          def text_content(slot)
            emit "  field = '.'"
            emit "  unless (v = #{reader(slot)}).nil?"
            if slot.kind == Plan::OPEN
              emit "    out << OpenContent.xml_content(v)" # :xml as ".": the whole content
            else
              emit "    out << Escape.text(Types.to_xml_text(#{slot.type.inspect}, v))"
            end
            emit "  end"
          end

          def group(group, depth, top)
            pad = "  " * depth
            open, close = name_parts(group, top)
            emit "#{pad}out << #{open}"
            group_attributes(group, pad)
            emit "#{pad}out << '>'"
            # Inside an unprefixed wrapper that reset the default namespace, nothing
            # needs resetting again.
            group.writes.each { |entry| entry.kind == Plan::GROUP ? group(entry, depth + 1, false) : element(entry, depth + 1, false) }
            emit "#{pad}out << '</' << #{close} << '>'"
          end

          def element(slot, depth, top)
            pad = "  " * depth
            emit "#{pad}field = #{q(slot.attribute.xml)}"
            value = "v#{@temp += 1}"
            emit "#{pad}#{value} = #{reader(slot)}"
            if slot.list
              emit "#{pad}unless #{value}.nil?"
              emit "#{pad}  raise Types::InvalidValue, \"expected an Array, got \#{Types.describe(#{value})}\" unless #{value}.is_a?(Array)"
              item = "i#{@temp}"
              emit "#{pad}  #{value}.each do |#{item}|"
              one_value(slot, item, depth + 2, top, true)
              emit "#{pad}  end"
              emit "#{pad}end"
            else
              one_value(slot, value, depth, top)
            end
          end

          # A nil item of a list is always written (as xsi:nil): leaving it out
          # would shift the items after it and lose data.
          def one_value(slot, value, depth, top, in_list = false)
            pad = "  " * depth
            open, close = name_parts(slot, top)
            emit "#{pad}if #{value}.nil?"
            nil_markup = "#{open} << #{q(%( xsi:nil="true"#{Escape::XSI_DECLARATION}/>))}"
            if slot.attribute_writes
              emit "#{pad}  if #{slot.nil_xsi ? 'true' : "xsi_all || #{any_attribute(slot)}"}"
              emit "#{pad}    out << #{open}"
              group_attributes(slot, "#{pad}    ", slot.attribute.xml)
              emit "#{pad}    out << #{q(%( xsi:nil="true"#{Escape::XSI_DECLARATION}/>))}"
              emit "#{pad}  end"
            else
              emit(slot.nil_xsi || in_list ? "#{pad}  out << #{nil_markup}" : "#{pad}  out << #{nil_markup} if xsi_all")
            end
            emit "#{pad}else"
            if slot.attribute_writes
              emit "#{pad}  out << #{open}"
              group_attributes(slot, "#{pad}  ", slot.attribute.xml)
              emit "#{pad}  out << '>' << Escape.text(Types.to_xml_text(#{slot.type.inspect}, #{value})) << '</' << #{close} << '>'"
            elsif slot.kind == Plan::MODEL
              model_value(slot, value, depth + 1, top)
            elsif slot.kind == Plan::OPEN && slot.type == :any && slot.name.nil?
              # A wildcard item is written under the name it holds.
              emit "#{pad}  out << OpenContent.wildcard_element(#{value}, pre)"
            elsif slot.kind == Plan::OPEN || slot.type == :qname
              # Whether a default namespace is in scope in the element (a "{}local" one resets it).
              default_in_scope = no_namespace?(slot) ? "false" : "!child_default.nil?"
              emit "#{pad}  out << #{open} << OpenContent.element_content(#{slot.type.inspect}, #{value}, #{close}, #{default_in_scope}) " \
                   "<< '</' << #{close} << '>'"
            else
              emit "#{pad}  out << #{open} << '>' << Escape.text(Types.to_xml_text(#{slot.type.inspect}, #{value})) << '</' << #{close} << '>'"
            end
            emit "#{pad}end"
          end

          def model_value(slot, value, depth, top)
            pad = "  " * depth
            emit "#{pad}raise Types::InvalidValue, \"expected #{slot.type}, got \#{Types.describe(#{value})}\" unless #{value}.is_a?(@types[#{slot.index}])"
            emit "#{pad}encoder = Encoder.for(#{value}.class)"
            if slot.name.nil?
              # A "*" item is named after its own class, in its own namespace.
              emit "#{pad}encoder.write(#{value}, out, nil, #{subtype(slot, value, "''")}, xsi_all, child_default, ns, true)"
            elsif no_namespace?(slot)
              emit "#{pad}encoder.write(#{value}, out, #{q(slot.name)}, #{subtype(slot, value, "(child_default ? ' xmlns=\"\"' : '')")}, " \
                   "xsi_all, nil, ns, true)"
            elsif foreign?(slot)
              emit "#{pad}encoder.write(#{value}, out, #{q("#{slot.prefix}:#{slot.name}")}, #{subtype(slot, value, "''")}, " \
                   "xsi_all, child_default, ns, true)"
            else
              # The element is named in this model's namespace; a child of the
              # record itself carries the reset a model without a namespace needs.
              emit "#{pad}encoder.write(#{value}, out, pre + #{q(slot.name)}, #{subtype(slot, value, top ? 'reset' : "''")}, xsi_all, " \
                   "child_default, ns, true)"
            end
          end

          # The start tag's additions, plus an xsi:type when the value is of a
          # subclass that declared xml_type (XML.subtype_attributes).
          def subtype(slot, value, declaration)
            "(#{value}.instance_of?(@types[#{slot.index}]) ? #{declaration} : #{declaration} + Encoder.subtype(#{value}.class, ns))"
          end
        end
      end
    end
  end
end

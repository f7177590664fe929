# frozen_string_literal: true

require "monitor"
require_relative "json"
require_relative "serializer/declarations"
require_relative "serializer/values"
require_relative "serializer/compiler"
require_relative "serializer/program"
require_relative "serializer/layout"
require_relative "serializer/generator"
require_relative "serializer/plain"
require_relative "serializer/hal"
require_relative "serializer/json_api"
require_relative "serializer/siren"

module Wirebind
  # Writes records of {Wirebind::Model} classes as hypermedia JSON: plain JSON,
  # HAL, JSON:API 1.1 or Siren, from one declaration per resource.
  #
  # @example
  #   class VersionSerializer < Wirebind::Serializer
  #     type "version"
  #     attributes :name, :release_date
  #   end
  #
  #   class IssueSerializer < Wirebind::Serializer
  #     type "issue"
  #     id :key                                  # JSON:API's id; default :id
  #     attributes :key, :summary, :votes
  #     link(:self) { |issue| "/issues/#{issue.key}" }
  #     many :affects_versions, VersionSerializer
  #     one  :reporter, UserSerializer
  #   end
  #
  #   IssueSerializer.new(issue, format: :hal).to_json
  #   IssueSerializer.new(issues, format: :json_api, fields: { "issue" => ["summary"] }).to_json
  #   IssueSerializer.new(issues, format: :siren).to_json(io: $stdout)
  #
  # == Declarations
  #
  # See {Declarations}: +type+, +id+, +model+, +attributes+/+attribute+,
  # +link+, +one+, +many+. Names are those of the model's attributes (checked
  # against it); values are written with {Wirebind::JSON}'s mapping of types
  # under the attributes' JSON keys (+attribute :x, key: "y"+ renames one).
  # A subclass extends its parent's declarations.
  #
  # == Formats
  #
  # - +:plain+: attributes, with +one+/+many+ records nested; no links.
  # - +:hal+: attributes, +_links+ (`{"href": ...}`), +_embedded+.
  # - +:json_api+: +data+ (+type+, +id+, +attributes+, +relationships+,
  #   +links+), +included+ without duplicates; sparse fieldsets with +fields:+.
  # - +:siren+: +class+, +properties+, +entities+ (with +rel+), +links+
  #   (+rel+ arrays and +href+), +actions+.
  #
  # Details, and how a list is written in each, in {Plain}, {HAL}, {JsonApi}, {Siren}.
  #
  # == How it runs
  #
  # A serializer is compiled, once per model class and format, into one
  # description of a record ({Program}), which the native engine runs and
  # which is translated into plain methods generated as Ruby source for the
  # pure backend (no blocks on the way but the links', called once per
  # record); the methods append to one String. A value that
  # does not fit its declared type raises {EncodeError} with its path
  # (+"[3].affects_versions[0].sequence"+); a declaration that does not fit
  # the model or the format raises {SchemaError}, when it is made or when the
  # serializer is first compiled.
  class Serializer
    extend Declarations

    # @api private
    FORMATS = { plain: Plain, hal: HAL, json_api: JsonApi, siren: Siren }.freeze
    NO_CONTEXT = {}.freeze
    NO_COMPILED = {}.freeze
    # Compilation is rare and may recurse (serializers nest, even in a cycle):
    # a reentrant lock, and the ones under way, kept until all are complete.
    COMPILE_LOCK = Monitor.new
    private_constant :NO_CONTEXT, :NO_COMPILED, :COMPILE_LOCK

    @__wb_fields = [].freeze
    @__wb_links = [].freeze
    @__wb_link_blocks = [].freeze
    @__wb_type = nil
    @__wb_model = nil
    @__wb_id = nil
    @__wb_key_transform = nil
    @__wb_compiled = NO_COMPILED

    class << self
      # The compiled form of this serializer for +model+ and +format+,
      # compiled on first use.
      #
      # @api private
      # @param format [Symbol]
      # @param model [Class]
      # @return [Compiled]
      # @raise [SchemaError]
      def __wb_compiled(format, model)
        compiled = @__wb_compiled[format]&.[](model)
        return compiled if compiled && __wb_current?(compiled, model)

        COMPILE_LOCK.synchronize do
          compiling = (Thread.current[:__wb_serializers_compiling] ||= {})
          key = [self, format, model]
          return compiling[key] if compiling.key?(key)

          compiled = @__wb_compiled[format]&.[](model)
          return compiled if compiled && __wb_current?(compiled, model)

          outermost = compiling.empty?
          begin
            definition = FORMATS.fetch(format)
            klass = definition.const_defined?(:Compiled, false) ? definition::Compiled : Compiled
            compiled = klass.new(self, model, format)
            compiling[key] = compiled
            compiled.resolve_nested
            # Published when every serializer it reaches is complete.
            publish = compiling if outermost
          ensure
            Thread.current[:__wb_serializers_compiling] = nil if outermost
          end
          publish&.each_value { |done| done.serializer.__send__(:__wb_publish, done) }
          compiled
        end
      end

      private

      # Whether +compiled+ still fits +model+'s schema (a class that is not a
      # model has none: its compiled form lasts until the serializer changes).
      def __wb_current?(compiled, model)
        plan = compiled.plan
        plan.nil? || plan.equal?(JSON::Plan.for(model))
      end

      def __wb_publish(compiled)
        Model::SCHEMA_LOCK.synchronize do
          by_model = (@__wb_compiled[compiled.format] || NO_COMPILED).merge(compiled.model => compiled).freeze
          @__wb_compiled = @__wb_compiled.merge(compiled.format => by_model).freeze
        end
      end

      # Call with Model::SCHEMA_LOCK held.
      def __wb_reset_compiled
        @__wb_compiled = NO_COMPILED
      end
    end

    # @return [Wirebind::Model, Array, nil] what is written
    attr_reader :resource
    # @return [Symbol] +:plain+, +:hal+, +:json_api+ or +:siren+
    attr_reader :format
    # @return [Object] handed to every link block, as its second argument
    attr_reader :context
    # @return [Hash{String => Hash{String => true}}, nil] JSON:API fieldsets, normalized
    attr_reader :fields
    # @return [String] the relation of a list's records in HAL and Siren
    attr_reader :rel
    # @return [Symbol] +:native+ or +:pure+
    attr_reader :backend

    # @param resource [Wirebind::Model, Array<Wirebind::Model>, nil] a record,
    #   a list of them, or nil
    # @param format [Symbol] +:plain+ (the default), +:hal+, +:json_api+ or +:siren+
    # @param context [Object] passed to the link blocks (e.g. `{ base: "https://..." }`)
    # @param fields [Hash{String, Symbol => Array<String>, String}, nil] JSON:API
    #   sparse fieldsets: for a type, the attributes and relationships to keep,
    #   as an Array or as a comma-separated String (`{"issue" => "summary,votes"}`).
    #   Types and names not declared are ignored. Only with +format: :json_api+.
    # @param rel [String, Symbol] HAL and Siren: the relation under which a
    #   list's records are embedded (default "item", RFC 6573's)
    # @param backend [Symbol] +:native+ (the C engine, for every format and any
    #   records) or +:pure+ (the generated Ruby methods); the
    #   default is {Wirebind.backend}. Both write the same bytes.
    # @raise [ArgumentError] an unknown format or a bad option
    # @param include [String, Array<String, Symbol>, nil] JSON:API: the
    #   relationship paths whose records go into +included+, as the
    #   specification's +include+ parameter writes them (+"author,comments.author"+);
    #   nil (the default) includes every related record, +[]+ none
    # @param links [Hash{Symbol, String => String, Hash, nil}, nil] JSON:API: the
    #   document's top-level +links+ (+self+, +next+...); a nil href is left out
    # @param meta [Hash, nil] JSON:API: the document's top-level +meta+ (plain values)
    def initialize(resource, format: :plain, context: NO_CONTEXT, fields: nil, rel: "item", backend: Wirebind.backend,
                   include: nil, links: nil, meta: nil)
      Options.one_of(:format, format, FORMATS.keys)
      Options.backend(backend)
      raise ArgumentError, "fields: are JSON:API's sparse fieldsets; they need format: :json_api" if fields && format != :json_api

      { include: include, links: links, meta: meta }.each do |name, value|
        raise ArgumentError, "#{name}: is a JSON:API document member; it needs format: :json_api" if value && format != :json_api
      end
      raise ArgumentError, "meta: must be a Hash, not #{meta.class}" unless meta.nil? || meta.is_a?(Hash)
      unless (rel.is_a?(String) || rel.is_a?(Symbol)) && !rel.empty?
        raise ArgumentError, "rel: must be a non-empty String or Symbol, not #{rel.inspect}"
      end

      @resource = resource
      @format = format
      @context = context
      @fields = fields && normalize_fields(fields)
      @include_tree = include && normalize_include(include)
      @links = links && normalize_links(links)
      @meta = meta
      @rel = rel.to_s
      @backend = backend
    end

    # Writes the document.
    #
    # Also what the json library calls for a serializer inside a value it
    # generates (+JSON.generate(page: serializer)+): the state it passes is
    # accepted and ignored.
    #
    # @param _state [Object] ignored
    # @param io [IO, nil] write to this IO, in pieces of about 64 KiB, instead
    #   of returning a String
    # @return [String, Integer] the JSON text (UTF-8), or the bytes written to +io+
    # @raise [EncodeError] a value does not fit its declared type, or a record
    #   is not of the serializer's model; with its path
    # @raise [SchemaError] the serializer does not fit the model or the format
    #   (raised when it is first compiled)
    def to_json(*_state, io: nil)
      Options.io(io)

      layout = FORMATS[@format].layout(self)
      Backend.implementation(:serializer, @backend).write(self, @resource, @context, io, layout)
    end

    # The Ruby twin of +Serializer::Native+ (serializer_engine.c): runs the
    # compiled methods of {Generator}.
    # @api private
    module Pure
      # Writes +serializer+'s document (+Native.write+'s arguments).
      def self.write(serializer, _resource, _context, io, layout)
        out = String.new(capacity: Document::BUFFER_SIZE, encoding: Encoding::UTF_8)
        written = layout.opening ? JsonApi.write(serializer, layout, out, io) : Document.write(serializer, layout, out, io)
        io ? written + Chunks.flush(io, out) : out
      end
    end

    # @return [Object] the document as plain Ruby values: what {#to_json} writes,
    #   read back (Hashes with String keys, Arrays, Strings, Integers, Floats,
    #   true, false, nil; times, dates and base64 as the strings written)
    # @return [Hash{String => Hash}, nil] JSON:API: the +include:+ paths as a
    #   tree (`{"comments" => {"author" => {}}}`), nil for every related record
    # @api private
    attr_reader :include_tree
    # @return [Hash{String => Object}, nil] JSON:API: the top-level links
    attr_reader :links
    # @return [Hash, nil] JSON:API: the top-level meta
    attr_reader :meta

    # The document as Ruby values (what +JSON.parse+ of {#to_json} gives, with
    # String keys); +as_json+ for Rails.
    # @return [Hash{String => Object}, Array<Hash{String => Object}>]
    def to_h
      JSON.decode(to_json, :any)
    end
    alias as_json to_h

    # @api private
    # @return [Compiled] the compiled form for +record+: of the declared model,
    #   or else of the record's class
    #   or else of the record's class (a model, or any class whose readers
    #   the serializer reads)
    # @raise [EncodeError] the record's class lacks a reader the serializer reads
    def compiled_for(record)
      model = self.class.model
      model = record.class unless model && (model === record || record.is_a?(Model))
      self.class.__wb_compiled(@format, model)
    end

    private

    def normalize_include(paths)
      paths = paths.split(",") if paths.is_a?(String)
      unless paths.is_a?(Array) && paths.all? { |path| path.is_a?(String) || path.is_a?(Symbol) }
        raise ArgumentError, "include: is a comma-separated String or an Array of relationship paths, not #{paths.inspect}"
      end

      tree = {}
      paths.each do |path|
        names = path.to_s.strip.split(".", -1)
        if names.empty? || names.any?(&:empty?)
          raise ArgumentError, "include: #{path.to_s.inspect} is not a relationship path (names joined by dots, e.g. \"comments.author\")"
        end

        names.reduce(tree) { |node, name| node[-name] ||= {} }
      end
      Shareable.make(tree)
    end

    def normalize_links(links)
      raise ArgumentError, "links: must be a Hash of relation => href, not #{links.class}" unless links.is_a?(Hash)

      links.each_with_object({}) do |(rel, href), out|
        unless (rel.is_a?(String) || rel.is_a?(Symbol)) && !rel.empty?
          raise ArgumentError, "links: a relation is a non-empty String or Symbol, not #{rel.inspect}"
        end

        out[-rel.to_s] = href unless href.nil?
      end.freeze
    end

    def normalize_fields(fields)
      raise ArgumentError, "fields: must be a Hash of type => field names, not #{fields.class}" unless fields.is_a?(Hash)

      fields.to_h do |type, names|
        raise ArgumentError, "fields: a type is a String or Symbol, not #{type.inspect}" unless type.is_a?(String) || type.is_a?(Symbol)

        names = names.split(",") if names.is_a?(String)
        unless names.is_a?(Array) && names.all? { |name| name.is_a?(String) || name.is_a?(Symbol) }
          raise ArgumentError, "fields: #{type}: the field names are an Array of Strings, or a comma-separated String"
        end

        [-type.to_s, names.to_h { |name| [-name.to_s.strip, true] }.freeze]
      end.freeze
    end

    # Writing documents, and flushing to an IO between records.
    # @api private
    module Document
      BUFFER_SIZE = 16 * 1024
      FLUSH_SIZE = Chunks::SIZE

      module_function

      # Writes the resource of +document+ (a Serializer) as +layout+ lays it
      # out; JSON:API's compound documents are JsonApi.write's.
      # @return [Integer] bytes flushed to +io+
      def write(document, layout, out, io)
        resource = document.resource
        context = document.context
        if resource.is_a?(Array) || Values.collection?(resource)
          head = layout.list_head
          skip_nil = layout.skip_nil
          return flush_each(out, io, resource, layout.list_opening, layout.list_closing) do |item, first|
            if item.nil?
              next false if skip_nil

              out << "," unless first
              out << "null"
            else
              out << "," unless first
              compiled = document.compiled_for(item)
              head ? compiled.write(item, out, context, 1, head) : compiled.write(item, out, context, 1)
            end
            true
          end
        end
        if resource.nil?
          out << "null"
        elsif (head = layout.single_head)
          document.compiled_for(resource).write(resource, out, context, 1, head)
        else
          document.compiled_for(resource).write(resource, out, context, 1)
        end
        0
      end

      # Writes +opening+, then yields each item of +list+ with whether nothing
      # was written yet and its index (the block returns false when it wrote
      # nothing), then +closing+. Errors get the index in their path.
      # @return [Integer] bytes flushed to +io+
      def flush_each(out, io, list, opening, closing)
        out << opening
        written = 0
        first = true
        index = 0
        Values.each_item(list) do |item|
          begin
            first = false unless yield(item, first, index) == false
          rescue EncodeError => e
            raise JSON::Writer.nested(e, index)
          end
          index += 1
          written += Chunks.flush(io, out) if io && out.bytesize >= FLUSH_SIZE
        end
        out << closing
        written
      end
    end
  end
end

# @!parse
#   module Wirebind
#     class Serializer
#       # The C serializer engine (ext/wirebind/serializer_class.c, serializer_engine.c),
#       # the native twin of {Pure}; present only when {Wirebind.backend} is +:native+.
#       #
#       # @api private
#       module Native
#         # @!method self.compile(program)
#         #   @param program [Serializer::Program] a serializer class's program
#         #   @return [Program] it compiled for C (frozen, shareable)
#         # @!method self.write(serializer, resource, context, io, layout)
#         #   Writes +serializer+'s document, laid out as +layout+ says.
#         #   @param serializer [Serializer]
#         #   @param resource [Object] what it serializes
#         #   @param context [Object] the serializer's context
#         #   @param io [IO, nil] where to write (nil: return the document)
#         #   @param layout [Serializer::Layout]
#         #   @return [String, Integer] the document, or the bytes written to +io+
#
#         # A {Serializer::Program} compiled for C (TypedData), from {Native.compile}.
#         #
#         # @api private
#         class Program; end
#       end
#     end
#   end

Wirebind::Backend.register(:serializer, pure: Wirebind::Serializer::Pure,
                                        native: (Wirebind::Serializer::Native if Wirebind.backend == :native))

# frozen_string_literal: true

require "ox"
require "stringio"
require_relative "convert"
require_relative "../models"

module Bench
  module Peers
    # An Ox::Sax handler that builds models as the events arrive, no tree in
    # between: the fastest way Ruby had to read typed records out of XML
    # before wirebind, and the most code to write.
    class OxSax
      # skip_return keeps white space inside text (the default, skip_white,
      # collapses it, which changes descriptions) and drops whitespace-only
      # text, which spares a callback per indentation run. It would also drop
      # a whitespace-only value, or the spaces before a CDATA section; this
      # document has neither, so the peer gets the faster mode (skip_none,
      # exact in every case, costs about 15% here).
      OPTIONS = { symbolize: true, strip_namespace: true, convert_special: true, skip: :skip_return }.freeze
      ISSUE_DEPTH = 5 # Envelope/Body/getIssuesResponse/return/item

      def name = "ox sax"

      def decode(xml)
        handler = Handler.new
        ::Ox.sax_parse(handler, StringIO.new(xml), OPTIONS)
        handler.issues
      end

      # Streams: each issue is yielded when its end tag is read, then dropped.
      def each(io, &block)
        ::Ox.sax_parse(Handler.new(&block), io, OPTIONS)
      end

      # Element name => [attribute, how to read it]. :records lists name the
      # table and class of their items.
      VERSION = {
        id: %i[id string], name: %i[name string], archived: %i[archived boolean],
        released: %i[released boolean], releaseDate: %i[release_date time], sequence: %i[sequence integer]
      }.freeze
      COMPONENT = { id: %i[id string], name: %i[name string] }.freeze
      CUSTOM_FIELD = {
        customfieldId: %i[id string], key: %i[key string], values: %i[values strings]
      }.freeze
      ISSUE = {
        id: %i[id string], key: %i[key string], summary: %i[summary string],
        description: %i[description string], type: %i[type string], status: %i[status string],
        priority: %i[priority string], resolution: %i[resolution string], assignee: %i[assignee string],
        reporter: %i[reporter string], project: %i[project string], environment: %i[environment string],
        created: %i[created time], updated: %i[updated time], duedate: %i[duedate date],
        votes: %i[votes integer], watched: %i[watched boolean], timeSpent: %i[time_spent decimal],
        label: %i[labels append],
        affectsVersions: [:affects_versions, :records, VERSION, Version],
        fixVersions: [:fix_versions, :records, VERSION, Version],
        components: [:components, :records, COMPONENT, Component],
        customFieldValues: [:custom_field_values, :records, CUSTOM_FIELD, CustomField]
      }.freeze

      # An explicit stack of open records and lists; a scalar being read is
      # held apart (@field) since it never nests.
      class Handler < ::Ox::Sax
        Record = Struct.new(:depth, :table, :klass, :attributes)
        List = Struct.new(:depth, :name, :table, :klass, :items)

        attr_reader :issues

        def initialize(&on_issue)
          super()
          @on_issue = on_issue
          @issues = []
          @stack = []
          @depth = 0
          @field = nil
        end

        def start_element(name)
          depth = (@depth += 1)
          top = @stack.last
          if top.nil?
            @stack << Record.new(depth, ISSUE, Issue, {}) if depth == ISSUE_DEPTH && name == :item
          elsif depth == top.depth + 1
            top.is_a?(Record) ? open_field(top, name, depth) : open_item(top, depth)
          end
        end

        def attr(name, value)
          if @field
            @nil = value == "true" if name == :nil && @field_depth == @depth
          elsif name == :lang && (top = @stack.last) && top.depth == @depth && top.klass == Issue
            top.attributes[:lang] = value
          end
        end

        def text(string)
          return unless @field && @field_depth == @depth

          @text = @text ? @text + string : string
        end
        alias cdata text

        def end_element(_name)
          depth = @depth
          @depth -= 1
          if @field
            close_field if @field_depth == depth
          elsif (top = @stack.last) && top.depth == depth
            close(@stack.pop)
          end
        end

        private

        def open_field(record, name, depth)
          action = record.table[name] or return
          case action[1]
          when :records then @stack << List.new(depth, action[0], action[2], action[3], [])
          when :strings then @stack << List.new(depth, action[0], nil, nil, [])
          else read_field(record, action[0], action[1], depth)
          end
        end

        def open_item(list, depth)
          if list.klass
            @stack << Record.new(depth, list.table, list.klass, {})
          else
            read_field(list, nil, :string, depth)
          end
        end

        def read_field(target, name, kind, depth)
          @field = kind
          @field_target = target
          @field_name = name
          @field_depth = depth
          @text = nil
          @nil = false
        end

        def close_field
          value = @nil ? nil : convert(@field, @text)
          target = @field_target
          if target.is_a?(List)
            target.items << value
          elsif @field == :append
            (target.attributes[:labels] ||= []) << value
          else
            target.attributes[@field_name] = value
          end
          @field = nil
        end

        def close(frame)
          parent = @stack.last
          if frame.is_a?(List)
            parent.attributes[frame.name] = frame.items
          else
            record = frame.klass.new(**frame.attributes)
            if parent then parent.items << record
            elsif @on_issue then @on_issue.call(record)
            else @issues << record
            end
          end
        end

        def convert(kind, text)
          case kind
          when :string, :append then text || ""
          when :time then Convert.time(text)
          when :date then Convert.date(text)
          when :integer then Convert.integer(text)
          when :decimal then Convert.decimal(text)
          when :boolean then Convert.boolean(text)
          end
        end
      end
    end
  end
end

# frozen_string_literal: true

require "nori"
require_relative "convert"
require_relative "../models"

module Bench
  module Peers
    # Nori configured as Savon 2 configures it (Savon::GlobalOptions and
    # LocalOptions defaults, passed through Savon::Response#nori), then the
    # hashes mapped into models: what a Savon user does to get typed objects.
    #
    # One deviation, and why: with Savon's defaults Nori cannot tell
    # <x xsi:type="xsd:string" xsi:nil="true"/> (nil) from
    # <x xsi:type="xsd:string"/> (""): both become {:"@xsi:type" => "xsd:string"}.
    # consistent_empty_tags with an empty-string empty_tag_value (Nori >= 2.8)
    # makes the first nil and the second "", so this peer can be correct.
    class Nori
      OPTIONS = {
        strip_namespaces: true,
        delete_namespace_attributes: false,
        empty_tag_value: "",
        consistent_empty_tags: true,
        convert_dashes_to_underscores: true,
        scrub_xml: true,
        # Savon 2.17: ->(tag) { StringUtils.snakecase(tag).to_sym }. Nori 2.7.1
        # stopped adding String#snakecase, so tag.snakecase no longer exists.
        convert_tags_to: ->(tag) { ::Nori::StringUtils.snakecase(tag).to_sym },
        convert_attributes_to: ->(key, value) { [key, value] },
        advanced_typecasting: true,
        parser: :nokogiri
      }.freeze

      def initialize
        @nori = ::Nori.new(OPTIONS)
      end

      def name = "nori (savon)"

      def decode(xml)
        body = @nori.parse(xml).dig(:envelope, :body)
        many(body.dig(:get_issues_response, :return), :item).map { |hash| issue(hash) }
      end

      private

      def issue(h)
        Issue.new(
          id: string(h[:id]),
          key: string(h[:key]),
          summary: string(h[:summary]),
          description: string(h[:description]),
          type: string(h[:type]),
          status: string(h[:status]),
          priority: string(h[:priority]),
          resolution: string(h[:resolution]),
          assignee: string(h[:assignee]),
          reporter: string(h[:reporter]),
          project: string(h[:project]),
          environment: string(h[:environment]),
          created: time(h[:created]),
          updated: time(h[:updated]),
          duedate: date(h[:duedate]),
          votes: Convert.integer(string(h[:votes])),
          watched: boolean(h[:watched]),
          lang: string(h[:@lang]),
          time_spent: Convert.decimal(string(h[:time_spent])),
          affects_versions: many(h[:affects_versions], :item).map { |v| version(v) },
          fix_versions: many(h[:fix_versions], :item).map { |v| version(v) },
          components: many(h[:components], :item).map { |c| Component.new(id: string(c[:id]), name: string(c[:name])) },
          labels: list(h[:label]).map { |label| string(label) },
          custom_field_values: many(h[:custom_field_values], :item).map { |f| custom_field(f) }
        )
      end

      def version(h)
        Version.new(
          id: string(h[:id]), name: string(h[:name]),
          archived: boolean(h[:archived]), released: boolean(h[:released]),
          release_date: time(h[:release_date]), sequence: Convert.integer(string(h[:sequence]))
        )
      end

      def custom_field(h)
        CustomField.new(
          id: string(h[:customfield_id]), key: string(h[:key]),
          values: many(h[:values], :item).map { |value| string(value) }
        )
      end

      # Nori's shapes for a SOAP array: a Hash holding :item (one Hash or String
      # for one item, an Array for several) plus the wrapper's attributes; ""
      # for an empty wrapper; nil when absent.
      def many(wrapper, key)
        wrapper.is_a?(Hash) ? list(wrapper[key]) : []
      end

      def list(value)
        case value
        when nil then []
        when Array then value
        else [value]
        end
      end

      # Values come as Nori::StringWithAttributes; #to_s makes them plain Strings.
      # Advanced typecasting may already have turned a "true" text into true.
      def string(value)
        value&.to_s
      end

      # Advanced typecasting gives a DateTime for xs:dateTime text (offset and
      # fraction intact); to_time keeps both.
      def time(value)
        case value
        when DateTime then value.to_time
        when String then Convert.time(value)
        end
      end

      def date(value)
        case value
        when Date then value
        when String then Convert.date(value)
        end
      end

      def boolean(value)
        value.is_a?(String) ? Convert.boolean(value) : value
      end
    end
  end
end

# frozen_string_literal: true

require "happymapper"
require_relative "convert"
require_relative "../models"

module Bench
  module Peers
    # nokogiri-happymapper classes, then the parsed objects converted into
    # models.
    #
    # Where HappyMapper's own typecasts would be wrong on this input, its
    # documented parser: option is used instead: Time turns an empty or nil
    # element into Time.at(0) (it rescues Time.parse("") with Time.at(""
    # .to_i)), and Integer turns a padded "0" into nil. Strings that can be
    # xsi:nil are read through a small class holding the content and the nil
    # attribute, since a String element is "" either way. And a content
    # mapping reads the first text node only (TextNode#find), so a CDATA
    # section would be lost: the document is parsed here, with NOCDATA (and
    # NOBLANKS, as the other DOM peers), and handed to HappyMapper, which
    # accepts a Nokogiri document.
    class HappyMapper
      TIME = ->(text) { Convert.time(text) }
      INTEGER = ->(text) { Convert.integer(text) }
      DECIMAL = ->(text) { Convert.decimal(text) }
      ITEMS = "/soapenv:Envelope/soapenv:Body/ns1:getIssuesResponse/return"

      class NillableText
        include ::HappyMapper

        attribute :nil, String
        content :value, String

        def to_value = self.nil == "true" ? nil : value || ""
      end

      class VersionMapper
        include ::HappyMapper

        tag "item"
        element :id, String
        element :name, String
        element :archived, Boolean
        element :released, Boolean
        element :release_date, Time, tag: "releaseDate", parser: TIME
        element :sequence, Integer, parser: INTEGER
      end

      class ComponentMapper
        include ::HappyMapper

        tag "item"
        element :id, String
        element :name, String
      end

      class CustomFieldMapper
        include ::HappyMapper

        tag "item"
        element :id, String, tag: "customfieldId"
        element :key, NillableText, tag: "key"
        has_many :values, String, xpath: "values/item"
      end

      class IssueMapper
        include ::HappyMapper

        tag "item"
        attribute :lang, String
        element :id, String
        element :key, String
        element :summary, String
        element :description, NillableText, tag: "description"
        element :type, String
        element :status, String
        element :priority, String
        element :resolution, NillableText, tag: "resolution"
        element :assignee, NillableText, tag: "assignee"
        element :reporter, String
        element :project, String
        element :environment, NillableText, tag: "environment"
        element :created, Time, parser: TIME
        element :updated, Time, parser: TIME
        element :duedate, Date
        element :votes, Integer, parser: INTEGER
        element :watched, Boolean
        element :time_spent, BigDecimal, tag: "timeSpent", parser: DECIMAL
        has_many :affects_versions, VersionMapper, xpath: "affectsVersions"
        has_many :fix_versions, VersionMapper, xpath: "fixVersions"
        has_many :components, ComponentMapper, xpath: "components"
        has_many :labels, String, tag: "label"
        has_many :custom_field_values, CustomFieldMapper, xpath: "customFieldValues"
      end

      def name = "happymapper"

      def decode(xml)
        document = Nokogiri::XML(xml) { |config| config.strict.nocdata.noblanks }
        IssueMapper.parse(document, xpath: ITEMS).map { |issue| convert(issue) }
      end

      private

      def convert(h)
        Issue.new(
          id: h.id, key: h.key, summary: h.summary, description: h.description&.to_value,
          type: h.type, status: h.status, priority: h.priority, resolution: h.resolution&.to_value,
          assignee: h.assignee&.to_value, reporter: h.reporter, project: h.project,
          environment: h.environment&.to_value, created: h.created, updated: h.updated,
          duedate: h.duedate, votes: h.votes, watched: h.watched, lang: h.lang,
          time_spent: h.time_spent,
          affects_versions: h.affects_versions.map { |v| version(v) },
          fix_versions: h.fix_versions.map { |v| version(v) },
          components: h.components.map { |c| Component.new(id: c.id, name: c.name) },
          labels: h.labels,
          custom_field_values: h.custom_field_values.map do |f|
            CustomField.new(id: f.id, key: f.key&.to_value, values: f.values)
          end
        )
      end

      def version(v)
        Version.new(
          id: v.id, name: v.name, archived: v.archived, released: v.released,
          release_date: v.release_date, sequence: v.sequence
        )
      end
    end
  end
end

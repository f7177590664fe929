# frozen_string_literal: true

require "shale"
require "shale/adapter/nokogiri"
require_relative "../models"

module Bench
  module Peers
    # Shale mappers over its Nokogiri adapter, then the mapped objects
    # converted into models.
    #
    # Two things Shale needs help with to be correct on this input:
    # - Its Nokogiri adapter reads an element's first text node only, so
    #   "text <![CDATA[more]]>" came back as "text ". The adapter below parses
    #   with NOCDATA, which makes libxml2 merge CDATA into the text node.
    # - A String attribute is nil for both <x/> and <x xsi:nil="true"/>;
    #   environment, the one field where "" and nil both occur, is mapped as
    #   content plus the xsi:nil attribute.
    class Shale
      XSI = "http://www.w3.org/2001/XMLSchema-instance"
      SOAPENV = "http://schemas.xmlsoap.org/soap/envelope/"
      NS1 = "http://soap.rpc.jira.atlassian.com"

      # Shale::Adapter::Nokogiri with CDATA merged into text (see above).
      module Adapter
        def self.load(xml)
          doc = ::Nokogiri::XML::Document.parse(xml) { |config| config.noblanks.nocdata }
          raise ::Shale::ParseError, "Document is invalid: #{doc.errors}" unless doc.errors.empty?

          ::Shale::Adapter::Nokogiri::Node.new(doc.root)
        end

        def self.dump(...) = ::Shale::Adapter::Nokogiri.dump(...)
        def self.create_document(...) = ::Shale::Adapter::Nokogiri.create_document(...)
      end

      class NillableString < ::Shale::Mapper
        attribute :value, ::Shale::Type::String
        attribute :nil, ::Shale::Type::String

        xml do
          map_content to: :value
          map_attribute "nil", to: :nil, namespace: XSI, prefix: "xsi"
        end
      end

      class VersionMapper < ::Shale::Mapper
        attribute :id, ::Shale::Type::String
        attribute :name, ::Shale::Type::String
        attribute :archived, ::Shale::Type::Boolean
        attribute :released, ::Shale::Type::Boolean
        attribute :release_date, ::Shale::Type::Time
        attribute :sequence, ::Shale::Type::Integer

        xml do
          map_element "id", to: :id
          map_element "name", to: :name
          map_element "archived", to: :archived
          map_element "released", to: :released
          map_element "releaseDate", to: :release_date
          map_element "sequence", to: :sequence
        end
      end

      class ComponentMapper < ::Shale::Mapper
        attribute :id, ::Shale::Type::String
        attribute :name, ::Shale::Type::String

        xml do
          map_element "id", to: :id
          map_element "name", to: :name
        end
      end

      class StringArray < ::Shale::Mapper
        attribute :items, ::Shale::Type::String, collection: true
        xml { map_element "item", to: :items }
      end

      class CustomFieldMapper < ::Shale::Mapper
        attribute :id, ::Shale::Type::String
        attribute :key, ::Shale::Type::String
        attribute :values, StringArray

        xml do
          map_element "customfieldId", to: :id
          map_element "key", to: :key
          map_element "values", to: :values
        end
      end

      class VersionArray < ::Shale::Mapper
        attribute :items, VersionMapper, collection: true
        xml { map_element "item", to: :items }
      end

      class ComponentArray < ::Shale::Mapper
        attribute :items, ComponentMapper, collection: true
        xml { map_element "item", to: :items }
      end

      class CustomFieldArray < ::Shale::Mapper
        attribute :items, CustomFieldMapper, collection: true
        xml { map_element "item", to: :items }
      end

      class IssueMapper < ::Shale::Mapper
        attribute :id, ::Shale::Type::String
        attribute :key, ::Shale::Type::String
        attribute :summary, ::Shale::Type::String
        attribute :description, ::Shale::Type::String
        attribute :type, ::Shale::Type::String
        attribute :status, ::Shale::Type::String
        attribute :priority, ::Shale::Type::String
        attribute :resolution, ::Shale::Type::String
        attribute :assignee, ::Shale::Type::String
        attribute :reporter, ::Shale::Type::String
        attribute :project, ::Shale::Type::String
        attribute :environment, NillableString
        attribute :created, ::Shale::Type::Time
        attribute :updated, ::Shale::Type::Time
        attribute :duedate, ::Shale::Type::Date
        attribute :votes, ::Shale::Type::Integer
        attribute :watched, ::Shale::Type::Boolean
        attribute :lang, ::Shale::Type::String
        attribute :time_spent, ::Shale::Type::Decimal
        attribute :affects_versions, VersionArray
        attribute :fix_versions, VersionArray
        attribute :components, ComponentArray
        attribute :labels, ::Shale::Type::String, collection: true
        attribute :custom_field_values, CustomFieldArray

        xml do
          map_attribute "lang", to: :lang
          map_element "id", to: :id
          map_element "key", to: :key
          map_element "summary", to: :summary
          map_element "description", to: :description
          map_element "type", to: :type
          map_element "status", to: :status
          map_element "priority", to: :priority
          map_element "resolution", to: :resolution
          map_element "assignee", to: :assignee
          map_element "reporter", to: :reporter
          map_element "project", to: :project
          map_element "environment", to: :environment
          map_element "created", to: :created
          map_element "updated", to: :updated
          map_element "duedate", to: :duedate
          map_element "votes", to: :votes
          map_element "watched", to: :watched
          map_element "timeSpent", to: :time_spent
          map_element "affectsVersions", to: :affects_versions
          map_element "fixVersions", to: :fix_versions
          map_element "components", to: :components
          map_element "label", to: :labels
          map_element "customFieldValues", to: :custom_field_values
        end
      end

      class ReturnMapper < ::Shale::Mapper
        attribute :items, IssueMapper, collection: true
        xml { map_element "item", to: :items }
      end

      class ResponseMapper < ::Shale::Mapper
        attribute :result, ReturnMapper
        xml { map_element "return", to: :result }
      end

      class BodyMapper < ::Shale::Mapper
        attribute :response, ResponseMapper
        xml { map_element "getIssuesResponse", to: :response, namespace: NS1, prefix: "ns1" }
      end

      class EnvelopeMapper < ::Shale::Mapper
        attribute :body, BodyMapper

        xml do
          root "Envelope"
          namespace SOAPENV, "soapenv"
          map_element "Body", to: :body
        end
      end

      def initialize
        ::Shale.xml_adapter = Adapter
      end

      def name = "shale"

      def decode(xml)
        issues = EnvelopeMapper.from_xml(xml).body&.response&.result&.items || []
        issues.map { |issue| convert(issue) }
      end

      private

      def convert(s)
        Issue.new(
          id: s.id, key: s.key, summary: s.summary, description: s.description, type: s.type,
          status: s.status, priority: s.priority, resolution: s.resolution, assignee: s.assignee,
          reporter: s.reporter, project: s.project, environment: nillable(s.environment),
          created: s.created, updated: s.updated, duedate: s.duedate, votes: s.votes,
          watched: s.watched, lang: s.lang, time_spent: s.time_spent,
          affects_versions: versions(s.affects_versions),
          fix_versions: versions(s.fix_versions),
          components: items(s.components).map { |c| Component.new(id: c.id, name: c.name) },
          labels: s.labels || [],
          custom_field_values: items(s.custom_field_values).map do |f|
            CustomField.new(id: f.id, key: f.key, values: items(f.values))
          end
        )
      end

      def versions(array)
        items(array).map do |v|
          Version.new(
            id: v.id, name: v.name, archived: v.archived, released: v.released,
            release_date: v.release_date, sequence: v.sequence
          )
        end
      end

      def items(array)
        array&.items || []
      end

      # Present without xsi:nil means a string, "" when the element is empty.
      def nillable(string)
        return nil if string.nil? || string.nil == "true"

        string.value || ""
      end
    end
  end
end

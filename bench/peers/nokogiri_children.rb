# frozen_string_literal: true

require "nokogiri"
require_relative "convert"
require_relative "../models"

module Bench
  module Peers
    # Nokogiri DOM, then one pass over each record's element children with a
    # table from element name to [attribute, conversion]: how jiraSOAP 0.9
    # read entities (JIRA::Entity#initialize_with_xml), the fast DOM idiom.
    # NOBLANKS spares libxml2 the indentation text nodes (it would also drop a
    # whitespace-only value, which this document does not have).
    class NokogiriChildren
      NAMESPACES = {
        "soapenv" => "http://schemas.xmlsoap.org/soap/envelope/",
        "ns1" => "http://soap.rpc.jira.atlassian.com"
      }.freeze
      ITEMS = "/soapenv:Envelope/soapenv:Body/ns1:getIssuesResponse/return/item"

      ISSUE = {
        "id" => %i[id string], "key" => %i[key string], "summary" => %i[summary string],
        "description" => %i[description string], "type" => %i[type string], "status" => %i[status string],
        "priority" => %i[priority string], "resolution" => %i[resolution string],
        "assignee" => %i[assignee string], "reporter" => %i[reporter string], "project" => %i[project string],
        "environment" => %i[environment string], "created" => %i[created time], "updated" => %i[updated time],
        "duedate" => %i[duedate date], "votes" => %i[votes integer], "watched" => %i[watched boolean],
        "timeSpent" => %i[time_spent decimal], "affectsVersions" => %i[affects_versions versions],
        "fixVersions" => %i[fix_versions versions], "components" => %i[components components],
        "customFieldValues" => %i[custom_field_values custom_fields]
      }.freeze
      VERSION = {
        "id" => %i[id string], "name" => %i[name string], "archived" => %i[archived boolean],
        "released" => %i[released boolean], "releaseDate" => %i[release_date time],
        "sequence" => %i[sequence integer]
      }.freeze
      COMPONENT = { "id" => %i[id string], "name" => %i[name string] }.freeze
      CUSTOM_FIELD = {
        "customfieldId" => %i[id string], "key" => %i[key string], "values" => %i[values strings]
      }.freeze

      # items: where the records are (the encode check reads <return><item>s).
      def initialize(items: ITEMS)
        @items = items
      end

      def name = "nokogiri children"

      def decode(xml)
        Nokogiri::XML(xml) { |config| config.noblanks }.xpath(@items, NAMESPACES).map do |frag|
          attributes = fill({}, frag, ISSUE)
          attributes[:lang] = frag["lang"]
          Issue.new(**attributes)
        end
      end

      private

      # The one hot loop of this technique. Labels are the one repeated
      # element, so they are the one entry not in the table.
      def fill(attributes, frag, table)
        frag.element_children.each do |node|
          if (action = table[node.name])
            attributes[action[0]] = send(action[1], node)
          elsif node.name == "label"
            (attributes[:labels] ||= []) << Convert.node_string(node)
          end
        end
        attributes
      end

      def string(node) = Convert.node_string(node)
      def time(node) = Convert.time(node.content)
      def date(node) = Convert.date(node.content)
      def integer(node) = Convert.integer(node.content)
      def decimal(node) = Convert.decimal(node.content)
      def boolean(node) = Convert.boolean(node.content)
      def strings(node) = node.element_children.map { |item| Convert.node_string(item) }

      def versions(node)
        node.element_children.map { |item| Version.new(**fill({}, item, VERSION)) }
      end

      def components(node)
        node.element_children.map { |item| Component.new(**fill({}, item, COMPONENT)) }
      end

      def custom_fields(node)
        node.element_children.map { |item| CustomField.new(**fill({}, item, CUSTOM_FIELD)) }
      end
    end
  end
end

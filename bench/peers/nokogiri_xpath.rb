# frozen_string_literal: true

require "nokogiri"
require_relative "convert"
require_relative "../models"

module Bench
  module Peers
    # Nokogiri DOM, then one XPath query per field: how jiraSOAP 0.8 read
    # RemoteIssue (frag.xpath('key').to_s and so on), kept honest about nil:
    # at_xpath plus an xsi:nil check instead of .to_s turning nil into "".
    # Parsed with NOBLANKS, as the children peer is.
    class NokogiriXPath
      NAMESPACES = {
        "soapenv" => "http://schemas.xmlsoap.org/soap/envelope/",
        "ns1" => "http://soap.rpc.jira.atlassian.com"
      }.freeze
      ITEMS = "/soapenv:Envelope/soapenv:Body/ns1:getIssuesResponse/return/item"

      def name = "nokogiri xpath"

      def decode(xml)
        Nokogiri::XML(xml) { |config| config.noblanks }.xpath(ITEMS, NAMESPACES).map { |frag| issue(frag) }
      end

      private

      def issue(frag)
        Issue.new(
          id: string(frag, "id"),
          key: string(frag, "key"),
          summary: string(frag, "summary"),
          description: string(frag, "description"),
          type: string(frag, "type"),
          status: string(frag, "status"),
          priority: string(frag, "priority"),
          resolution: string(frag, "resolution"),
          assignee: string(frag, "assignee"),
          reporter: string(frag, "reporter"),
          project: string(frag, "project"),
          environment: string(frag, "environment"),
          created: Convert.time(string(frag, "created")),
          updated: Convert.time(string(frag, "updated")),
          duedate: Convert.date(string(frag, "duedate")),
          votes: Convert.integer(string(frag, "votes")),
          watched: Convert.boolean(string(frag, "watched")),
          lang: frag["lang"],
          time_spent: Convert.decimal(string(frag, "timeSpent")),
          affects_versions: frag.xpath("affectsVersions/*").map { |v| version(v) },
          fix_versions: frag.xpath("fixVersions/*").map { |v| version(v) },
          components: frag.xpath("components/*").map { |c| Component.new(id: string(c, "id"), name: string(c, "name")) },
          labels: frag.xpath("label").map { |label| Convert.node_string(label) },
          custom_field_values: frag.xpath("customFieldValues/*").map { |f| custom_field(f) }
        )
      end

      def version(frag)
        Version.new(
          id: string(frag, "id"),
          name: string(frag, "name"),
          archived: Convert.boolean(string(frag, "archived")),
          released: Convert.boolean(string(frag, "released")),
          release_date: Convert.time(string(frag, "releaseDate")),
          sequence: Convert.integer(string(frag, "sequence"))
        )
      end

      def custom_field(frag)
        CustomField.new(
          id: string(frag, "customfieldId"),
          key: string(frag, "key"),
          values: frag.xpath("values/*").map { |value| Convert.node_string(value) }
        )
      end

      def string(frag, path)
        Convert.node_string(frag.at_xpath(path))
      end
    end
  end
end

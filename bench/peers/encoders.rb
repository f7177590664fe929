# frozen_string_literal: true

require "builder"
require "nokogiri"
require "ox"
require "time"
require_relative "../models"

module Bench
  module Peers
    # Hand-written encoders of a list of issues, the way a user of each
    # library writes one. All three write the same document as
    # Wirebind::XML.encode(issues, root: "return", item: "item"): no
    # namespaces, nil fields left out (absent reads back as nil), lists in
    # wrappers of <item>s, lang as an attribute.
    module Encoders
      # The text of each scalar, chosen to read back exactly: a Time keeps its
      # offset ("Z" when UTC) and as many fraction digits as it has.
      module Format
        module_function

        def time(value) = value.xmlschema(value.subsec.zero? ? 0 : 6)
        def date(value) = value.iso8601
        def decimal(value) = value.to_s("F")
      end

      # Builder::XmlMarkup, the builder Rails and Savon (through Gyoku's
      # peers) grew up with. It escapes every text (and non-ASCII to nothing,
      # with encoding utf-8).
      class Builder
        def name = "builder"

        def encode(issues)
          xml = ::Builder::XmlMarkup.new
          xml.tag!("return") do
            issues.each { |issue| issue(xml, issue) }
          end
        end

        private

        def issue(xml, i)
          xml.tag!("item", i.lang ? { lang: i.lang } : nil) do
            value(xml, "id", i.id)
            value(xml, "key", i.key)
            value(xml, "summary", i.summary)
            value(xml, "description", i.description)
            value(xml, "type", i.type)
            value(xml, "status", i.status)
            value(xml, "priority", i.priority)
            value(xml, "resolution", i.resolution)
            value(xml, "assignee", i.assignee)
            value(xml, "reporter", i.reporter)
            value(xml, "project", i.project)
            value(xml, "environment", i.environment)
            value(xml, "created", i.created && Format.time(i.created))
            value(xml, "updated", i.updated && Format.time(i.updated))
            value(xml, "duedate", i.duedate && Format.date(i.duedate))
            value(xml, "votes", i.votes)
            value(xml, "watched", i.watched)
            value(xml, "timeSpent", i.time_spent && Format.decimal(i.time_spent))
            versions(xml, "affectsVersions", i.affects_versions)
            versions(xml, "fixVersions", i.fix_versions)
            xml.tag!("components") do
              i.components.each { |c| xml.tag!("item") { value(xml, "id", c.id); value(xml, "name", c.name) } }
            end
            i.labels.each { |label| value(xml, "label", label) }
            xml.tag!("customFieldValues") do
              i.custom_field_values.each do |f|
                xml.tag!("item") do
                  value(xml, "customfieldId", f.id)
                  value(xml, "key", f.key)
                  xml.tag!("values") { f.values.each { |v| value(xml, "item", v) } }
                end
              end
            end
          end
        end

        def versions(xml, name, versions)
          xml.tag!(name) do
            versions.each do |v|
              xml.tag!("item") do
                value(xml, "id", v.id)
                value(xml, "name", v.name)
                value(xml, "archived", v.archived)
                value(xml, "released", v.released)
                value(xml, "releaseDate", v.release_date && Format.time(v.release_date))
                value(xml, "sequence", v.sequence)
              end
            end
          end
        end

        # Builder writes <x/> for a nil argument, which reads back as "" for a
        # string; leaving the element out reads back as nil.
        def value(xml, name, value)
          xml.tag!(name, value.to_s) unless value.nil?
        end
      end

      # Ox::Builder: Ox's streaming builder, written in C, into a String.
      class Ox
        def name = "ox builder"

        def encode(issues)
          b = ::Ox::Builder.new(indent: -1)
          b.element("return")
          issues.each { |issue| issue(b, issue) }
          b.close
          # Ox::Builder returns the UTF-8 bytes tagged ASCII-8BIT.
          b.to_s.force_encoding(Encoding::UTF_8)
        end

        private

        def issue(b, i)
          i.lang ? b.element("item", lang: i.lang) : b.element("item")
          value(b, "id", i.id)
          value(b, "key", i.key)
          value(b, "summary", i.summary)
          value(b, "description", i.description)
          value(b, "type", i.type)
          value(b, "status", i.status)
          value(b, "priority", i.priority)
          value(b, "resolution", i.resolution)
          value(b, "assignee", i.assignee)
          value(b, "reporter", i.reporter)
          value(b, "project", i.project)
          value(b, "environment", i.environment)
          value(b, "created", i.created && Format.time(i.created))
          value(b, "updated", i.updated && Format.time(i.updated))
          value(b, "duedate", i.duedate && Format.date(i.duedate))
          value(b, "votes", i.votes)
          value(b, "watched", i.watched)
          value(b, "timeSpent", i.time_spent && Format.decimal(i.time_spent))
          versions(b, "affectsVersions", i.affects_versions)
          versions(b, "fixVersions", i.fix_versions)
          b.element("components")
          i.components.each do |c|
            b.element("item")
            value(b, "id", c.id)
            value(b, "name", c.name)
            b.pop
          end
          b.pop
          i.labels.each { |label| value(b, "label", label) }
          b.element("customFieldValues")
          i.custom_field_values.each do |f|
            b.element("item")
            value(b, "customfieldId", f.id)
            value(b, "key", f.key)
            b.element("values")
            f.values.each { |v| value(b, "item", v) }
            b.pop
            b.pop
          end
          b.pop
          b.pop
        end

        def versions(b, name, versions)
          b.element(name)
          versions.each do |v|
            b.element("item")
            value(b, "id", v.id)
            value(b, "name", v.name)
            value(b, "archived", v.archived)
            value(b, "released", v.released)
            value(b, "releaseDate", v.release_date && Format.time(v.release_date))
            value(b, "sequence", v.sequence)
            b.pop
          end
          b.pop
        end

        def value(b, name, value)
          return if value.nil?

          b.element(name)
          b.text(value.to_s)
          b.pop
        end
      end

      # Nokogiri::XML::Builder: builds a DOM, then serializes it.
      class Nokogiri
        def name = "nokogiri builder"

        def encode(issues)
          ::Nokogiri::XML::Builder.new(encoding: "UTF-8") do |xml|
            xml.return_ do
              issues.each { |issue| issue(xml, issue) }
            end
          end.to_xml(save_with: ::Nokogiri::XML::Node::SaveOptions::AS_XML)
        end

        private

        # Method names ending in "_" are Nokogiri's escape for element names
        # that are Ruby methods (id, type, return...); every name gets one so
        # none is missed.
        def issue(xml, i)
          xml.item_(i.lang ? { lang: i.lang } : {}) do
            value(xml, :id_, i.id)
            value(xml, :key_, i.key)
            value(xml, :summary_, i.summary)
            value(xml, :description_, i.description)
            value(xml, :type_, i.type)
            value(xml, :status_, i.status)
            value(xml, :priority_, i.priority)
            value(xml, :resolution_, i.resolution)
            value(xml, :assignee_, i.assignee)
            value(xml, :reporter_, i.reporter)
            value(xml, :project_, i.project)
            value(xml, :environment_, i.environment)
            value(xml, :created_, i.created && Format.time(i.created))
            value(xml, :updated_, i.updated && Format.time(i.updated))
            value(xml, :duedate_, i.duedate && Format.date(i.duedate))
            value(xml, :votes_, i.votes)
            value(xml, :watched_, i.watched)
            value(xml, :timeSpent_, i.time_spent && Format.decimal(i.time_spent))
            versions(xml, :affectsVersions_, i.affects_versions)
            versions(xml, :fixVersions_, i.fix_versions)
            xml.components_ do
              i.components.each { |c| xml.item_ { value(xml, :id_, c.id); value(xml, :name_, c.name) } }
            end
            i.labels.each { |label| value(xml, :label_, label) }
            xml.customFieldValues_ do
              i.custom_field_values.each do |f|
                xml.item_ do
                  value(xml, :customfieldId_, f.id)
                  value(xml, :key_, f.key)
                  xml.values_ { f.values.each { |v| value(xml, :item_, v) } }
                end
              end
            end
          end
        end

        def versions(xml, name, versions)
          xml.public_send(name) do
            versions.each do |v|
              xml.item_ do
                value(xml, :id_, v.id)
                value(xml, :name_, v.name)
                value(xml, :archived_, v.archived)
                value(xml, :released_, v.released)
                value(xml, :releaseDate_, v.release_date && Format.time(v.release_date))
                value(xml, :sequence_, v.sequence)
              end
            end
          end
        end

        def value(xml, name, value)
          xml.public_send(name, value.to_s) unless value.nil?
        end
      end

      ALL = [Builder, Ox, Nokogiri].freeze
    end
  end
end

# frozen_string_literal: true

module Wirebind
  # The models of the contract, declared once for every format: each carries its
  # XML mapping (xml:) and its JSON keys (json:, the attribute's name where none is
  # given), so that the XML, JSON and model tests read and write the same classes.
  # A test that needs another shape (a namespace, camelCase keys, xsi:type)
  # declares its own model beside it.
  #
  # Tests use them by including the module (constants resolve through it) or
  # through a codec's own module of models, which includes this one.
  module TestModels
    class Entity
      include Wirebind::Model
      attribute :id, :string
    end

    class Version < Entity
      attribute :name, :string
      attribute :release_date, :time, xml: "releaseDate", json: "release_date"
      attribute :sequence, :integer
    end

    class Issue < Entity
      attribute :lang, :string, xml: "@lang", json: "lang"
      attribute :key, :string
      attribute :votes, :integer
      attribute :watched, :boolean
      attribute :updated, :time
      attribute :affects_versions, [Version], xml: "affectsVersions/*", json: "affects_versions"
      attribute :labels, [:string], xml: "label", json: "labels"
    end

    # One attribute of every scalar type (elements in XML).
    class AllTypes
      include Wirebind::Model
      attribute :s, :string
      attribute :i, :integer
      attribute :f, :float
      attribute :d, :decimal
      attribute :b, :boolean
      attribute :t, :time
      attribute :dt, :date
      attribute :bin, :base64
    end

    # A list of every scalar type.
    class AllLists
      include Wirebind::Model
      attribute :s, [:string]
      attribute :i, [:integer]
      attribute :f, [:float]
      attribute :d, [:decimal]
      attribute :b, [:boolean]
      attribute :t, [:time]
      attribute :dt, [:date]
      attribute :bin, [:base64]
    end

    # A value next to its qualifier: in XML the element's own text beside an
    # attribute (<price currency="EUR">12.50</price>), in JSON two members.
    class Price
      include Wirebind::Model
      xml_root "price"
      attribute :currency, :string, xml: "@currency"
      attribute :amount, :decimal, xml: ".", json: "amount"
    end

    class Note
      include Wirebind::Model
      xml_root "note"
      attribute :lang, :string, xml: "@lang"
      attribute :text, :string, xml: ".", json: "text"
    end

    # A model that contains itself, in a list and alone.
    class Node
      include Wirebind::Model
      xml_root "node"
      attribute :name, :string, xml: "@name"
      attribute :value, :integer
      attribute :children, [Node], xml: "child", json: "children"
      attribute :parent_ref, Node
    end

    # A record holding records: one, lists of them, and one of every scalar type.
    class Holder
      include Wirebind::Model
      attribute :label, :string
      attribute :main, Version
      attribute :others, [Version], xml: "other"
      attribute :notes, [Note], xml: "notes/note"
      attribute :prices, [Price], xml: "price"
      attribute :types, AllTypes
    end
  end
end

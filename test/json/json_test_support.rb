# frozen_string_literal: true

require "test_helper"
require "stringio"
require "bigdecimal"
require "date"
require_relative "../support/codec_test_helpers"

# Models and helpers shared by the JSON codec tests (test/json/**). Not a test
# file itself: every *_test.rb under test/json requires it.
module JSONTestModels
  # The models of the contract.
  class Entity
    include Wirebind::Model
    attribute :id, :string
  end

  class Version < Entity
    attribute :name, :string
    attribute :release_date, :time
    attribute :sequence, :integer
  end

  class Issue < Entity
    attribute :key, :string
    attribute :votes, :integer
    attribute :watched, :boolean
    attribute :updated, :time
    attribute :affects_versions, [Version]
    attribute :labels, [:string]
  end

  # One attribute of every scalar type.
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

  # Keys in lowerCamelCase, one renamed explicitly.
  class Camel
    include Wirebind::Model
    json_keys :camel
    attribute :release_date, :date
    attribute :fix_versions, [Version]
    attribute :time_spent, :decimal, json: "timeSpentHours"
    attribute :id, :string
  end

  # Keys a path must quote.
  class OddKeys
    include Wirebind::Model
    attribute :dotted, :integer, json: "a.b"
    attribute :spaced, :string, json: "with space"
    attribute :unicode, :integer, json: "clé"
    attribute :quoted, :integer, json: "q\"k"
  end

  # A model that contains itself.
  class Node
    include Wirebind::Model
    attribute :name, :string
    attribute :value, :integer
    attribute :children, [Node]
    attribute :parent_ref, Node
  end

  # A record holding records.
  class Holder
    include Wirebind::Model
    attribute :label, :string
    attribute :main, Version
    attribute :others, [Version]
    attribute :types, AllTypes
  end

  # A subclass adds members; its parent's decoder still reads it.
  class SpecialVersion < Version
    attribute :codename, :string
  end

  # No attributes at all.
  class Empty
    include Wirebind::Model
  end
end

module JSONTestHelpers
  include Wirebind::CodecTestHelpers

  JSON = Wirebind::JSON

  # Decodes +json+ from a String, from trickling IOs and from a read(n) IO;
  # asserts they all agree and returns the String result.
  def decode_everywhere(json, type, **options)
    expected = JSON.decode(json, type, **options)
    [1, 2, 3].each do |seed|
      assert_equal_decoded expected, JSON.decode(TrickleIO.new(json, seed: seed), type, **options),
                           "trickled input (seed #{seed}) decodes differently from a String"
    end
    assert_equal_decoded expected, JSON.decode(ReadOnlyIO.new(json, seed: 9), type, **options),
                         "input read with read(n) decodes differently from a String"
    assert_equal_decoded expected, JSON.decode(StringIO.new(json), type, **options), "a StringIO decodes differently"
    expected
  end

  # Runs +block+ with the input as a String and as trickling IOs; each must
  # raise +klass+ with the same message (so the same position).
  def assert_raises_everywhere(klass, json, &block)
    error = assert_raises(klass) { block.call(json) }
    [1, 5].each do |seed|
      other = assert_raises(klass, "trickled input (seed #{seed})") { block.call(TrickleIO.new(json, seed: seed)) }
      assert_equal error.message, other.message, "trickled input (seed #{seed}) reports the error differently"
    end
    error
  end
end

# frozen_string_literal: true

require "test_helper"
require "stringio"
require "bigdecimal"
require "date"
require_relative "../support/codec_test_helpers"
require_relative "../support/models"

# Models and helpers shared by the JSON codec tests (test/json/**). Not a test
# file itself: every *_test.rb under test/json requires it.
module JSONTestModels
  # The models of the contract (Issue, Version, AllTypes, Holder...), shared
  # with the XML tests; the ones below are JSON's own shapes.
  include Wirebind::TestModels

  # Keys in lowerCamelCase, one renamed explicitly.
  class Camel
    include Wirebind::Model
    json_keys :camel
    attribute :release_date, :date
    attribute :fix_versions, [Wirebind::TestModels::Version]
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

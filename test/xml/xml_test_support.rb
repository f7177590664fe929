# frozen_string_literal: true

require "test_helper"
require "stringio"
require "bigdecimal"
require "date"
require "tempfile"
require_relative "../support/codec_test_helpers"
require_relative "../support/models"

# Models and helpers shared by the XML codec tests (test/xml/**). Not a test file
# itself: every *_test.rb under test/xml requires it.
module XMLTestModels
  # The models of the contract (Issue, Version, AllTypes, Holder...), shared
  # with the JSON tests; the ones below are XML's own shapes.
  include Wirebind::TestModels

  # One attribute of every scalar type, as XML attributes.
  class AllTypesAttrs
    include Wirebind::Model
    xml_root "attrs"
    attribute :s, :string, xml: "@s"
    attribute :i, :integer, xml: "@i"
    attribute :f, :float, xml: "@f"
    attribute :d, :decimal, xml: "@d"
    attribute :b, :boolean, xml: "@b"
    attribute :t, :time, xml: "@t"
    attribute :dt, :date, xml: "@dt"
    attribute :bin, :base64, xml: "@bin"
  end

  # Wrappers shared between attributes, nested two deep.
  class Wrapped
    include Wirebind::Model
    attribute :title, :string
    attribute :author, :string, xml: "meta/info/author"
    attribute :created, :date, xml: "meta/info/created"
    attribute :count, :integer, xml: "meta/count"
    attribute :tags, [:string], xml: "meta/tags/tag"
    attribute :anything, [:string], xml: "extras/*"
    attribute :price, Wirebind::TestModels::Price, xml: "meta/price"
  end

  # A model with an explicit root name and a namespace with a prefix.
  class Order
    include Wirebind::Model
    xml_root "order"
    xml_namespace "urn:example:orders", prefix: "o"
    attribute :number, :string, xml: "@number"
    attribute :customer, :string
    attribute :total, :decimal
    attribute :lines, [Wirebind::TestModels::Price], xml: "lines/line"
  end

  # A model in a default namespace (no prefix).
  class Widget
    include Wirebind::Model
    xml_root "widget"
    xml_namespace "urn:example:widgets"
    attribute :name, :string
    attribute :size, :integer
  end

  # Names that only match in one namespace.
  class Qualified
    include Wirebind::Model
    xml_root "q"
    attribute :a_name, :string, xml: "{urn:a}name"
    attribute :b_name, :string, xml: "{urn:b}name"
    attribute :any_name, :string, xml: "name"
    attribute :only_a, :string, xml: "{urn:a}only"
    attribute :a_attr, :string, xml: "@{urn:a}code"
    attribute :plain_attr, :string, xml: "@plain"
  end

  # nil: :xsi on one attribute.
  class Nillable
    include Wirebind::Model
    attribute :always, :string, nil: :xsi
    attribute :count, :integer, nil: :xsi
    attribute :sometimes, :string
    attribute :when, :time, nil: :xsi
  end

  # Open content (issue 13): captured XML, nested values, QNames, in a namespace.
  class Open
    include Wirebind::Model
    xml_namespace "urn:open", prefix: "o"
    attribute :raw, :xml
    attribute :data, :any
    attribute :codes, [:qname], xml: "code"
  end
end

module XMLTestHelpers
  include Wirebind::CodecTestHelpers

  XML = Wirebind::XML

  # A write-only sink that records what an encoder wrote, and how.
  class RecordingSink
    attr_reader :writes

    def initialize
      @writes = []
    end

    def write(*strings)
      strings.each { |s| @writes << s.dup }
      strings.sum(&:bytesize)
    end

    def string
      @writes.join.force_encoding(Encoding::UTF_8)
    end
  end

  # Decodes +xml+ from a String and from trickling IOs (several read patterns,
  # readpartial and read(n)); asserts they all agree and returns the String result.
  def decode_everywhere(xml, type, **options)
    expected = XML.decode(xml, type, **options)
    [1, 2, 3].each do |seed|
      from_io = XML.decode(TrickleIO.new(xml, seed: seed), type, **options)
      assert_equal_decoded expected, from_io, "trickled input (seed #{seed}) decodes differently from a String"
    end
    from_read = XML.decode(ReadOnlyIO.new(xml, seed: 9), type, **options)
    assert_equal_decoded expected, from_read, "input read with read(n) decodes differently from a String"
    expected
  end

  # A document whose root holds +children+ (markup), with an optional prolog.
  def doc(root, children, attrs = "")
    "<#{root}#{attrs}>#{children}</#{root}>"
  end
end

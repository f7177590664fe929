# frozen_string_literal: true

require "test_helper"
require "minitest/mock"
require_relative "../support/models"

module ModelFixtures
  # Issue, Version and Entity: the models of the contract (test/support/models.rb).
  include Wirebind::TestModels

  # Fresh classes for tests that change a schema, so the fixtures above stay put.
  module Helpers
    def model(&body)
      Class.new do
        include Wirebind::Model
        class_eval(&body) if body
      end
    end

    def assert_schema_error(pattern, &block)
      error = assert_raises(Wirebind::SchemaError, &block)
      assert_match pattern, error.message
      error
    end
  end
end

class ModelDeclarationTest < Minitest::Test
  include ModelFixtures
  include ModelFixtures::Helpers

  def test_attributes_are_frozen_in_declaration_order_inherited_first
    assert_equal %i[id lang key votes watched updated affects_versions labels], Issue.attributes.map(&:name)
    assert_equal %i[id name release_date sequence], Version.attributes.map(&:name)
    assert_predicate Issue.attributes, :frozen?
    assert Issue.attributes.all?(&:frozen?)
    assert_same Entity.attributes.first, Issue.attributes.first
  end

  def test_attribute_readers
    release = Version.attributes[2]

    assert_equal :release_date, release.name
    assert_equal :@release_date, release.ivar
    assert_equal :time, release.type
    refute_predicate release, :list?
    refute_predicate release, :model?
    assert_equal "releaseDate", release.xml
    assert_equal "release_date", release.json
    assert_equal :omit, release.nil_style
    assert_equal 2, release.index
    assert_equal Version, release.owner
    assert_equal Entity, Version.attributes[0].owner
  end

  def test_list_and_model_types_record_the_item_type
    versions = Issue.attributes[6]
    labels = Issue.attributes[7]

    assert_equal Version, versions.type
    assert_predicate versions, :list?
    assert_predicate versions, :model?
    assert_equal :string, labels.type
    assert_predicate labels, :list?
    refute_predicate labels, :model?

    owner = model { attribute :owner, Entity }.attributes.first
    assert_equal Entity, owner.type
    assert_predicate owner, :model?
    refute_predicate owner, :list?
  end

  def test_index_is_the_position_in_attributes
    Issue.attributes.each_with_index { |attribute, index| assert_equal index, attribute.index }
  end

  def test_every_scalar_type_is_accepted
    klass = model { Wirebind::Types::SCALARS.each { |type| attribute :"a_#{type}", type } }

    assert_equal Wirebind::Types::SCALARS, klass.attributes.map(&:type)
    assert_equal %i[string integer float decimal boolean time date base64], Wirebind::Types::SCALARS
    assert_predicate Wirebind::Types::SCALARS, :frozen?
  end

  def test_xml_defaults_to_lower_camel_case
    klass = model do
      attribute :id, :string
      attribute :release_date, :time
      attribute :html_2_text, :string
      attribute :_private_thing, :string
      attribute :a__b, :string
    end

    assert_equal %w[id releaseDate html2Text _privateThing a__b], klass.attributes.map(&:xml)
    assert_equal %w[id release_date html_2_text _private_thing a__b], klass.attributes.map(&:json)
  end

  def test_explicit_wire_names_are_kept_and_frozen
    lang = model { attribute :lang, :string, xml: String.new("@lang"), json: String.new("language") }.attributes.first

    assert_equal "@lang", lang.xml
    assert_equal "language", lang.json
    assert_predicate lang.xml, :frozen?
    assert_predicate lang.json, :frozen?
  end

  def test_json_keys_camel_changes_default_json_keys_only
    klass = model do
      json_keys :camel
      attribute :release_date, :time
      attribute :fixed_key, :string, json: "fixed_key"
    end

    assert_equal :camel, klass.json_keys
    assert_equal %w[releaseDate fixed_key], klass.attributes.map(&:json)
  end

  def test_json_keys_applies_to_attributes_declared_before_it
    klass = model do
      attribute :release_date, :time
      attribute :fixed_key, :string, json: "fixed_key"
    end
    assert_equal :snake, klass.json_keys

    klass.json_keys :camel
    assert_equal %w[releaseDate fixed_key], klass.attributes.map(&:json)

    klass.json_keys :snake
    assert_equal %w[release_date fixed_key], klass.attributes.map(&:json)
  end

  def test_json_keys_is_inherited_and_overridable_without_touching_the_parent
    parent = model do
      json_keys :camel
      attribute :release_date, :time
    end
    child = Class.new(parent)
    assert_equal :camel, child.json_keys
    assert_equal "releaseDate", child.attributes.first.json

    child.json_keys :snake
    assert_equal "release_date", child.attributes.first.json
    assert_equal "releaseDate", parent.attributes.first.json
    assert_equal :camel, parent.json_keys
  end

  def test_json_keys_rejects_other_styles
    assert_schema_error(/json_keys: must be :snake or :camel, not :kebab/) { model.json_keys(:kebab) }
  end

  def test_nil_style
    klass = model do
      attribute :a, :string
      attribute :b, :string, nil: :xsi
      attribute :c, :string, nil: :omit
    end

    assert_equal %i[omit xsi omit], klass.attributes.map(&:nil_style)
    assert_schema_error(/\.attribute :d: nil: must be :omit or :xsi, not :empty/) do
      klass.attribute :d, :string, nil: :empty
    end
  end

  def test_unknown_option_is_a_schema_error
    assert_schema_error(/\.attribute :a: unknown option :xlm/) { model { attribute :a, :string, xlm: "a" } }
  end

  def test_wire_names_must_be_non_empty_strings
    assert_schema_error(/:a: xml: must be a non-empty String, not ""/) { model { attribute :a, :string, xml: "" } }
    assert_schema_error(/:a: xml: must be a non-empty String, not :a/) { model { attribute :a, :string, xml: :a } }
    assert_schema_error(/:a: json: must be a non-empty String, not 1/) { model { attribute :a, :string, json: 1 } }
  end

  def test_bad_types_are_schema_errors_naming_class_and_attribute
    klass = model
    stub_name(klass, "Bad")

    assert_schema_error(/\ABad\.attribute :a: unknown type :strng; a type is one of :string, /) do
      klass.attribute :a, :strng
    end
    assert_schema_error(/\ABad\.attribute :b: a list names exactly one item type, like \[:string\] or \[Version\], not \[\]/) do
      klass.attribute :b, []
    end
    assert_schema_error(/\ABad\.attribute :c: a list names exactly one item type.*not \[:string, :integer\]/) do
      klass.attribute :c, %i[string integer]
    end
    assert_schema_error(/\ABad\.attribute :d: a list of lists holds :string, :integer, :float, :boolean/) { klass.attribute :d, [[:date]] }
    assert_schema_error(/\ABad\.attribute :e: String is not a model \(it does not include Wirebind::Model\)/) do
      klass.attribute :e, String
    end
    assert_schema_error(/\ABad\.attribute :f: unknown type :nope in \[:nope\]/) { klass.attribute :f, [:nope] }
    assert_schema_error(/\ABad\.attribute :g: "string" is not a type/) { klass.attribute :g, "string" }
    assert_schema_error(/\ABad\.attribute :h: Comparable is not a type/) { klass.attribute :h, Comparable }
    assert_empty klass.attributes
  end

  def test_names_must_match_the_name_pattern
    klass = model
    ["Name", "1st", "a-b", "a b", "Äb", "١a", "a·b", "", "a?", "a="].each do |name|
      assert_schema_error(/a name starts with a lowercase letter or _/) { klass.attribute name.to_sym, :string }
    end
    # Ruby's identifiers in any script (a WSDL's Cyrillic names), as readers and keywords.
    unicode = model
    unicode.attribute :дата_документа, :string
    unicode.attribute :中文, :integer
    record = unicode.new(дата_документа: "2026", 中文: 1)
    assert_equal ["2026", 1], [record.дата_документа, record.中文] # rubocop:disable Naming/AsciiIdentifiers -- the names under test
    assert_equal record, unicode.from_json(record.to_json)
    assert_schema_error(/the name must be a Symbol, not 1/) { klass.attribute 1, :string }
    assert_empty klass.attributes

    klass.attribute "from_string", :string
    assert_equal [:from_string], klass.attributes.map(&:name)
  end

  # Names every object needs (SAML's Method, SEPA's binding) are attributes whose
  # reader is <name>_value: the keyword, to_h key and wire names keep the name.
  def test_names_every_model_needs_keep_ruby_and_read_as_name_value
    names = %i[class hash send object_id initialize to_h inspect freeze method dup then to_s to_xml to_json to_str binding]
    klass = model { names.each { |name| attribute name, :string } }
    values = names.to_h { |name| [name, "v-#{name}"] }
    record = klass.new(**values)
    assert_equal values, record.to_h
    names.each { |name| assert_equal "v-#{name}", record.public_send(:"#{name}_value"), name }
    assert_equal klass, record.class
    assert_kind_of Integer, record.hash
    assert_equal record, klass.new(**values)
    assert_equal 1, { record => 1, klass.new(**values) => 1 }.size
    assert_match(/\A#<.* method="v-method"/, record.inspect)
    assert_equal %i[public_send to_h], [record.method(:public_send).name, record.method(:to_h).name]
    record.method_value = "changed"
    assert_equal "changed", record.to_h[:method]
    %i[native pure].each do |backend|
      next if backend == :native && Wirebind.backend != :native

      assert_equal record, Wirebind::XML.decode(Wirebind::XML.encode(record, backend: backend), klass, backend: backend)
      assert_equal record, Wirebind::JSON.decode(Wirebind::JSON.encode(record, backend: backend), klass, backend: backend)
    end
    assert_schema_error(/its reader #method_value is also :method's/) { klass.attribute :method_value, :string }
    %i[__wb_load __wb_anything].each do |name|
      assert_schema_error(/names starting with __wb are wirebind's own/) { klass.attribute name, :string }
    end
  end

  def test_declaring_a_name_twice_in_one_class_is_an_error
    klass = model { attribute :a, :string }

    assert_schema_error(/\.attribute :a is declared twice/) { klass.attribute :a, :integer }
    assert_equal :string, klass.attributes.first.type
  end

  def test_schema_error_is_a_wirebind_error
    assert_operator Wirebind::SchemaError, :<, Wirebind::Error
  end

  def test_including_in_a_module_is_an_error
    assert_schema_error(/included in classes, not in/) { Module.new { include Wirebind::Model } }
  end

  def test_attribute_returns_the_attribute
    klass = model
    attribute = klass.attribute(:a, :integer)

    assert_same klass.attributes.first, attribute
  end

  def test_attribute_inspect_is_readable
    assert_equal "#<Wirebind::Model::Attribute Wirebind::TestModels::Issue#affects_versions [Wirebind::TestModels::Version] " \
                 'xml="affectsVersions/*" json="affects_versions">', Issue.attributes[6].inspect
  end

  private

  def stub_name(klass, name)
    klass.define_singleton_method(:name) { name }
  end
end

class ModelInheritanceTest < Minitest::Test
  include ModelFixtures
  include ModelFixtures::Helpers

  def test_subclass_adds_without_touching_the_parent
    parent = Class.new(Entity)
    before = parent.attributes
    child = Class.new(parent) { attribute :extra, :integer }

    assert_equal %i[id extra], child.attributes.map(&:name)
    assert_same before, parent.attributes
    assert_equal [:id], Entity.attributes.map(&:name)
    assert_raises(ArgumentError) { parent.new(extra: 1) }
    assert_equal 1, child.new(extra: 1).extra
  end

  def test_parent_additions_after_subclassing_do_not_reach_the_subclass
    parent = Class.new(Entity)
    child = Class.new(parent)
    parent.attribute :late, :string

    assert_equal %i[id late], parent.attributes.map(&:name)
    assert_equal [:id], child.attributes.map(&:name)
    assert_raises(ArgumentError) { child.new(late: "x") }
    assert_equal({ id: nil }, child.new.to_h)
  end

  def test_inherit_schema_takes_the_parents_schema_as_it_is_now
    parent = Class.new(Entity)
    child = Class.new(parent)
    parent.xml_namespace "urn:p"
    parent.attribute :late, :string
    child.inherit_schema
    child.attribute :own, :integer

    assert_equal %i[id late own], child.attributes.map(&:name)
    assert_equal %i[id late], parent.attributes.map(&:name)
    assert_equal "urn:p", child.xml_namespace_uri
    assert_equal({ id: "1", late: "x", own: 2 }, child.new(id: "1", late: "x", own: 2).to_h)
    record = child.from_xml(%(<entity xmlns="urn:p"><id>1</id><late>x</late><own>2</own></entity>))
    assert_equal({ id: "1", late: "x", own: 2 }, record.to_h)
  end

  def test_inherit_schema_comes_first_and_needs_a_model_parent
    child = Class.new(Entity) { attribute :own, :integer }
    error = assert_raises(Wirebind::SchemaError) { child.inherit_schema }
    assert_match(/inherit_schema comes before the class's own declarations/, error.message)
    assert_equal %i[id own], child.attributes.map(&:name)

    plain = Class.new { include Wirebind::Model }
    assert_raises(Wirebind::SchemaError) { plain.inherit_schema }
  end

  def test_redeclaring_an_inherited_attribute_replaces_it_in_place_in_the_subclass_only
    parent = Class.new(Entity) do
      attribute :name, :string
      attribute :count, :string
    end
    child = Class.new(parent) do
      attribute :extra, :string
      attribute :count, :integer, xml: "total"
    end

    assert_equal %i[id name count extra], child.attributes.map(&:name)
    redeclared = child.attributes[2]
    assert_equal :integer, redeclared.type
    assert_equal "total", redeclared.xml
    assert_equal 2, redeclared.index
    assert_equal child, redeclared.owner
    assert_equal :string, parent.attributes[2].type
    assert_equal parent, parent.attributes[2].owner

    built = child.__wb_build(["i", "n", 7, "e"])
    assert_equal 7, built.count
    assert_raises(Wirebind::SchemaError) { child.attribute :count, :float }
  end

  def test_grandchildren_inherit_the_whole_chain
    assert_equal [:id], Entity.attributes.map(&:name)
    grandchild = Class.new(Version) { attribute :extra, :boolean }

    assert_equal %i[id name release_date sequence extra], grandchild.attributes.map(&:name)
    assert_equal 4, grandchild.attributes.last.index
    record = grandchild.new(id: "1", sequence: 2, extra: true)
    assert_equal({ id: "1", name: nil, release_date: nil, sequence: 2, extra: true }, record.to_h)
  end

  def test_including_model_again_in_a_subclass_keeps_its_schema
    child = Class.new(Version) { include Wirebind::Model }

    assert_equal Version.attributes, child.attributes
  end

  def test_other_inherited_hooks_still_run
    seen = []
    parent = Class.new(Entity)
    parent.singleton_class.define_method(:inherited) do |subclass|
      super(subclass)
      seen << subclass.attributes.map(&:name)
    end
    Class.new(parent)

    assert_equal [[:id]], seen
  end
end

class ModelMacrosTest < Minitest::Test
  include ModelFixtures
  include ModelFixtures::Helpers

  def test_xml_namespace
    klass = model { xml_namespace "urn:example", prefix: "ex" }

    assert_equal "urn:example", klass.xml_namespace_uri
    assert_equal "ex", klass.xml_namespace_prefix
    assert_predicate klass.xml_namespace_uri, :frozen?

    klass.xml_namespace "urn:other"
    assert_equal "urn:other", klass.xml_namespace_uri
    assert_nil klass.xml_namespace_prefix
  end

  def test_xml_namespace_defaults_to_none
    assert_nil Issue.xml_namespace_uri
    assert_nil Issue.xml_namespace_prefix
  end

  def test_xml_namespace_is_inherited_and_overridable
    parent = model { xml_namespace "urn:parent", prefix: "p" }
    child = Class.new(parent)
    assert_equal ["urn:parent", "p"], [child.xml_namespace_uri, child.xml_namespace_prefix]

    child.xml_namespace nil
    assert_nil child.xml_namespace_uri
    assert_nil child.xml_namespace_prefix
    assert_equal ["urn:parent", "p"], [parent.xml_namespace_uri, parent.xml_namespace_prefix]
  end

  def test_xml_namespace_checks_its_arguments
    klass = model
    assert_raises(Wirebind::SchemaError) { klass.xml_namespace "" }
    assert_raises(Wirebind::SchemaError) { klass.xml_namespace :urn }
    assert_raises(Wirebind::SchemaError) { klass.xml_namespace "urn:x", prefix: "a:b" }
    assert_raises(Wirebind::SchemaError) { klass.xml_namespace "urn:x", prefix: "1a" }
    assert_raises(Wirebind::SchemaError) { klass.xml_namespace "urn:x", prefix: "xmlns" }
    assert_raises(Wirebind::SchemaError) { klass.xml_namespace "urn:x", prefix: :ex }
    error = assert_raises(Wirebind::SchemaError) { klass.xml_namespace nil, prefix: "ex" }
    assert_match(/"ex" cannot be a prefix without a URI/, error.message)
    assert_nil klass.xml_namespace_uri
  end

  def test_xml_root_defaults_to_the_class_name_without_modules
    assert_equal "Issue", Issue.xml_root
    assert_equal "Version", Version.xml_root
    assert_equal "Entity", Entity.xml_root
  end

  def test_xml_root_of_an_anonymous_class_is_record_until_it_is_named
    klass = model
    assert_equal "record", klass.xml_root

    ModelFixtures.const_set(:LaterNamed, klass)
    assert_equal "LaterNamed", klass.xml_root
  ensure
    ModelFixtures.__send__(:remove_const, :LaterNamed) if ModelFixtures.const_defined?(:LaterNamed, false)
  end

  def test_xml_root_set_is_inherited_and_overridable
    parent = model { xml_root "item" }
    child = Class.new(parent)
    assert_equal "item", parent.xml_root
    assert_equal "item", child.xml_root

    child.xml_root "entry"
    assert_equal "entry", child.xml_root
    assert_equal "item", parent.xml_root
  end

  def test_xml_root_must_be_an_element_name
    klass = model
    ["", "a b", "p:item", "1item"].each do |name|
      assert_raises(Wirebind::SchemaError) { klass.xml_root name }
    end
    assert_raises(Wirebind::SchemaError) { klass.xml_root :item }
    assert_equal "record", klass.xml_root
  end

  def test_from_xml_and_to_xml_hand_over_to_the_xml_codec
    issue = Issue.new(key: "A-1")
    decoded = Wirebind::XML.stub(:decode, ->(source, type, **options) { [source, type, options] }) do
      Issue.from_xml("<Issue/>", at: "a/b")
    end
    handed = nil
    encoded = Wirebind::XML.stub(:encode, ->(value, **options) { (handed = [value, options]) && "<x/>" }) do
      issue.to_xml(root: "x")
    end

    assert_equal ["<Issue/>", Issue, { at: "a/b" }], decoded
    assert_equal [issue, { root: "x" }], handed
    assert_equal "<x/>", encoded
  end
end

class ModelInstanceTest < Minitest::Test
  include ModelFixtures
  include ModelFixtures::Helpers

  def version
    Version.new(id: "v1", name: "1.0", release_date: Time.utc(2020, 1, 2), sequence: 1)
  end

  def issue
    Issue.new(id: "1", key: "A-1", votes: 3, affects_versions: [version])
  end

  def test_new_takes_keywords_and_defaults_scalars_to_nil_and_lists_to_empty
    record = Issue.new(key: "A-1", votes: 3)

    assert_equal "A-1", record.key
    assert_equal 3, record.votes
    assert_nil record.id
    assert_nil record.watched
    assert_equal [], record.labels
    assert_equal [], record.affects_versions
    refute_same Issue.new.labels, Issue.new.labels
    assert_equal [], Issue.new(labels: nil).labels
  end

  def test_new_rejects_unknown_keywords_and_positional_arguments
    error = assert_raises(ArgumentError) { Issue.new(kee: "A-1") }
    assert_match(/unknown keyword: :kee/, error.message)
    assert_raises(ArgumentError) { Issue.new("A-1") }
  end

  def test_initialize_has_real_keyword_parameters
    Issue.new # the methods are generated on first use; until then a placeholder takes **values
    parameters = Issue.instance_method(:initialize).parameters

    assert_equal Issue.attributes.map { |attribute| [:key, attribute.name] }, parameters
  end

  def test_readers_and_writers
    record = Issue.new
    record.votes = 5
    record.labels << "x"

    assert_equal 5, record.votes
    assert_equal ["x"], record.labels
    assert_equal 5, record.instance_variable_get(:@votes)
  end

  def test_equality_by_class_and_values
    assert_equal issue, issue
    assert issue.eql?(issue)
    assert_equal issue.hash, issue.hash
    refute_equal issue, Issue.new(id: "1", key: "A-2", votes: 3, affects_versions: [version])
    refute_equal issue, nil
    refute_equal Entity.new(id: "1"), Version.new(id: "1")
    refute_equal Version.new(id: "1"), Entity.new(id: "1")
  end

  def test_eql_compares_values_with_eql
    integer = Issue.new(votes: 1)
    float = Issue.new(votes: 1.0)

    assert_equal integer, float
    refute integer.eql?(float)
    assert_equal 1, { Issue.new(votes: 1) => 1 }.fetch(Issue.new(votes: 1))
  end

  def test_equality_ignores_overridden_readers
    klass = Class.new(Entity) do
      def id
        "always"
      end
    end

    refute_equal klass.new(id: "a"), klass.new(id: "b")
  end

  def test_to_h_has_every_attribute_and_converts_nested_models
    record = issue
    record.labels = %w[a b]

    assert_equal(
      {
        id: "1", lang: nil, key: "A-1", votes: 3, watched: nil, updated: nil,
        affects_versions: [{ id: "v1", name: "1.0", release_date: Time.utc(2020, 1, 2), sequence: 1 }],
        labels: %w[a b]
      },
      record.to_h
    )
    record.to_h[:labels] << "c"
    assert_equal %w[a b], record.labels
  end

  def test_to_h_of_single_model_and_nil_values
    klass = Class.new(Entity) do
      attribute :owner, ModelFixtures::Entity
      attribute :versions, [ModelFixtures::Version]
    end

    assert_equal({ id: nil, owner: { id: "o" }, versions: [] }, klass.new(owner: Entity.new(id: "o")).to_h)
    record = klass.new
    record.versions = nil
    assert_equal({ id: nil, owner: nil, versions: nil }, record.to_h)
  end

  def test_inspect_shows_what_is_set
    assert_equal '#<Wirebind::TestModels::Issue id="1" key="A-1" votes=3 affects_versions=' \
                 '[#<Wirebind::TestModels::Version id="v1" name="1.0" release_date=2020-01-02 00:00:00 UTC sequence=1>]>',
                 issue.inspect
    assert_equal "#<Wirebind::TestModels::Issue>", Issue.new.inspect
    assert_equal '#<Wirebind::TestModels::Issue watched=false labels=["x"]>', Issue.new(watched: false, labels: ["x"]).inspect
    assert_match(/\A#<#<Class:0x\h+> id="1">\z/, Class.new(Entity).new(id: "1").inspect)
  end

  def test_a_model_without_attributes
    klass = Class.new { include Wirebind::Model }

    assert_equal klass.new, klass.new
    assert_equal({}, klass.new.to_h)
    assert_raises(ArgumentError) { klass.new(a: 1) }
    assert_instance_of klass, klass.__wb_build([])
  end

  def test_ruby_keywords_work_as_attribute_names
    klass = Class.new do
      include Wirebind::Model
      attribute :begin, :integer
      attribute :end, :integer
      attribute :nil, :boolean
      attribute :self, :string
    end
    record = klass.new(begin: 1, end: 2, nil: true, self: "me")

    assert_equal [1, 2, true, "me"], [record.begin, record.end, record.nil, record.self]
    assert_equal({ begin: 1, end: 2, nil: true, self: "me" }, record.to_h)
    assert_equal record, klass.__wb_build([1, 2, true, "me"])
    assert_match(/ begin=1 end=2 nil=true self="me">\z/, record.inspect)
    assert_equal "end", klass.attributes[1].xml
  end

  def test_generated_methods_can_be_overridden_with_super
    klass = Class.new(Entity) do
      def initialize(id: "default", **rest)
        super
      end

      def inspect
        "#{super}!"
      end
    end

    assert_equal "default", klass.new.id
    assert_match(/ id="default">!\z/, klass.new.inspect)
  end

  def test_generated_methods_are_real_methods_from_generated_source
    generator = File.expand_path("../../lib/wirebind/model/generator.rb", __dir__)

    %i[initialize __wb_load == eql? hash to_h inspect].each do |name|
      method = Issue.instance_method(name)
      assert_equal generator, method.source_location&.first, "#{name} comes from the generator"
      assert_kind_of Wirebind::Model::GeneratedMethods, method.owner
    end
    assert_kind_of Wirebind::Model::GeneratedMethods, Issue.instance_method(:key).owner
    assert_equal "#<Wirebind::Model::GeneratedMethods for Wirebind::TestModels::Issue>",
                 Issue.instance_method(:initialize).owner.inspect
    refute Issue.method_defined?(:method_missing, false)
  end

  def test_methods_are_regenerated_when_an_attribute_is_added
    klass = Class.new(Entity)
    klass.attribute :size, :integer
    record = klass.new(id: "1", size: 2)

    assert_equal({ id: "1", size: 2 }, record.to_h)
    assert_equal record, klass.new(id: "1", size: 2)
    refute_equal record, klass.new(id: "1", size: 3)
    assert_equal 2, klass.ancestors.grep(Wirebind::Model::GeneratedMethods).length
  end

  def test_methods_are_written_on_first_use_once_per_change
    generator = File.expand_path("../../lib/wirebind/model/generator.rb", __dir__)
    placeholder = Wirebind::Model::Placeholders.instance_method(:to_h)
    klass = Class.new { include Wirebind::Model }
    klass.attribute :a, :integer
    klass.attribute :b, :string
    klass.attribute :c, [:string]
    assert_equal placeholder.source_location, klass.instance_method(:to_h).source_location, "declaring writes no source"

    assert_equal({ a: 1, b: "x", c: [] }, klass.new(a: 1, b: "x").to_h)
    written = klass.instance_method(:to_h)
    assert_equal generator, written.source_location.first
    refute_equal placeholder.source_location, written.source_location
    assert_equal klass.new(a: 1), klass.new(a: 1)
    assert_equal written, klass.instance_method(:to_h), "written once"

    klass.attribute :d, :integer
    assert_equal placeholder.source_location, klass.instance_method(:to_h).source_location
    assert_equal({ a: nil, b: nil, c: [], d: 4 }, klass.new(d: 4).to_h)
    refute_equal written, klass.instance_method(:to_h)
    assert_raises(ArgumentError) { klass.new(e: 1) }
  end

  def test_an_override_calling_super_into_a_placeholder_runs_once
    calls = []
    klass = Class.new do
      include Wirebind::Model
      attribute :id, :string
      define_method(:initialize) do |**values|
        calls << values
        super(**values)
      end
      define_method(:inspect) { "!#{super()}" }
    end
    record = klass.new(id: "1")
    assert_equal [{ id: "1" }], calls
    assert_equal "1", record.id
    assert_match(/\A!#<.* id="1">\z/, record.inspect)
    subclass = Class.new(klass) { attribute :name, :string }
    assert_equal({ id: "2", name: "n" }, subclass.new(id: "2", name: "n").to_h)
    assert_equal({ id: "1" }, record.to_h)
  end
end

class ModelBuildTest < Minitest::Test
  include ModelFixtures
  include ModelFixtures::Helpers

  def values
    ["1", "en", "A-1", 3, true, Time.utc(2021), nil, nil]
  end

  def test_build_sets_every_attribute_from_aligned_values
    record = Issue.__wb_build(values)

    assert_instance_of Issue, record
    assert_equal values.first(6), [record.id, record.lang, record.key, record.votes, record.watched, record.updated]
    assert_equal [], record.affects_versions
    assert_equal [], record.labels
    refute_same record.labels, Issue.__wb_build(values).labels
  end

  def test_build_sets_ivars_in_attribute_order
    skip_on_jruby "#instance_variables lists a class's variables in the order the class first met them, not the order this object got them"
    assert_equal Issue.attributes.map(&:ivar), Issue.__wb_build(values).instance_variables
    assert_equal Issue.attributes.map(&:ivar), Issue.new.instance_variables
  end

  def test_build_keeps_given_lists
    labels = %w[a b]
    row = values
    row[7] = labels

    assert_same labels, Issue.__wb_build(row).labels
  end

  def test_build_does_not_call_initialize
    klass = Class.new(Entity) do
      def initialize(**) # rubocop:disable Lint/MissingSuper -- the test checks it is never called
        raise "initialize called"
      end
    end

    assert_equal "x", klass.__wb_build(["x"]).id
  end

  def test_build_equals_new
    assert_equal Issue.new(id: "1", lang: "en", key: "A-1", votes: 3, watched: true, updated: Time.utc(2021)),
                 Issue.__wb_build(values)
  end
end

class ModelPlanTest < Minitest::Test
  include ModelFixtures
  include ModelFixtures::Helpers

  def test_plan_is_computed_once_per_class_and_format
    klass = model { attribute :a, :string }
    calls = 0
    plan = klass.wirebind_plan(:xml) { calls += 1; Object.new }

    assert_same plan, klass.wirebind_plan(:xml) { calls += 1; Object.new }
    assert_equal 1, calls
    refute_same plan, klass.wirebind_plan(:json) { calls += 1; Object.new }
    assert_equal 2, calls
  end

  def test_plans_are_per_class
    parent = model { attribute :a, :string }
    child = Class.new(parent)
    parent_plan = parent.wirebind_plan(:xml) { :parent }

    assert_equal :child, child.wirebind_plan(:xml) { :child }
    assert_equal parent_plan, parent.wirebind_plan(:xml) { :other }
  end

  def test_every_schema_change_clears_the_plans
    klass = model { attribute :a, :string }
    changes = {
      attribute: -> { klass.attribute :"b#{klass.attributes.size}", :string },
      xml_namespace: -> { klass.xml_namespace "urn:x" },
      xml_root: -> { klass.xml_root "thing" },
      json_keys: -> { klass.json_keys :camel }
    }

    changes.each do |change, action|
      before = klass.wirebind_plan(:xml) { Object.new }
      action.call
      after = klass.wirebind_plan(:xml) { Object.new }
      refute_same before, after, "#{change} clears the plan"
      assert_same after, klass.wirebind_plan(:xml) { Object.new }
    end
  end

  # A plan may copy the plans of classes it holds (PlanGenerationTest): any
  # model's change makes every plan again on its next use, once.
  def test_another_class_change_makes_the_plan_again_once
    parent = model { attribute :a, :string }
    plan = parent.wirebind_plan(:xml) { Object.new }
    assert_same plan, parent.wirebind_plan(:xml) { Object.new }
    Class.new(parent) { attribute :b, :string }

    again = parent.wirebind_plan(:xml) { Object.new }
    refute_same plan, again
    assert_same again, parent.wirebind_plan(:xml) { Object.new }
  end

  # A plan must come from one schema throughout: one computed while the
  # schema changed is computed again, and the second one is kept.
  def test_a_plan_computed_while_the_schema_changed_is_computed_again
    klass = model { attribute :a, :string }
    runs = 0
    plan = klass.wirebind_plan(:xml) do
      runs += 1
      klass.attribute :b, :string if runs == 1
      [runs, klass.attributes.map(&:name)]
    end

    assert_equal [2, %i[a b]], plan
    assert_same plan, klass.wirebind_plan(:xml) { :not_again }
  end

  def test_builders_are_per_schema_and_never_redefined
    klass = model { attribute :a, :string }
    load, fill = klass.__wb_builders

    assert_same load, klass.__wb_builders.first
    klass.attribute :b, :string
    new_load, new_fill = klass.__wb_builders

    refute_equal load, new_load
    assert_equal "x", klass.allocate.__send__(fill, "x").a
    assert_equal(%w[x y], klass.allocate.__send__(new_fill, "x", "y").then { |r| [r.a, r.b] })
    refute klass.allocate.__send__(load, %w[x y]).instance_variable_defined?(:@b)
  end

  def test_concurrent_plans_are_consistent
    klass = model { attribute :a, :string }
    formats = %i[xml json msgpack]
    threads = Array.new(8) do
      Thread.new do
        formats.map { |format| klass.wirebind_plan(format) { Thread.pass; [format, klass.attributes.length] } }
      end
    end
    results = threads.map(&:value)

    results.each { |plans| assert_equal [[:xml, 1], [:json, 1], [:msgpack, 1]], plans }
    formats.each { |format| assert_equal [format, 1], klass.wirebind_plan(format) { flunk "plan was not kept" } }
  end

  def test_an_open_enum_keeps_unknown_values_on_decode_and_refuses_them_on_encode
    klass = Class.new do
      include Wirebind::Model
      attribute :state, :string, enum: %w[on off], open_enum: true
      attribute :states, [:string], xml: "s", enum: %w[on off], open_enum: true
    end
    record = Wirebind::XML.decode("<r><state>standby</state><s>on</s><s>dim</s></r>", klass)
    assert_equal ["standby", %w[on dim]], [record.state, record.states]
    assert_equal "standby", Wirebind::JSON.decode('{"state":"standby"}', klass).state
    assert_raises(Wirebind::EncodeError) { Wirebind::XML.encode(record, root: "r") }
    assert_raises(Wirebind::EncodeError) { Wirebind::JSON.encode(klass.new(state: "standby")) }
    assert_equal "<r><state>on</state></r>", Wirebind::XML.encode(klass.new(state: "on"), root: "r")
    error = assert_raises(Wirebind::SchemaError) { Class.new { include Wirebind::Model }.attribute(:x, :string, open_enum: true) }
    assert_match(/open_enum: needs an enum:/, error.message)
  end
end

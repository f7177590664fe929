# frozen_string_literal: true

require_relative "serializer_test_support"
require "set"

# Serializers read any object through its readers (issue 12): Structs,
# Data-like value objects, plain objects with attr_readers, ActiveRecord-like
# rows whose associations are Enumerable relations. The output is the same as
# for the equivalent models, in every format and on both backends (the
# native engine reads them through their readers; native_differential_test.rb
# holds it to the generated Ruby).
class SerializerReadersTest < Minitest::Test
  include SerializerTestSupport

  ProjectStruct = Struct.new(:id, :name)
  VersionStruct = Struct.new(:id, :name, :release_date, :sequence, keyword_init: true)

  # A value object as Data (Ruby 3.2) makes them: frozen, readers only.
  class IssueValue
    attr_reader :id, :key, :summary, :votes, :project, :affects_versions

    def initialize(id:, key:, summary:, votes:, project:, affects_versions:)
      @id = id
      @key = key
      @summary = summary
      @votes = votes
      @project = project
      @affects_versions = affects_versions
      freeze
    end
  end

  # ActiveRecord-like: attribute methods defined by the class, an association
  # that is an Enumerable relation (not an Array), a private helper.
  class Relation
    include Enumerable

    def initialize(rows)
      @rows = rows
    end

    def each(&block)
      @rows.each(&block)
    end
  end

  class IssueRecord
    %w[id key summary votes project].each do |name|
      define_method(name) { @attributes[name] }
    end

    def initialize(attributes, versions)
      @attributes = attributes
      @versions = versions
    end

    def affects_versions
      Relation.new(@versions)
    end

    private

    def secret
      "not a reader"
    end
  end

  def plain_issues
    shared = VersionStruct.new(id: "v1", name: "1.0", sequence: 1, release_date: Time.utc(2014, 3, 1, 10, 0, 0))
    second = VersionStruct.new(id: "v2", name: "2.0 «beta»", sequence: 2)
    owner = ProjectStruct.new("P1", "Wirebind")
    [
      IssueValue.new(id: "1", key: "WB-1", summary: "Crash on \"save\"", votes: 3, project: owner, affects_versions: [shared, second]),
      IssueRecord.new({ "id" => "2", "key" => "WB-2", "summary" => "café ✓", "votes" => nil, "project" => owner }, [shared])
    ]
  end

  def test_plain_objects_give_the_models_output_in_every_format
    %i[plain hal json_api siren].each do |format|
      backends = Wirebind.backend == :native ? %i[native pure] : %i[pure]
      backends.each do |backend|
        expected = IssueSerializer.new(issues, format: format, backend: backend).to_json
        assert_equal expected, IssueSerializer.new(plain_issues, format: format, backend: backend).to_json, "#{format} on #{backend}"
        assert_equal IssueSerializer.new(issues.first, format: format, backend: backend).to_json,
                     IssueSerializer.new(plain_issues.first, format: format, backend: backend).to_json, "#{format} on #{backend}, one record"
      end
    end
  end

  def test_records_of_several_classes_and_models_mix
    mixed = [issues.first, plain_issues.last]
    assert_equal IssueSerializer.new(issues, format: :hal).to_json, IssueSerializer.new(mixed, format: :hal).to_json
    io = StringIO.new
    IssueSerializer.new(plain_issues, format: :json_api).to_json(io: io)
    assert_equal IssueSerializer.new(issues, format: :json_api).to_json, io.string
  end

  def test_values_are_written_by_their_class
    row = Struct.new(:name, :count, :ratio, :price, :on, :at, :day, :tags, :extra)
    serializer = Class.new(Wirebind::Serializer) { attributes(*row.members) }
    record = row.new("n", 2, 1.5, BigDecimal("3.10"), true, Time.utc(2020, 1, 2, 3, 4, 5), Date.new(2020, 1, 2), ["a", 1], { "k" => nil })
    assert_equal '{"name":"n","count":2,"ratio":1.5,"price":3.1,"on":true,"at":"2020-01-02T03:04:05Z","day":"2020-01-02",' \
                 '"tags":["a",1],"extra":{"k":null}}', serializer.new(record).to_json
  end

  def test_a_missing_reader_or_an_unwritable_value_is_an_encode_error_with_its_path
    error = assert_raises(Wirebind::EncodeError) { IssueSerializer.new([plain_issues.first, Object.new]).to_json }
    assert_match(/IssueSerializer reads #summary, which Object does not have/, error.message)
    assert_equal "[1]", error.path
    hidden = Class.new(Wirebind::Serializer) { attributes :secret }
    assert_raises(Wirebind::EncodeError) { hidden.new(plain_issues.last).to_json }
    error = assert_raises(Wirebind::EncodeError) { IssueSerializer.new(ProjectStruct.new("x", Object.new), format: :hal).to_json }
    assert_match(/reads #summary/, error.message)
    bad = Class.new(Wirebind::Serializer) { attributes :name }
    error = assert_raises(Wirebind::EncodeError) { bad.new([ProjectStruct.new("x", "ok"), ProjectStruct.new("y", Object.new)]).to_json }
    assert_equal "[1].name", error.path
    assert_match(/cannot write Object/, error.message)
  end

  def test_a_declared_model_still_refuses_other_models
    typed = Class.new(Wirebind::Serializer) { model Project; attributes :name }
    assert_raises(Wirebind::EncodeError) { typed.new(Issue.new).to_json }
    assert_equal '{"name":"x"}', typed.new(ProjectStruct.new("1", "x")).to_json
  end

  # A model's values are its instance variables, in every format, on both
  # backends: its readers (overridden in a subclass or on one record) are
  # never called for its attributes (link blocks get the record and call what
  # they like). Objects that are not models are read through their readers.
  def test_a_models_values_are_its_instance_variables
    overriding = Class.new(Issue) do
      def summary = "from the reader"
      def votes = 99
    end
    record = overriding.new(**issues.first.to_h.except(:project, :affects_versions),
                            project: issues.first.project, affects_versions: issues.first.affects_versions)
    record.define_singleton_method(:project) { nil }
    record.define_singleton_method(:affects_versions) { [] }
    %i[plain hal json_api siren].each do |format|
      backends = Wirebind.backend == :native ? %i[native pure] : %i[pure]
      backends.each do |backend|
        expected = IssueSerializer.new(issues.first, format: format, backend: backend).to_json
        assert_equal expected, IssueSerializer.new(record, format: format, backend: backend).to_json, "#{format} on #{backend}"
        assert_equal IssueSerializer.new([issues.first], format: format, backend: backend).to_json,
                     IssueSerializer.new([record], format: format, backend: backend).to_json, "#{format} on #{backend}, a list"
      end
    end
  end
end

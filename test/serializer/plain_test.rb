# frozen_string_literal: true

require_relative "serializer_test_support"

# format: :plain, the JSON mapping of values (the same as Wirebind::JSON's),
# IO output, to_h, and living inside the json library's documents.
class SerializerPlainTest < Minitest::Test
  include SerializerTestSupport

  class EveryAttribute < Wirebind::Serializer
    attributes :id, :text, :count, :ratio, :amount, :flag, :at_time, :on_date, :bytes, :times, :inner
  end

  # What a serializer writes, JSON.decode (and #to_h) reads back.
  def test_numbers_longer_than_max_number_length_are_encode_errors
    limit = Wirebind::JSON::DEFAULT_LIMITS[:max_number_length]
    %i[pure native].select { |b| b == :pure || Wirebind.backend == :native }.each do |backend|
      assert_equal 10**(limit - 1), EveryAttribute.new(AllTypes.new(count: 10**(limit - 1)), backend: backend).to_h["count"]
      error = assert_raises(Wirebind::EncodeError) { EveryAttribute.new(AllTypes.new(count: 10**limit), backend: backend).to_json }
      assert_match(/longer than max_number_length \(#{limit}\)/, error.message)
      error = assert_raises(Wirebind::EncodeError) { EveryAttribute.new(AllTypes.new(amount: BigDecimal("1.#{'1' * limit}")), backend: backend).to_json }
      assert_match(/longer than max_number_length \(#{limit}\)/, error.message)
    end
  end

  def test_the_same_text_as_wirebind_json_for_every_attribute
    record = AllTypes.new(id: 1, text: "q\" \\ \n é 🚀 \u2028", count: -12, ratio: 0.1, amount: BigDecimal("12.50"), flag: false,
                          at_time: Time.new(2014, 3, 1, 10, 0, Rational(1, 2), "+05:30"), on_date: Date.new(2014, 3, 1),
                          bytes: "\x00\xFF".b, times: [Time.utc(2014, 1, 1), nil], inner: project)
    assert_equal Wirebind::JSON.encode(record), EveryAttribute.new(record).to_json
    assert_equal Wirebind::JSON.encode(AllTypes.new), EveryAttribute.new(AllTypes.new).to_json
    list = [record, AllTypes.new(text: "x")]
    assert_equal Wirebind::JSON.encode(list), EveryAttribute.new(list).to_json
    assert_includes EveryAttribute.new(record).to_json, '"atTime":"2014-03-01T10:00:00.5+05:30","onDate":"2014-03-01","bytes":"AP8="'
  end

  # Alba's transform_keys: the keys of attributes and relations declared
  # without key:, from their Ruby names; an explicit key: is kept as given.
  def test_key_transforms_on_both_backends
    expected = {
      camel: %w[Summary AffectsVersions Name ReleaseDate],
      lower_camel: %w[summary affectsVersions name releaseDate],
      dash: %w[summary affects-versions name release-date]
    }
    expected.each do |style, (summary, versions, name, date)|
      version = Class.new(Wirebind::Serializer) do
        transform_keys style
        attributes :name, :release_date
      end
      issue = Class.new(Wirebind::Serializer) do
        transform_keys style
        attributes :summary
        attribute :votes, key: "VOTES"
        many :affects_versions, version
      end
      %i[pure native].select { |b| b == :pure || Wirebind.backend == :native }.each do |backend|
        hash = ::JSON.parse(issue.new(issues.first, backend: backend).to_json)
        assert_equal [summary, "VOTES", versions], hash.keys, "#{style} on #{backend}"
        assert_equal [name, date], hash[versions].first.keys, "#{style} on #{backend}"
      end
    end
    assert_raises(Wirebind::SchemaError) { Class.new(Wirebind::Serializer) { transform_keys :kebab } }
    assert_nil Class.new(Wirebind::Serializer).transform_keys
  end

  def test_nested_records
    json = IssueSerializer.new(issues.first).to_json
    assert_equal({ "summary" => "Crash on \"save\"", "votes" => 3,
                   "affects_versions" => [{ "name" => "1.0", "release_date" => "2014-03-01T10:00:00Z", "sequence" => 1 },
                                          { "name" => "2.0 «beta»", "release_date" => nil, "sequence" => 2 }],
                   "project" => { "name" => "Wirebind" } }, parse(json))
    issue = Issue.new(affects_versions: nil, project: nil)
    assert_equal '{"summary":null,"votes":null,"affects_versions":[],"project":null}', IssueSerializer.new(issue).to_json
    issue.affects_versions = [nil]
    assert_equal '{"summary":null,"votes":null,"affects_versions":[null],"project":null}', IssueSerializer.new(issue).to_json
    assert_equal "null", IssueSerializer.new(nil).to_json
    assert_equal "[null]", IssueSerializer.new([nil]).to_json
  end

  def test_keys_renamed
    renamed = Class.new(Wirebind::Serializer) do
      attribute :summary, key: "title"
      many :affects_versions, VersionSerializer, key: "versions"
    end
    assert_equal '{"title":"s","versions":[]}', renamed.new(Issue.new(summary: "s")).to_json
  end

  def test_io_output
    list = issues * 400
    io = StringIO.new
    written = IssueSerializer.new(list, format: :hal).to_json(io: io)
    assert_equal IssueSerializer.new(list, format: :hal).to_json, io.string
    assert_equal io.string.bytesize, written
    %i[plain json_api siren].each do |format|
      io = StringIO.new
      IssueSerializer.new(list, format: format).to_json(io: io)
      assert_equal IssueSerializer.new(list, format: format).to_json, io.string.force_encoding(Encoding::UTF_8)
    end
    assert_raises(ArgumentError) { IssueSerializer.new(list).to_json(io: "not an io") }
  end

  def test_to_h_and_the_json_library
    assert_equal parse(IssueSerializer.new(issues, format: :siren).to_json), IssueSerializer.new(issues, format: :siren).to_h
    assert_equal IssueSerializer.new(issues).to_h, IssueSerializer.new(issues).as_json
    page = ::JSON.generate({ "page" => 1, "issues" => IssueSerializer.new(issues, format: :hal) })
    assert_equal({ "page" => 1, "issues" => IssueSerializer.new(issues, format: :hal).to_h }, ::JSON.parse(page))
  end

  def test_options
    assert_raises(ArgumentError) { IssueSerializer.new(issues, format: :xml) }
    assert_raises(ArgumentError) { IssueSerializer.new(issues, format: :hal, rel: "") }
    assert_equal :hal, IssueSerializer.new(issues, format: :hal).format
    assert_equal issues, IssueSerializer.new(issues).resource
  end
end

# frozen_string_literal: true

require "test_helper"
require "json"
require "bigdecimal"
require "date"
require "stringio"
require "time"
require_relative "../support/models"

# Models, serializers and helpers shared by the serializer tests
# (test/serializer/**). Not a test file itself.
module SerializerTestSupport
  # Oat (0.6.1) warns under -w (its class attributes redefine methods): its
  # serializers are defined and run with warnings off, wirebind's never are.
  def self.quietly
    verbose = $VERBOSE
    $VERBOSE = nil
    yield
  ensure
    $VERBOSE = verbose
  end

  quietly do
    require "oat"
    require "oat/adapters/hal"
    require "oat/adapters/json_api"
    require "oat/adapters/siren"
  end

  # The models of the contract, with a record in each direction.
  class Project
    include Wirebind::Model
    attribute :id, :string
    attribute :name, :string
  end

  # The contract's Version (test/support/models.rb); the Issue here has a
  # serializer's shape (a project, a summary, a decimal and a date).
  Version = Wirebind::TestModels::Version

  class Issue
    include Wirebind::Model
    attribute :id, :string
    attribute :key, :string
    attribute :summary, :string
    attribute :votes, :integer
    attribute :watched, :boolean
    attribute :spent, :decimal
    attribute :due, :date
    attribute :labels, [:string]
    attribute :project, Project
    attribute :affects_versions, [Version]
  end

  # One attribute of every scalar type, and a list of one.
  class AllTypes
    include Wirebind::Model
    json_keys :camel
    attribute :id, :integer
    attribute :text, :string
    attribute :count, :integer
    attribute :ratio, :float
    attribute :amount, :decimal
    attribute :flag, :boolean
    attribute :at_time, :time
    attribute :on_date, :date
    attribute :bytes, :base64
    attribute :times, [:time]
    attribute :inner, Project
  end

  class VersionSerializer < Wirebind::Serializer
    type "version"
    attributes :name, :release_date, :sequence
    link(:self) { |version| "/versions/#{version.id}" }
  end

  class ProjectSerializer < Wirebind::Serializer
    type "project"
    attributes :name
    link(:self) { |project| "/projects/#{project.id}" }
  end

  class IssueSerializer < Wirebind::Serializer
    type "issue"
    id :key
    attributes :summary, :votes
    link(:self) { |issue| "/issues/#{issue.key}" }
    many :affects_versions, VersionSerializer
    one :project, ProjectSerializer
  end

  module_function

  def project(id = "P1", name = "Wirebind")
    Project.new(id: id, name: name)
  end

  def version(id, name, sequence, release_date = nil)
    Version.new(id: id, name: name, sequence: sequence, release_date: release_date)
  end

  # Two issues sharing a project and a version.
  def issues
    shared = version("v1", "1.0", 1, Time.utc(2014, 3, 1, 10, 0, 0))
    [
      Issue.new(id: "1", key: "WB-1", summary: "Crash on \"save\"", votes: 3, project: project,
                affects_versions: [shared, version("v2", "2.0 «beta»", 2)]),
      Issue.new(id: "2", key: "WB-2", summary: "café ✓", votes: nil, project: project, affects_versions: [shared])
    ]
  end

  def parse(json)
    assert_kind_of String, json
    assert_equal Encoding::UTF_8, json.encoding
    assert json.valid_encoding?
    ::JSON.parse(json)
  end

  # Loads Alba (the Gemfile's bench group): in CI it must be there; locally
  # the test is skipped, naming it.
  def require_alba
    require "alba"
  rescue LoadError
    raise if ENV["CI"]

    skip "alba is not installed (the Gemfile's bench group)"
  end

  # Oat's hash, as JSON: symbols become strings.
  def oat_json(serializer)
    SerializerTestSupport.quietly { ::JSON.parse(::JSON.generate(serializer.to_hash)) }
  end
end

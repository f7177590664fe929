# frozen_string_literal: true

# `ruby bench/serializer.rb` (or `bundle exec rake bench:serializer`):
# Wirebind::Serializer against the hypermedia and plain-JSON serializers
# people use, on the generator's 1000 issues (as models, built once).
#
# HAL, the issues as a HAL collection ({"_embedded": {"item": [...]}}), each
# issue with a self link and its versions, components and custom fields
# embedded (versions with a self link of their own):
#   wirebind                 IssueSerializer.new(issues, format: :hal).to_json (the
#                            native engine when the extension is loaded; the pure
#                            backend's time is shown too, backend: :pure)
#   oat                      Oat::Adapters::HAL serializers, then JSON.generate
#   alba                     Alba resources shaped as HAL (_links and _embedded
#                            members), then JSON.generate (Alba's default backend)
# plain JSON, every attribute, nested records as objects:
#   wirebind                 IssueSerializer.new(issues).to_json
#   panko                    Panko::ArraySerializer (C, writing through Oj)
#   alba                     Alba resources, then JSON.generate
# and, for reference, Wirebind::JSON.encode(issues), which writes the same
# plain document from the model alone.
# plain JSON from plain objects (the same issues as Structs, no models): the
# serializers read them through their readers:
#   wirebind                 IssueSerializer.new(structs).to_json (the native engine
#                            reading through the readers, values written by their class;
#                            the pure backend's generated Ruby timed too)
#   panko, alba              the same serializers as above, on the Structs
# JSON:API, a compound document (every issue's versions, components and custom
# fields in "included", once each):
#   wirebind                 ApiIssueSerializer.new(issues, format: :json_api).to_json
#                            (the native engine when the extension is loaded, whose
#                            bytes are checked equal to the pure backend's, also timed)
#   jsonapi-serializer       JSONAPI::Serializer classes, include: every relation,
#                            serializable_hash, then JSON.generate
#   alba                     Alba resources shaped as JSON:API (type, id, nested
#                            attributes, relationships, links) and included records
#                            gathered once each by hand, then JSON.generate: Alba has
#                            no JSON:API mode (its README: "JSON:API compliance: manual")
# The peers order "included" differently: the check compares it sorted by type and id.
# computed and conditional attributes (a block, a serializer method, an if:), the
# issues' key, summary, headline, votes (when not nil) and score:
#   wirebind                 ComputedIssueSerializer, plain and JSON:API
#   alba                     the same Alba resource (plain)
#   jsonapi-serializer       the same JSONAPI::Serializer (JSON:API)
#
# The peers format values the way wirebind does, so that the documents are
# the same: times as xs:dateTime with their offsets and the fewest fraction
# digits, dates as YYYY-MM-DD, decimals as numbers (exact through JSON.generate;
# Panko writes through Oj, which gets a Float: the same number once parsed).
# Every contender's output is first checked: JSON.parse of it must equal
# JSON.parse of wirebind's, and one mismatch aborts before anything is timed.
# Then every contender of a section runs once per round, BENCH_RUNS rounds in
# a rotating order after a warm-up (Bench::Clock.interleaved): the mean CPU
# time of a run, with the garbage collector enabled and the collections inside
# the timed windows counted, is the figure, and the ratios come from the
# means; the best run, GC and allocations per issue are printed beside it.
# `ruby --yjit bench/serializer.rb` shows them under YJIT.
#
# Environment: BENCH_COUNT=1000, BENCH_SEED=1, BENCH_RUNS=20.

lib = File.expand_path("../lib", __dir__)
$LOAD_PATH.unshift(lib) unless $LOAD_PATH.include?(lib)
$stdout.sync = true

require "json"
require "bigdecimal"
require "date"
require "wirebind"
require "oat"
require "oat/adapters/hal"
require "alba"
require "active_support"
require "panko_serializer"
require "active_support/core_ext/object/blank"
require "active_support/core_ext/string/inflections"
require "jsonapi/serializer"
require_relative "clock"
require_relative "generator"

module Bench
  # The serializer benchmark.
  module SerializerRun
    COUNT = Integer(ENV.fetch("BENCH_COUNT", "1000"))
    SEED = Integer(ENV.fetch("BENCH_SEED", "1"))
    RUNS = Integer(ENV.fetch("BENCH_RUNS", "20"))

    ISSUE_ATTRIBUTES = %i[
      id key summary description type status priority resolution assignee reporter project
      environment created updated duedate votes watched lang time_spent labels
    ].freeze
    VERSION_ATTRIBUTES = %i[id name archived released release_date sequence].freeze

    # ---- wirebind -------------------------------------------------------------

    class VersionSerializer < Wirebind::Serializer
      type "version"
      attributes(*VERSION_ATTRIBUTES)
      link(:self) { |version| "/versions/#{version.id}" }
    end

    class ComponentSerializer < Wirebind::Serializer
      type "component"
      attributes :id, :name
    end

    class CustomFieldSerializer < Wirebind::Serializer
      type "custom_field"
      attributes :id, :key, :values
    end

    class IssueSerializer < Wirebind::Serializer
      type "issue"
      model Issue
      attributes(*ISSUE_ATTRIBUTES)
      link(:self) { |issue| "/issues/#{issue.key}" }
      many :affects_versions, VersionSerializer
      many :fix_versions, VersionSerializer
      many :components, ComponentSerializer
      many :custom_field_values, CustomFieldSerializer
    end

    # Computed attributes (a block, a method) and a conditional one, for the
    # "computed and conditional" section (plain and JSON:API).
    class ComputedIssueSerializer < Wirebind::Serializer
      type "issue"
      model Issue
      attributes :key, :summary
      attribute(:headline) { |issue| "#{issue.key}: #{issue.summary}" }
      attribute :votes, if: ->(issue) { !issue.votes.nil? }
      attribute :score

      def score(issue)
        (issue.votes || 0) * 10
      end
    end

    # JSON:API reserves "type" for the resource's type: the issue's is issue_type.
    class ApiIssueSerializer < Wirebind::Serializer
      type "issue"
      model Issue
      attributes(*(ISSUE_ATTRIBUTES - %i[type]))
      attribute :type, key: "issue_type"
      link(:self) { |issue| "/issues/#{issue.key}" }
      many :affects_versions, VersionSerializer
      many :fix_versions, VersionSerializer
      many :components, ComponentSerializer
      many :custom_field_values, CustomFieldSerializer
    end

    # ---- what the peers need to write the same values -------------------------

    module Format
      module_function

      # xs:dateTime, the offset kept, the fewest fraction digits.
      def time(value)
        return nil unless value

        text = value.strftime("%Y-%m-%dT%H:%M:%S")
        nanoseconds = value.nsec
        text << "." << format("%09d", nanoseconds).sub(/0+\z/, "") unless nanoseconds.zero?
        text << (value.utc? ? "Z" : value.strftime("%:z"))
      end

      def date(value)
        value&.iso8601
      end

      # A number JSON.generate writes as it stands (it would quote a BigDecimal).
      def decimal(value)
        value && RawNumber.new(value.to_s("F"))
      end
    end

    # What JSON.generate writes raw: the json library has no number fragment before 2.10.
    class RawNumber
      def initialize(text)
        @text = text
      end

      def to_json(*)
        @text
      end
    end

    # ---- oat (HAL) --------------------------------------------------------------

    class OatVersion < Oat::Serializer
      adapter Oat::Adapters::HAL

      schema do
        link :self, href: "/versions/#{item.id}"
        property :id, item.id
        property :name, item.name
        property :archived, item.archived
        property :released, item.released
        property :release_date, Format.time(item.release_date)
        property :sequence, item.sequence
      end
    end

    class OatComponent < Oat::Serializer
      adapter Oat::Adapters::HAL

      schema do
        property :id, item.id
        property :name, item.name
      end
    end

    class OatCustomField < Oat::Serializer
      adapter Oat::Adapters::HAL

      schema do
        property :id, item.id
        property :key, item.key
        property :values, item.values
      end
    end

    class OatIssue < Oat::Serializer
      adapter Oat::Adapters::HAL

      schema do
        link :self, href: "/issues/#{item.key}"
        %i[id key summary description type status priority resolution assignee reporter project
           environment votes watched lang labels].each { |name| property name, item.public_send(name) }
        property :created, Format.time(item.created)
        property :updated, Format.time(item.updated)
        property :duedate, Format.date(item.duedate)
        property :time_spent, Format.decimal(item.time_spent)
        entities :affects_versions, item.affects_versions, OatVersion
        entities :fix_versions, item.fix_versions, OatVersion
        entities :components, item.components, OatComponent
        entities :custom_field_values, item.custom_field_values, OatCustomField
      end
    end

    class OatIssues < Oat::Serializer
      adapter Oat::Adapters::HAL

      schema do
        entities :item, item, OatIssue
      end
    end

    # ---- alba -------------------------------------------------------------------

    class AlbaVersion
      include Alba::Resource

      attributes :id, :name, :archived, :released, :sequence
      attribute(:release_date) { |version| Format.time(version.release_date) }
    end

    class AlbaVersionHal < AlbaVersion
      attribute(:_links) { |version| { self: { href: "/versions/#{version.id}" } } }
    end

    class AlbaComponent
      include Alba::Resource

      attributes :id, :name
    end

    class AlbaCustomField
      include Alba::Resource

      attributes :id, :key, :values
    end

    class AlbaIssue
      include Alba::Resource

      attributes :id, :key, :summary, :description, :type, :status, :priority, :resolution, :assignee,
                 :reporter, :project, :environment, :votes, :watched, :lang, :labels
      attribute(:created) { |issue| Format.time(issue.created) }
      attribute(:updated) { |issue| Format.time(issue.updated) }
      attribute(:duedate) { |issue| Format.date(issue.duedate) }
      attribute(:time_spent) { |issue| Format.decimal(issue.time_spent) }
    end

    class AlbaIssuePlain < AlbaIssue
      many :affects_versions, resource: AlbaVersion
      many :fix_versions, resource: AlbaVersion
      many :components, resource: AlbaComponent
      many :custom_field_values, resource: AlbaCustomField
    end

    class AlbaIssueHal < AlbaIssue
      attribute(:_links) { |issue| { self: { href: "/issues/#{issue.key}" } } }
      nested :_embedded do
        many :affects_versions, resource: AlbaVersionHal
        many :fix_versions, resource: AlbaVersionHal
        many :components, resource: AlbaComponent
        many :custom_field_values, resource: AlbaCustomField
      end
    end

    # ---- JSON:API ----------------------------------------------------------------

    class JsonapiVersion
      include JSONAPI::Serializer

      set_type :version
      attributes :name, :archived, :released, :sequence
      attribute(:release_date) { |version| Format.time(version.release_date) }
      link(:self) { |version| "/versions/#{version.id}" }
    end

    class JsonapiComponent
      include JSONAPI::Serializer

      set_type :component
      attributes :name
    end

    class JsonapiCustomField
      include JSONAPI::Serializer

      set_type :custom_field
      attributes :key, :values
    end

    class JsonapiIssue
      include JSONAPI::Serializer

      set_type :issue
      attributes :key, :summary, :description, :status, :priority, :resolution, :assignee,
                 :reporter, :project, :environment, :votes, :watched, :lang, :labels
      attribute(:issue_type, &:type)
      attribute(:created) { |issue| Format.time(issue.created) }
      attribute(:updated) { |issue| Format.time(issue.updated) }
      attribute(:duedate) { |issue| Format.date(issue.duedate) }
      attribute(:time_spent) { |issue| Format.decimal(issue.time_spent) }
      has_many(:affects_versions, serializer: JsonapiVersion, id_method_name: :id, &:affects_versions)
      has_many(:fix_versions, serializer: JsonapiVersion, id_method_name: :id, &:fix_versions)
      has_many(:components, serializer: JsonapiComponent, id_method_name: :id, &:components)
      has_many(:custom_field_values, serializer: JsonapiCustomField, id_method_name: :id, &:custom_field_values)
      link(:self) { |issue| "/issues/#{issue.key}" }
    end

    JSONAPI_INCLUDE = %i[affects_versions fix_versions components custom_field_values].freeze

    class AlbaVersionApi
      include Alba::Resource

      attribute(:type) { "version" }
      attributes :id
      nested :attributes do
        attributes :name, :archived, :released, :sequence
        attribute(:release_date) { |version| Format.time(version.release_date) }
      end
      attribute(:links) { |version| { self: "/versions/#{version.id}" } }
    end

    class AlbaComponentApi
      include Alba::Resource

      attribute(:type) { "component" }
      attributes :id
      nested(:attributes) { attributes :name }
    end

    class AlbaCustomFieldApi
      include Alba::Resource

      attribute(:type) { "custom_field" }
      attributes :id
      nested(:attributes) { attributes :key, :values }
    end

    class AlbaIssueApi
      include Alba::Resource

      RELATIONS = { affects_versions: "version", fix_versions: "version", components: "component",
                    custom_field_values: "custom_field" }.freeze

      attribute(:type) { "issue" }
      attributes :id
      nested :attributes do
        attributes :key, :summary, :description, :status, :priority, :resolution, :assignee,
                   :reporter, :project, :environment, :votes, :watched, :lang, :labels
        attribute(:issue_type, &:type)
        attribute(:created) { |issue| Format.time(issue.created) }
        attribute(:updated) { |issue| Format.time(issue.updated) }
        attribute(:duedate) { |issue| Format.date(issue.duedate) }
        attribute(:time_spent) { |issue| Format.decimal(issue.time_spent) }
      end
      attribute(:relationships) do |issue|
        RELATIONS.to_h do |name, type|
          [name, { data: issue.public_send(name).map { |record| { type: type, id: record.id } } }]
        end
      end
      attribute(:links) { |issue| { self: "/issues/#{issue.key}" } }
    end

    class AlbaComputed
      include Alba::Resource

      attributes :key, :summary
      attribute(:headline) { |issue| "#{issue.key}: #{issue.summary}" }
      attributes :votes, if: proc { |issue| !issue.votes.nil? }
      attribute(:score) { |issue| (issue.votes || 0) * 10 }
    end

    class JsonapiComputed
      include JSONAPI::Serializer

      set_type :issue
      attributes :key, :summary
      attribute(:headline) { |issue| "#{issue.key}: #{issue.summary}" }
      attribute :votes, if: proc { |issue| !issue.votes.nil? }
      attribute(:score) { |issue| (issue.votes || 0) * 10 }
    end

    # The compound document, its included records gathered once each.
    def self.alba_json_api(issues)
      seen = {}
      included = []
      resources = { "version" => AlbaVersionApi, "component" => AlbaComponentApi, "custom_field" => AlbaCustomFieldApi }
      issues.each do |issue|
        AlbaIssueApi::RELATIONS.each do |name, type|
          issue.public_send(name).each do |record|
            next if seen[[type, record.id]]

            seen[[type, record.id]] = true
            included << resources.fetch(type).new(record).serializable_hash
          end
        end
      end
      ::JSON.generate({ "data" => AlbaIssueApi.new(issues).serializable_hash, "included" => included })
    end

    # ---- panko --------------------------------------------------------------------

    class PankoVersion < Panko::Serializer
      attributes(*VERSION_ATTRIBUTES)

      def release_date
        Format.time(object.release_date)
      end
    end

    class PankoComponent < Panko::Serializer
      attributes :id, :name
    end

    class PankoCustomField < Panko::Serializer
      attributes :id, :key, :values
    end

    class PankoIssue < Panko::Serializer
      attributes(*ISSUE_ATTRIBUTES)
      has_many :affects_versions, serializer: PankoVersion
      has_many :fix_versions, serializer: PankoVersion
      has_many :components, serializer: PankoComponent
      has_many :custom_field_values, serializer: PankoCustomField

      def created
        Format.time(object.created)
      end

      def updated
        Format.time(object.updated)
      end

      def duedate
        Format.date(object.duedate)
      end

      # Oj (rails mode) writes a BigDecimal as a string: a Float is the number.
      def time_spent
        object.time_spent&.to_f
      end
    end

    # The issues as plain objects: one Struct class per model class, with the
    # same readers, nested records and lists converted too.
    module PlainObjects
      STRUCTS = {}

      module_function

      def of(value)
        case value
        when Array then value.map { |item| of(item) }
        when Wirebind::Model
          names = value.class.attributes.map(&:name)
          struct = (STRUCTS[value.class] ||= Struct.new(*names, keyword_init: true))
          struct.new(**names.to_h { |name| [name, of(value.public_send(name))] })
        else value
        end
      end
    end

    module_function

    def main
      issues = Generator.expected(COUNT, seed: SEED)
      yjit = defined?(RubyVM::YJIT) && RubyVM::YJIT.enabled? ? " +YJIT" : ""
      puts format("wirebind %s, Ruby %s%s, oat %s, alba %s, panko %s, oj %s; %d issues (seed %d)",
                  Wirebind::VERSION, RUBY_VERSION, yjit, Oat::VERSION, Alba::VERSION, Panko::VERSION, Oj::VERSION, COUNT, SEED)

      native = Wirebind.backend == :native
      hal = {
        "wirebind" => -> { IssueSerializer.new(issues, format: :hal).to_json },
        **(native ? { "wirebind (pure backend)" => -> { IssueSerializer.new(issues, format: :hal, backend: :pure).to_json } } : {}),
        "oat" => -> { ::JSON.generate(OatIssues.new(issues).to_hash) },
        "alba" => -> { ::JSON.generate({ "_embedded" => { "item" => AlbaIssueHal.new(issues).serializable_hash } }) }
      }
      plain = {
        "wirebind" => -> { IssueSerializer.new(issues).to_json },
        **(native ? { "wirebind (pure backend)" => -> { IssueSerializer.new(issues, backend: :pure).to_json } } : {}),
        "panko" => -> { Panko::ArraySerializer.new(issues, each_serializer: PankoIssue).to_json },
        "alba" => -> { AlbaIssuePlain.new(issues).serialize },
        "Wirebind::JSON.encode" => -> { Wirebind::JSON.encode(issues) }
      }
      structs = PlainObjects.of(issues)
      objects = {
        "wirebind" => -> { IssueSerializer.new(structs).to_json },
        **(native ? { "wirebind (pure backend)" => -> { IssueSerializer.new(structs, backend: :pure).to_json } } : {}),
        "panko" => -> { Panko::ArraySerializer.new(structs, each_serializer: PankoIssue).to_json },
        "alba" => -> { AlbaIssuePlain.new(structs).serialize }
      }
      check("HAL", hal)
      check("plain", plain)
      check("plain objects", objects)
      json_api = {
        "wirebind" => -> { ApiIssueSerializer.new(issues, format: :json_api).to_json },
        **(native ? { "wirebind (pure backend)" => -> { ApiIssueSerializer.new(issues, format: :json_api, backend: :pure).to_json } } : {}),
        "jsonapi-serializer" => -> { ::JSON.generate(JsonapiIssue.new(issues, include: JSONAPI_INCLUDE).serializable_hash) },
        "alba" => -> { SerializerRun.alba_json_api(issues) }
      }
      computed = {
        "wirebind" => -> { ComputedIssueSerializer.new(issues).to_json },
        **(native ? { "wirebind (pure backend)" => -> { ComputedIssueSerializer.new(issues, backend: :pure).to_json } } : {}),
        "alba" => -> { AlbaComputed.new(issues).serialize }
      }
      computed_api = {
        "wirebind" => -> { ComputedIssueSerializer.new(issues, format: :json_api).to_json },
        **(native ? { "wirebind (pure backend)" => -> { ComputedIssueSerializer.new(issues, format: :json_api, backend: :pure).to_json } } : {}),
        "jsonapi-serializer" => -> { ::JSON.generate(JsonapiComputed.new(issues).serializable_hash) }
      }
      check("computed and conditional", computed)
      check("computed and conditional, JSON:API", computed_api)
      check("JSON:API", json_api) { |document| document.merge("included" => document["included"].sort_by { |r| [r["type"], r["id"]] }) }
      abort "plain objects: wirebind's output differs from its output for the models" unless objects["wirebind"].call == plain["wirebind"].call
      [hal, plain, objects, json_api, computed, computed_api].each do |contenders|
        pure = contenders["wirebind (pure backend)"] or next
        abort "the native and the pure backends write different bytes" unless contenders["wirebind"].call == pure.call
      end
      ratios = {}
      ratios.merge!(report("HAL", hal).transform_keys { |name| "HAL vs #{name}" })
      ratios.merge!(report("plain", plain).transform_keys { |name| "plain vs #{name}" })
      ratios.merge!(report("plain objects, through readers", objects).transform_keys { |name| "objects vs #{name}" })
      ratios.merge!(report("JSON:API", json_api).transform_keys { |name| "JSON:API vs #{name}" })
      ratios.merge!(report("computed and conditional", computed).transform_keys { |name| "computed vs #{name}" })
      ratios.merge!(report("computed and conditional, JSON:API", computed_api).transform_keys { |name| "computed JSON:API vs #{name}" })
      puts "\n== goals (wirebind on the #{Wirebind.backend} backend)"
      goal(ratios, "HAL vs oat", 10)
      goal(ratios, "HAL vs alba", 2)
      goal(ratios, "plain vs panko", 1)
      goal(ratios, "objects vs alba", 2)
      ["objects vs panko", "JSON:API vs jsonapi-serializer", "JSON:API vs alba", "computed vs alba",
       "computed JSON:API vs jsonapi-serializer"].each do |name|
        puts format("  %-18s wirebind is %5.2fx faster", name, ratios.fetch(name))
      end
      return unless native

      puts "\n== the pure backend, for reference"
      { "HAL" => %w[oat alba], "plain" => %w[panko alba], "objects" => %w[panko alba],
        "JSON:API" => %w[jsonapi-serializer alba] }.each do |section, peers|
        pure = ratios.fetch("#{section} vs wirebind (pure backend)")
        peers.each do |peer|
          puts format("  %-18s pure wirebind is %5.2fx faster", "#{section} vs #{peer}", ratios.fetch("#{section} vs #{peer}") / pure)
        end
      end
    end

    # +normalize+: what the comparison disregards (a block over the parsed document).
    def check(section, contenders, &normalize)
      reference = nil
      contenders.each do |name, call|
        text = call.call
        abort "#{section} #{name}: #{text.class}, not a String" unless text.is_a?(String)
        parsed = ::JSON.parse(text)
        parsed = normalize.call(parsed) if normalize
        reference ||= parsed
        next if parsed == reference

        abort "#{section} #{name}: parses to a different structure than wirebind's:\n#{first_difference(reference, parsed, '$')}"
      end
    end

    def first_difference(expected, actual, path)
      if expected.is_a?(Hash) && actual.is_a?(Hash)
        (expected.keys | actual.keys).each do |key|
          found = first_difference(expected[key], actual[key], "#{path}.#{key}")
          return found if found
        end
        nil
      elsif expected.is_a?(Array) && actual.is_a?(Array) && expected.size == actual.size
        expected.each_with_index do |item, index|
          found = first_difference(item, actual[index], "#{path}[#{index}]")
          return found if found
        end
        nil
      elsif expected != actual
        "at #{path}: expected #{expected.inspect[0, 200]}, got #{actual.inspect[0, 200]}"
      end
    end

    # Mean CPU time per document over RUNS interleaved rounds, the garbage
    # collector enabled and counted (Clock.report).
    #
    # @return [Hash{String => Float}] each other contender's mean time over wirebind's
    def report(section, contenders)
      samples = Clock.report(section, contenders, runs: RUNS, count: COUNT, unit: "issue")
      base = samples.values.first.mean_ns
      samples.drop(1).to_h { |name, sample| [name, sample.mean_ns / base] }
    end

    def goal(ratios, name, target)
      ratio = ratios.fetch(name)
      puts format("  %-18s wirebind is %5.2fx faster (goal %dx): %s", name, ratio, target, ratio >= target ? "met" : "NOT met")
    end
  end
end

if $PROGRAM_NAME == __FILE__
  Bench::SerializerRun.main
  # panko's C extension leaves the NameError it rescues (probing for ActiveRecord)
  # in $!, which would make Ruby exit with status 1 after a successful run.
  exit 0
end

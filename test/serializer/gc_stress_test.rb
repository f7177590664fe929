# frozen_string_literal: true

require_relative "serializer_test_support"
require "set"
require_relative "../support/gc_stress"

# The native serializer engine under a hostile GC, as test/xml/gc_stress_test.rb
# holds the XML codecs: GC.stress (programs compiled under it too), GC.compact
# and GC.verify_compaction_references between documents while the compiled
# programs stay cached, and auto-compaction under stress. Every document (and
# error) is compared with the pure backend's, computed beforehand. Slow:
# `rake test:gc_stress` runs it (WIREBIND_GC_STRESS=1).
class SerializerGCStressTest < Minitest::Test
  include SerializerTestSupport

  FORMATS = %i[plain hal siren].freeze
  ROUNDS = [0] # serializers made so far

  include Wirebind::GCStress

  def setup
    require_gc_stress
  end

  # Fresh serializer classes: compiled (Ruby source and native program) on
  # first use, so under stress when first used there.
  # Named (an anonymous class's name holds its address, which compaction changes).
  def serializers
    round = (ROUNDS[0] += 1)
    version = Class.new(Wirebind::Serializer) do
      type "version"
      attributes :name, :release_date, :sequence
      link(:self) { |v| "/versions/#{v.id}" }
      link(:"ne\"xt") { |_v, context| context[:next] }
    end
    project = Class.new(Wirebind::Serializer) do
      type "project"
      attributes :name
      link(:self) { |p| p.id && "/projects/#{p.id}" }
    end
    issue = Class.new(Wirebind::Serializer) do
      type "issue"
      id :key
      attributes :summary, :votes, :watched, :spent, :due, :labels
      attribute :key, key: "k\u00e9y\n"
      link(:self) { |i| "/issues/#{i.key}" }
      many :affects_versions, version, links: { related: ->(i, _) { "/issues/#{i.key}/versions" } }
      one :project, project
    end
    every = Class.new(Wirebind::Serializer) do
      attributes :id, :text, :count, :ratio, :amount, :flag, :at_time, :on_date, :bytes, :times, :inner
    end
    [issue, every].tap do |_pair|
      self.class.const_set(:"Issue#{round}", issue)
      self.class.const_set(:"Every#{round}", every)
      self.class.const_set(:"Version#{round}", version)
      self.class.const_set(:"Project#{round}", project)
    end
  end

  def documents
    long = "x" * 100 + "é\"\\\u2028\n"
    issues = [
      Issue.new(key: long, summary: "s\u0001", votes: 2**70, watched: true, spent: BigDecimal("1.25"), due: Date.new(2020, 2, 29),
                labels: [long, :sym, nil], project: Project.new(id: "P", name: long),
                affects_versions: [Version.new(id: "1", name: long, release_date: Time.at(1.5, in: "+05:30"), sequence: 1), nil,
                                   Version.new(release_date: Time.at(Rational(1, 1024)))]),
      Issue.new(key: "b", labels: ["caf\xE9".dup.force_encoding("ISO-8859-1")], spent: Rational(1, 8), project: Project.new)
    ]
    all = [AllTypes.new(id: 1, text: long, count: -1, ratio: 1.5, amount: BigDecimal("1e200"), flag: false,
                        at_time: Time.at(0, in: 3601), on_date: Date.new(1500), bytes: long.b, times: [Time.utc(2010), nil],
                        inner: Project.new(id: "i", name: long)), AllTypes.new]
    bad = [Issue.new(votes: "12"), Issue.new(key: "a\xFF".dup.force_encoding("UTF-8")),
           Issue.new(affects_versions: [Version.new(sequence: 1.5)]), Issue.new(project: Version.new), Issue.new(labels: "x")]
    [issues, all, bad]
  end

  def outputs(backend, issue, every)
    issues, all, bad = documents
    results = FORMATS.flat_map do |format|
      [issue.new(issues, format: format, backend: backend, context: { next: "/n" }).to_json,
       issue.new(issues.first, format: format, backend: backend).to_json,
       every.new(all, format: format, backend: backend).to_json] +
        bad.map do |record|
          issue.new([Issue.new, record], format: format, backend: backend).to_json
        rescue Wirebind::EncodeError => e
          [e.message, e.path]
        end
    end
    # JSON:API: a compound document (with an included record written twice
    # over, and fieldsets), and one whose included record fails.
    version = Version.new(id: "v\u00e9", name: "y" * 300, release_date: Time.at(1, in: "-03:30"), sequence: 2**64)
    linked = [Issue.new(key: "a", affects_versions: [version, Version.new(id: "2")], project: Project.new(id: "P", name: "p")),
              Issue.new(key: "b\u2028", affects_versions: [version], project: Project.new(id: "P"))]
    results << issue.new(linked, format: :json_api, backend: backend, include: "affects_versions,project").to_json
    results << issue.new(linked, format: :json_api, backend: backend, fields: { "issue" => "summary,project" }, meta: { "n" => 2 }).to_json
    results << begin
      issue.new([Issue.new(key: "c", affects_versions: [Version.new(id: "3", sequence: 1.5)])], format: :json_api, backend: backend).to_json
    rescue Wirebind::EncodeError => e
      [e.message, e.path]
    end
    io = StringIO.new
    # Larger than a flush (64 KiB) in few records: few allocations under stress.
    issue.new([Issue.new(key: "io", summary: "y" * 4000 + "\u2028")] * 30, format: :hal, backend: backend).to_json(io: io)
    results << io.string.force_encoding(Encoding::UTF_8)
    # Records read through their readers (Structs, a Set for a list).
    rows = issues.map { |record| self.class.row_of(record) }
    [*FORMATS, :json_api].each do |format|
      # The first row's document, and then both: the second's Rational fails (the :any mapping has none).
      [rows.first(1), rows].each do |list|
        results << begin
          issue.new(list, format: format, backend: backend, context: { next: "/n" }).to_json
        rescue Wirebind::EncodeError => e
          [e.message, e.path]
        end
      end
    end
    io = StringIO.new
    issue.new(Array.new(30) { |n| Issue.new(key: n.to_s, summary: "y" * 4000, affects_versions: [version]) }, format: :json_api,
                                                                                                              backend: backend).to_json(io: io)
    results << io.string.force_encoding(Encoding::UTF_8)
  end

  ROWS = {}.compare_by_identity
  private_constant :ROWS

  # A model record as a Struct of its attributes, nested records too; a list of records as a Set.
  def self.row_of(value)
    case value
    when Array then value.any?(Wirebind::Model) ? Set.new(value.map { |item| row_of(item) }) : value
    when Wirebind::Model
      names = value.class.attributes.map(&:name)
      struct = (ROWS[value.class] ||= Struct.new(*names, keyword_init: true))
      struct.new(**names.to_h { |name| [name, row_of(value.public_send(name))] })
    else value
    end
  end

  # The Ruby methods are compiled by the pure run; the native programs, on
  # first use, under stress.
  def test_under_gc_stress_programs_compiled_under_it_too
    issue, every = serializers
    expected = outputs(:pure, issue, every)
    actual = stressed { outputs(:native, issue, every) }
    assert_equal expected, actual
  end

  def test_compaction_between_documents_with_programs_cached
    skip "GC.compact is not supported here" unless GC.respond_to?(:compact)
    issue, every = serializers
    expected = outputs(:pure, issue, every)
    assert_equal expected, outputs(:native, issue, every) # compiles and caches every program
    programs = FORMATS.map { |format| issue.new(nil, format: format).compiled_for(Issue.new).native_program }
    programs << issue.new(nil, format: :json_api).compiled_for(Issue.new).native_program
    3.times do |round|
      round.even? ? GC.compact : GC.verify_compaction_references(double_heap: true, toward: :empty)
      cached = FORMATS.map { |format| issue.new(nil, format: format).compiled_for(Issue.new).native_program }
      cached << issue.new(nil, format: :json_api).compiled_for(Issue.new).native_program
      assert_equal programs.map(&:object_id), cached.map(&:object_id), "compaction keeps the cached programs"
      assert_equal expected, outputs(:native, issue, every), "after compaction #{round + 1}"
    end
  end

  def test_auto_compaction_under_gc_stress
    issue, every = serializers
    expected = outputs(:pure, issue, every)
    actual = stressed_and_compacting { outputs(:native, issue, every) }
    assert_equal expected, actual
  end
end

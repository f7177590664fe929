# frozen_string_literal: true

require_relative "json_test_support"
require "rbconfig"

# Wirebind::JSON.each: the items of a top-level array, one at a time, equal to
# what decode returns, from any IO, in flat memory.
class JSONStreamingTest < Minitest::Test
  include JSONTestHelpers
  include JSONTestModels

  def issues_json(count)
    JSON.encode(Array.new(count) { |i| Issue.new(id: i.to_s, key: "K-#{i}", votes: i, labels: ["l\u00e9#{i}"], affects_versions: [Version.new(sequence: i)]) })
  end

  def test_each_from_a_trickling_io_equals_string_input
    json = issues_json(40)
    expected = JSON.decode(json, [Issue])
    (1..7).each do |max|
      [1, 2].each do |seed|
        streamed = []
        count = JSON.each(TrickleIO.new(json, seed: seed, max: max), Issue) { |issue| streamed << issue }
        assert_equal 40, count
        assert_equal_decoded expected, streamed, "reads of 1..#{max} bytes (seed #{seed})"
      end
    end
    assert_equal expected, JSON.each(ReadOnlyIO.new(json, seed: 4), [Issue]).to_a
    assert_equal expected, JSON.each(json, Issue).to_a
  end

  def test_items_are_yielded_as_they_complete
    json = "[#{Issue.new(id: '1').to_json}, #{Issue.new(id: '2').to_json}, !"
    seen = []
    error = assert_raises(Wirebind::ParseError) { JSON.each(json, Issue) { |issue| seen << issue.id } }
    assert_equal %w[1 2], seen
    assert_match(/expected a JSON value, got '!'/, error.message)
  end

  def test_each_of_scalars_and_any
    assert_equal [1, nil, 3], JSON.each("[1, null, 3]", :integer).to_a
    assert_equal [{ "a" => [1] }, "x", nil], JSON.each('[{"a": [1]}, "x", null]', :any).to_a
    assert_equal 0, JSON.each("null", Issue) { flunk "nothing to yield" }
    assert_equal 0, JSON.each(" [ ] ", Issue) { flunk "nothing to yield" }
  end

  def test_each_needs_an_array
    error = assert_error(Wirebind::DecodeError, /expected an array \(of .*Issue object items\), got an object/) { JSON.each("{}", Issue) { nil } }
    assert_nil error.path
    error = assert_error(Wirebind::DecodeError, /expected an integer/) { JSON.each('[1, "2"]', :integer) { nil } }
    assert_equal "[1]", error.path
  end

  def test_each_without_a_block_is_an_enumerator
    enum = JSON.each(issues_json(3), Issue)
    assert_kind_of Enumerator, enum
    assert_equal %w[0 1 2], enum.map(&:id)
  end

  SCRIPT = <<~'RUBY'
    require "wirebind"
    require "wirebind/json"
    class Item
      include Wirebind::Model
      attribute :id, :integer
      attribute :name, :string
      attribute :tags, [:string]
    end
    # An IO that makes the document as it is read: no copy of it exists anywhere.
    class Document
      RECORD = %({"id":%d,"name":"record \\"%d\\" caf\\u00e9","tags":["a","b"],"skip":{"deep":[1,2,{"x":null}]}},\n)
      def initialize(bytes)
        @left = bytes
        @n = 0
        @state = :head
      end
      def readpartial(size, buffer = nil)
        raise EOFError if @state == :done
        out = +""
        if @state == :head
          out << "[\n"
          @state = :body
        end
        while out.bytesize < size && @left.positive?
          record = format(RECORD, @n, @n)
          @n += 1
          @left -= record.bytesize
          out << record
        end
        if @left <= 0 && @state == :body
          out << %({"id":#{@n}}]\n)
          @state = :done
        end
        out
      end
    end
    require "objspace"
    def hwm = File.read("/proc/self/status")[/VmHWM:\s+(\d+)/, 1].to_i * 1024
    # What is still alive after a full collection: what the decode holds on to.
    def live
      GC.start(full_mark: true, immediate_sweep: true)
      ObjectSpace.memsize_of_all
    end
    GC.start
    before = hwm
    count = 0
    last = nil
    warm = nil
    Wirebind::JSON.each(Document.new(Integer(ARGV[0])), Item) do |item|
      count += 1
      last = item
      warm = live if count == 50_000
    end
    puts [count, last.id, hwm - before, live - warm].join(" ")
  RUBY

  # The peak resident set depends on when Ruby runs a major collection: the
  # 64 KiB input chunks live long enough to reach the old generation, and are
  # freed only by a major GC, which Ruby starts when the bytes malloc'd since
  # the last one pass its oldmalloc limit; that limit starts at 16 MiB and
  # adapts upwards (by 1.2x at each trigger). So the peak measured the GC's
  # state (14.5 to 18.9 MiB), not wirebind. The child runs with the GC's
  # malloc limits pinned, so the peak is the same from run to run, and the
  # memory still alive after a full collection is compared between 50,000
  # records and the end: what a decode retains shows there, whatever the GC.
  GC_LIMITS = {
    "RUBY_GC_MALLOC_LIMIT_MAX" => (8 * 1024 * 1024).to_s,
    "RUBY_GC_OLDMALLOC_LIMIT" => (8 * 1024 * 1024).to_s,
    "RUBY_GC_OLDMALLOC_LIMIT_MAX" => (8 * 1024 * 1024).to_s
  }.freeze

  def test_streaming_keeps_memory_flat
    skip "needs /proc" unless File.exist?("/proc/self/status")
    require_ruby_subprocess
    # AddressSanitizer's shadow memory and quarantine inflate the resident set.
    skip "peak RSS means nothing under AddressSanitizer" if ENV["LD_PRELOAD"].to_s.include?("asan")

    bytes = 24 * 1024 * 1024
    output = IO.popen([GC_LIMITS, RbConfig.ruby, "-I", File.expand_path("../../lib", __dir__), "-e", SCRIPT, bytes.to_s], &:read)
    count, last_id, growth, retained = output.split.map(&:to_i)
    assert_operator count, :>, 200_000
    assert_equal count - 1, last_id
    puts format("\nJSON streaming %d MiB: peak RSS grew by %.1f MiB; live memory from record 50,000 to the end: %+.2f MiB",
                bytes / 1024 / 1024, growth / 1024.0 / 1024, retained / 1024.0 / 1024)
    # 200,000 records more: keeping even 8 bytes of each would show.
    assert_operator retained, :<, 1024 * 1024, "live memory grew by #{retained} bytes over 200,000 records"
    assert_operator growth, :<, 16 * 1024 * 1024, "peak RSS grew by #{growth / 1024 / 1024} MiB"
  end
end

# frozen_string_literal: true

require "test_helper"
require "rbconfig"

# Streaming holds one record at a time: decoding 100 MB from an IO must not grow
# the process by anything like the document's size. Measured in a child process,
# from its peak resident set (VmHWM), so the test's own allocations do not count.
class StreamingMemoryTest < Minitest::Test
  SCRIPT = <<~'RUBY'
    require "wirebind"
    class Item
      include Wirebind::Model
      attribute :id, :integer
      attribute :name, :string
      attribute :tags, [:string], xml: "tag"
    end
    # An IO that makes the document as it is read: no copy of it exists anywhere.
    class Document
      RECORD = "<item><id>%d</id><name>record &amp; name %d</name><tag>a</tag><tag>b</tag><skip><deep>x</deep></skip></item>\n"
      def initialize(bytes)
        @left = bytes
        @n = 0
        @state = :head
      end
      def readpartial(size, buffer = nil)
        raise EOFError if @state == :done
        out = +""
        if @state == :head
          out << "<response><items>\n"
          @state = :body
        end
        while out.bytesize < size && @left.positive?
          record = format(RECORD, @n, @n)
          @n += 1
          @left -= record.bytesize
          out << record
        end
        if @left <= 0 && @state == :body
          out << "</items></response>"
          @state = :done
        end
        out
      end
    end
    def hwm = File.read("/proc/self/status")[/VmHWM:\s+(\d+)/, 1].to_i * 1024
    GC.start
    before = hwm
    count = 0
    last = nil
    Wirebind::XML.each(Document.new(Integer(ARGV[0])), Item, at: "response/items/item") { |item| count += 1; last = item }
    puts [count, last.id, hwm - before].join(" ")
  RUBY

  def test_streaming_100_mb_keeps_memory_flat
    skip "needs /proc" unless File.exist?("/proc/self/status")
    require_ruby_subprocess
    # AddressSanitizer's shadow memory and quarantine inflate the resident set.
    skip "peak RSS means nothing under AddressSanitizer" if ENV["LD_PRELOAD"].to_s.include?("asan")

    bytes = 100 * 1024 * 1024
    output = IO.popen([RbConfig.ruby, "-I", File.expand_path("../../lib", __dir__), "-e", SCRIPT, bytes.to_s], &:read)
    count, last_id, growth = output.split.map(&:to_i)
    assert_operator count, :>, 800_000
    assert_equal count - 1, last_id
    puts format("\nstreaming 100 MB: peak RSS grew by %.1f MiB", growth / 1024.0 / 1024)
    assert_operator growth, :<, 64 * 1024 * 1024, "peak RSS grew by #{growth / 1024 / 1024} MiB"
  end
  # One huge comment, CDATA section and processing instruction read through an IO
  # (issue 11), against the same bytes as plain text (which was always read in
  # pieces): what the big tokens add to the peak is what holding them costs, the
  # garbage of reading the same bytes being the same in both. Child processes, as
  # above, so earlier tests do not count.
  BIG_TOKENS = <<~'RUBY'
    require "wirebind"
    size = Integer(ARGV[0])
    # Makes the document as it is read, 64 KiB at a time: no copy of it exists.
    class Generated
      def initialize(parts)
        @parts = parts
      end

      def readpartial(length, _buffer = nil)
        raise EOFError if @parts.empty?

        text, count = @parts.first
        n = [count, [length / text.bytesize, 1].max].min
        count == n ? @parts.shift : @parts.first[1] -= n
        text * n
      end
    end
    parts =
      if ARGV[2] == "tokens"
        [["<doc><!--", 1], ["c", size], ["--><![CDATA[", 1], ["d", size], ["]]><?pi ", 1], ["p", size], ["?></doc>", 1]]
      else
        [["<doc>", 1], ["c", size], ["<c/>", 1], ["d", size], ["<d/>", 1], ["p", size], ["</doc>", 1]]
      end
    def hwm = File.read("/proc/self/status")[/VmHWM:\s+(\d+)/, 1].to_i * 1024
    GC.start
    before = hwm
    Wirebind::XML.check(Generated.new(parts), backend: ARGV[1].to_sym)
    puts hwm - before
  RUBY

  # What holding a token may cost on top of reading the same bytes as text: pure
  # reads past a comment, PI or CDATA section without keeping it; native keeps the
  # token whole in one growing buffer (its size, and as much again while it grows).
  TOKEN_ALLOWANCE = { "pure" => 8, "native" => 40 }.freeze

  def test_big_tokens_through_an_io_cost_no_more_than_text
    skip "needs /proc" unless File.exist?("/proc/self/status")
    require_ruby_subprocess
    skip "peak RSS means nothing under AddressSanitizer" if ENV["LD_PRELOAD"].to_s.include?("asan")

    size = 16 * 1024 * 1024
    (Wirebind.backend == :native ? %w[pure native] : %w[pure]).each do |backend|
      tokens, text = %w[tokens text].map do |kind|
        IO.popen([RbConfig.ruby, "-I", File.expand_path("../../lib", __dir__), "-e", BIG_TOKENS, size.to_s, backend, kind], &:read).to_i
      end
      puts format("\n16 MiB comment, CDATA and PI through an IO (%s): peak RSS grew by %.1f MiB; the same bytes as text: %.1f MiB",
                  backend, tokens / 1_048_576.0, text / 1_048_576.0)
      allowance = TOKEN_ALLOWANCE.fetch(backend) * 1024 * 1024
      assert_operator tokens, :<, text + allowance, "#{backend}: big tokens took #{(tokens - text) / 1_048_576} MiB more than text"
    end
  end
end

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
end

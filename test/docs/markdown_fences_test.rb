# frozen_string_literal: true

require "test_helper"

# Every Markdown file of the repository closes the code fences it opens: one
# unclosed fence renders the rest of the file as code.
class MarkdownFencesTest < Minitest::Test
  ROOT = File.expand_path("../..", __dir__)
  FENCE = /\A {0,3}(`{3,}|~{3,})/

  def markdown_files
    Dir.glob("**/*.md", base: ROOT).reject { |path| path.start_with?("tmp/", "vendor/", "node_modules/", "pkg/") }
  end

  # The line numbers of fences left open (CommonMark: a fence closes on a line of the
  # same character, at least as long, with nothing after it). A fence with an info
  # string ("```ruby") inside an open block counts too: it is an opening fence whose
  # block before it was never closed, which a renderer takes as code.
  def unclosed_fences(text)
    open = nil
    problems = []
    text.each_line.with_index(1) do |line, number|
      next unless (match = FENCE.match(line))

      fence = match[1]
      if open.nil?
        open = [fence, number]
      elsif fence[0] == open[0][0] && fence.size >= open[0].size && line.strip == fence
        open = nil
      elsif line.strip != fence
        problems << open[1]
        open = [fence, number]
      end
    end
    problems << open[1] if open
    problems
  end

  def test_every_markdown_file_closes_its_fences
    files = markdown_files
    assert_includes files, "README.md"
    files.each do |path|
      assert_empty unclosed_fences(File.read(File.join(ROOT, path))), "#{path}: a code fence opened on this line is never closed"
    end
  end

  def test_an_unclosed_fence_is_found
    assert_equal [5], unclosed_fences("text\n```ruby\ncode\n```\n```\nmore\n")
    assert_equal [2], unclosed_fences("text\n```ruby\ncode\n```ruby\nmore\n```\n")
    assert_empty unclosed_fences("````\n```\n````\n")
  end
end

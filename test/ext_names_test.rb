# frozen_string_literal: true

require "test_helper"

# ext/wirebind/README.md's naming rule: every function of the extension has a
# name no other file uses, so that a stack trace, a profile or a debugger names
# one function. File-local helpers whose plain name another file also uses take
# their file's concept (xenc_run, jdec_state_mark).
class ExtNamesTest < Minitest::Test
  EXT = File.expand_path("../ext/wirebind", __dir__)
  # A function definition or prototype at the start of a line (.clang-format
  # keeps the return type and the name on one line).
  FUNCTION = /^(?:static\s+)?(?:inline\s+)?(?:NORETURN\()?(?:const\s+)?(?:struct\s+|unsigned\s+|enum\s+)?\w+[\s*]+(\w+)\s*\(/

  def functions_by_file
    Dir[File.join(EXT, "*.c")].sort.to_h do |path|
      names = File.read(path).scan(FUNCTION).flatten.uniq - %w[if while for switch return sizeof]
      [File.basename(path), names]
    end
  end

  def test_every_function_name_is_in_one_file
    files = functions_by_file
    assert_operator files.size, :>, 20, "the extension's sources are read"
    owners = Hash.new { |hash, name| hash[name] = [] }
    files.each { |file, names| names.each { |name| owners[name] << file } }
    shared = owners.select { |_, in_files| in_files.size > 1 }.map { |name, in_files| "#{name}: #{in_files.join(', ')}" }
    assert_empty shared, "function names defined in several files (rename by ext/wirebind/README.md's rule)"
    assert_includes files.fetch("xml_encoder.c"), "xenc_run"
  end
end

# frozen_string_literal: true

require "test_helper"
require "json"
require "pty"
require "stringio"
require "tmpdir"
require "open3"
require "English"
require "wirebind/cli"

# wirebind convert: streams XML or JSON records into JSON, JSON Lines or HAL.
class CLIConvertTest < Minitest::Test
  MODELS = <<~RUBY
    module ConvertTestModels
      class Version
        include Wirebind::Model
        attribute :name, :string
      end

      class Issue
        include Wirebind::Model
        attribute :key, :string
        attribute :votes, :integer
        attribute :versions, [Version], xml: "versions/*"
      end

      class IssueSerializer < Wirebind::Serializer
        attributes :key, :votes
        link(:self) { |issue| "/issues/\#{issue.key}" }
      end

      # Cannot write the records whose votes are odd: a NaN is no JSON number.
      class RatioSerializer < Wirebind::Serializer
        attribute :key
        attribute(:ratio) { |issue| issue.votes.odd? ? Float::NAN : issue.votes / 2.0 }
      end
    end
  RUBY

  # One file for the whole run: `require` loads it once, as the command would.
  MODELS_FILE = File.join(Dir.tmpdir, "wirebind-convert-models-#{Process.pid}.rb")
  File.write(MODELS_FILE, MODELS)
  Minitest.after_run { File.delete(MODELS_FILE) if File.exist?(MODELS_FILE) }

  def setup
    @dir = Dir.mktmpdir("wirebind-convert")
    @models = MODELS_FILE
    require MODELS_FILE # the tests build records too; the command's own require is then a no-op
  end

  def teardown
    FileUtils.rm_rf(@dir)
  end

  def soap(count)
    items = Array.new(count) do |i|
      "<item><key>OPS-#{i}</key><votes>#{i}</votes><versions><v><name>1.#{i}</name></v></versions><skipped>x</skipped></item>"
    end
    %(<env:Envelope xmlns:env="http://schemas.xmlsoap.org/soap/envelope/"><env:Body><r><return>#{items.join}</return></r></env:Body></env:Envelope>)
  end

  def write_input(name, text)
    path = File.join(@dir, name)
    File.write(path, text)
    path
  end

  def convert(*args, err: StringIO.new)
    out = StringIO.new
    status = Wirebind::CLI.run(["convert", "--require", @models, *args], out: out, err: err)
    [status, out.string, err.respond_to?(:string) ? err.string : nil]
  end

  def test_xml_to_json_streams_every_record
    input = write_input("issues.xml", soap(3))
    status, out, err = convert("--type", "ConvertTestModels::Issue", "--at", "Envelope/Body/*/return/item", "--to", "json", input)

    assert_equal 0, status, err
    assert_equal "", err, "no progress bar when stderr is not a terminal"
    records = JSON.parse(out)
    assert_equal(%w[OPS-0 OPS-1 OPS-2], records.map { |r| r["key"] })
    assert_equal({ "key" => "OPS-2", "votes" => 2, "versions" => [{ "name" => "1.2" }] }, records.last)
  end

  def test_jsonl_writes_one_record_a_line_and_reads_back
    input = write_input("issues.xml", soap(4))
    output = File.join(@dir, "out.jsonl")
    status, _out, err = convert("--type", "ConvertTestModels::Issue", "--at", "Envelope/Body/*/return/item", "--to", "jsonl", input, output)

    assert_equal 0, status, err
    lines = File.read(output).lines
    assert_equal 4, lines.size
    assert_equal "OPS-3", Wirebind::JSON.decode(lines.last, ConvertTestModels::Issue).key
  end

  def test_json_input_to_hal_through_a_serializer
    json = Wirebind::JSON.encode([ConvertTestModels::Issue.new(key: "A-1", votes: 5), ConvertTestModels::Issue.new(key: "A-2")])
    input = write_input("issues.json", json)
    status, out, err = convert("--type", "ConvertTestModels::Issue", "--from", "json", "--to", "hal",
                               "--serializer", "ConvertTestModels::IssueSerializer", input)

    assert_equal 0, status, err
    items = JSON.parse(out).dig("_embedded", "item")
    assert_equal [{ "key" => "A-1", "votes" => 5, "_links" => { "self" => { "href" => "/issues/A-1" } } },
                  { "key" => "A-2", "votes" => nil, "_links" => { "self" => { "href" => "/issues/A-2" } } }], items
  end

  def test_a_bad_value_prints_its_path_and_line_and_fails
    input = write_input("bad.xml", soap(2).sub("<votes>1</votes>", "<votes>many</votes>"))
    status, _out, err = convert("--type", "ConvertTestModels::Issue", "--at", "Envelope/Body/*/return/item", input)

    assert_equal 1, status
    assert_match(%r{wirebind convert: .*"many".*item/votes.*line 1}, err)
  end

  def test_skip_errors_leaves_out_the_records_that_cannot_be_written_and_counts_them
    input = write_input("issues.xml", soap(5))
    args = ["--type", "ConvertTestModels::Issue", "--at", "Envelope/Body/*/return/item", "--to", "hal",
            "--serializer", "ConvertTestModels::RatioSerializer", input]
    status, _out, err = convert(*args)
    assert_equal 1, status
    assert_match(/wirebind convert: .*NaN/, err)

    status, out, err = convert("--skip-errors", *args)
    assert_equal 0, status, err
    assert_equal([{ "key" => "OPS-0", "ratio" => 0.0 }, { "key" => "OPS-2", "ratio" => 1.0 }, { "key" => "OPS-4", "ratio" => 2.0 }],
                 JSON.parse(out).dig("_embedded", "item"))
    assert_equal 1, err.lines.size, err
    assert_match(/\Awirebind convert: skipped 2 of 5 records \(the first, record 2: .*NaN.*\)\n\z/, err)

    # Nothing to skip: nothing said. A malformed input still ends the run (status 1).
    status, _out, err = convert("--skip-errors", "--type", "ConvertTestModels::Issue", "--at", "Envelope/Body/*/return/item", input)
    assert_equal [0, ""], [status, err]
    broken = write_input("broken.xml", soap(2).sub("</votes>", "</vote>"))
    status, _out, err = convert("--skip-errors", "--type", "ConvertTestModels::Issue", "--at", "Envelope/Body/*/return/item", broken)
    assert_equal 1, status
    assert_match(/line 1, column \d+/, err)
  end

  def test_malformed_input_prints_line_and_column
    input = write_input("broken.xml", soap(2).sub("</votes>", "</vote>"))
    status, _out, err = convert("--type", "ConvertTestModels::Issue", "--at", "Envelope/Body/*/return/item", input)

    assert_equal 1, status
    assert_match(/wirebind convert: .*line 1, column \d+/, err)
  end

  def test_usage_errors
    assert_equal 2, convert("--type", "ConvertTestModels::Issue").first
    assert_equal 2, convert("--type", "system('x')", "in.xml").first
    assert_equal 2, convert("--type", "ConvertTestModels::Issue", "--to", "hal", "in.xml").first
    assert_equal 2, convert("--type", "ConvertTestModels::Issue", "--to", "yaml", "in.xml").first
    status, _out, err = convert("--type", "NoSuchModel", "in.xml")
    assert_equal 2, status
    assert_match(/NoSuchModel: no such constant/, err)
  end

  # Every error is one line on stderr, a usage error too: it says where the usage is.
  def test_usage_errors_are_one_line
    [%w[--type ConvertTestModels::Issue], %w[--type NoSuchModel in.xml], %w[--nope in.xml]].each do |arguments|
      status, _out, err = convert(*arguments)

      assert_equal 2, status, arguments.inspect
      assert_equal 1, err.lines.size, err
      assert_match(/\Awirebind convert: .+ \(wirebind convert --help shows the usage\)\n\z/, err)
    end
  end

  def test_draws_a_progress_bar_on_a_terminal
    input = write_input("issues.xml", soap(50))
    PTY.open do |terminal, tty|
      status, out, = convert("--type", "ConvertTestModels::Issue", "--at", "Envelope/Body/*/return/item", input, err: tty)
      tty.close
      drawn = +""
      begin
        loop { drawn << terminal.readpartial(65_536) } # until the closed terminal says EIO
      rescue EOFError, Errno::EIO
        nil
      end

      assert_equal 0, status
      assert_equal 50, JSON.parse(out).size
      assert_kind_of String, drawn
      assert_match(/50 records/, drawn)
      assert_match(/100%/, drawn)
    end
  end

  AT = "Envelope/Body/*/return/item"

  def test_output_that_is_the_input_is_refused_and_the_input_kept
    input = write_input("issues.xml", soap(3))
    original = File.binread(input)
    File.link(input, File.join(@dir, "hard.xml"))
    File.symlink(input, File.join(@dir, "soft.xml"))
    [input, File.join(@dir, "hard.xml"), File.join(@dir, "soft.xml"), File.join(@dir, ".", "issues.xml")].each do |output|
      status, _out, err = convert("--type", "ConvertTestModels::Issue", "--at", AT, input, output)

      assert_equal 2, status, output
      assert_match(/is the INPUT file .*refusing/, err)
      assert_equal original, File.binread(input), "#{output} must not clobber the input"
    end
  end

  def test_a_failure_midway_leaves_the_old_output_and_no_temporary_file
    input = write_input("bad.xml", soap(5).sub("<votes>3</votes>", "<votes>many</votes>"))
    output = write_input("out.json", "previous\n")
    status, _out, err = convert("--type", "ConvertTestModels::Issue", "--at", AT, input, output)

    assert_equal 1, status
    assert_match(/"many"/, err)
    assert_equal "previous\n", File.read(output), "a failed run must not replace the output"
    assert_equal %w[bad.xml out.json], Dir.children(@dir).sort, "the temporary file is removed"
  end

  def test_a_fresh_output_is_absent_after_a_failure_and_complete_after_success
    bad = write_input("bad.xml", soap(5).sub("<votes>3</votes>", "<votes>many</votes>"))
    output = File.join(@dir, "new.json")
    assert_equal 1, convert("--type", "ConvertTestModels::Issue", "--at", AT, bad, output).first
    refute File.exist?(output), "no partial document"

    good = write_input("good.xml", soap(5))
    assert_equal 0, convert("--type", "ConvertTestModels::Issue", "--at", AT, good, output).first
    assert_equal 5, JSON.parse(File.read(output)).size
  end

  def test_an_output_that_is_a_directory_is_refused_before_anything_is_written
    input = write_input("issues.xml", soap(3))
    directory = File.join(@dir, "out")
    Dir.mkdir(directory)
    status, _out, err = convert("--type", "ConvertTestModels::Issue", "--at", AT, input, directory)

    assert_equal 2, status
    assert_match(/OUTPUT .*out is a directory/, err)
    assert_equal %w[issues.xml out], Dir.children(@dir).sort, "no temporary file beside it"
    assert_empty Dir.children(directory)
  end

  def test_an_input_or_output_the_system_refuses_is_one_line_naming_the_path
    input = write_input("issues.xml", soap(3))
    output = File.join(@dir, "absent", "out.json")
    status, _out, err = convert("--type", "ConvertTestModels::Issue", "--at", AT, input, output)

    assert_equal 1, status
    assert_equal "wirebind convert: cannot write #{output}: No such file or directory\n", err

    missing = File.join(@dir, "absent.xml")
    status, _out, err = convert("--type", "ConvertTestModels::Issue", "--at", AT, missing)
    assert_equal 1, status
    assert_equal "wirebind convert: cannot read #{missing}: No such file or directory\n", err
  end

  def test_a_path_matching_nothing_fails_unless_missing_empty
    input = write_input("issues.xml", soap(2))
    status, out, err = convert("--type", "ConvertTestModels::Issue", "--at", "Envelope/Body/*/nothing/item", input)

    assert_equal 1, status
    assert_equal "", out.delete("["), "nothing that looks like a result"
    assert_match(/matched no element/, err)
    assert_equal 1, err.lines.size

    status, out, err = convert("--type", "ConvertTestModels::Issue", "--at", "Envelope/Body/*/nothing/item", "--missing", "empty", input)
    assert_equal 0, status, err
    assert_equal [], JSON.parse(out)
  end

  def test_strict_rejects_an_undeclared_element
    input = write_input("issues.xml", soap(2))
    assert_equal 0, convert("--type", "ConvertTestModels::Issue", "--at", AT, input).first
    status, _out, err = convert("--type", "ConvertTestModels::Issue", "--at", AT, "--strict", input)

    assert_equal 1, status
    assert_match(/skipped/, err)
  end

  def test_a_missing_require_is_one_line_without_a_backtrace
    status, _out, err = convert("--require", File.join(@dir, "missing.rb"), "--type", "ConvertTestModels::Issue", "in.xml")

    assert_equal 1, status
    assert_equal 1, err.lines.size, err
    assert_match(/--require .*missing\.rb: cannot load such file/, err)
    refute_match(/\.rb:\d+:in /, err, "no backtrace")
  end

  def test_the_executable_ends_quietly_on_a_closed_pipe_and_prints_one_line_errors
    input = write_input("issues.xml", soap(20_000))
    exe = File.expand_path("../../exe/wirebind", __dir__)
    lib = File.expand_path("../../lib", __dir__)
    command = [RbConfig.ruby, "-I", lib, exe, "convert", "--require", @models, "--type", "ConvertTestModels::Issue",
               "--at", AT, "--to", "jsonl", input]
    IO.popen(command, err: %i[child out]) do |pipe|
      pipe.read(100) # then close: the command's next writes hit EPIPE
    end
    assert_equal 0, $CHILD_STATUS.exitstatus, "EPIPE ends with status 0"

    output, status = Open3.capture2e(RbConfig.ruby, "-I", lib, exe, "convert", "--require", File.join(@dir, "nope.rb"),
                                     "--type", "X", input)
    assert_equal 1, status.exitstatus
    assert_equal 1, output.lines.size, output
    refute_match(/\.rb:\d+:in /, output, "no backtrace")

    # Interrupted (^C) while it waits for more input: one line, status 130, no output left.
    output_path = File.join(@dir, "interrupted.json")
    Open3.popen3(RbConfig.ruby, "-I", lib, exe, "convert", "--require", @models, "--type", "ConvertTestModels::Issue",
                 "--at", AT, "-", output_path) do |stdin, _stdout, stderr, thread|
      stdin.write(soap(10).sub(%r{</return>.*}m, "")) # the records, and no end yet
      stdin.flush
      deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 30
      sleep 0.05 until Dir.children(@dir).any? { |name| name.end_with?(".tmp") } || Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline
      Process.kill(:INT, thread.pid)
      assert_equal 130, thread.value.exitstatus
      assert_equal "wirebind convert: interrupted\n", stderr.read
    end
    refute File.exist?(output_path), "no output after an interruption"
    assert_empty Dir.children(@dir).select { |name| name.end_with?(".tmp") }, "the temporary file is removed"

    output, status = Open3.capture2e(RbConfig.ruby, "-I", lib, exe, "--version")
    assert_equal 0, status.exitstatus
    assert_equal "wirebind #{Wirebind::VERSION} (#{Wirebind.backend} backend)\n", output
  end
end

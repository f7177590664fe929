# frozen_string_literal: true

require "test_helper"
require "stringio"
require "tmpdir"
require "wirebind/cli"

module Wirebind
  class CLIGenerateTest < Minitest::Test
    include TestSupport

    def run_cli(*argv)
      out = StringIO.new
      err = StringIO.new
      status = CLI.run(argv, out: out, err: err)
      [status, out.string, err.string]
    end

    def test_generate_writes_the_same_files_twice
      wsdl = shared_path("fixtures/wsdl/jirasoapservice-v2.wsdl")
      Dir.mktmpdir do |dir|
        status, out, = run_cli("generate", wsdl, "--out", dir, "--module", "SfPartner")
        assert_equal 0, status
        assert_match(/3 files/, out) # the entry file, models.rb and the client
        assert File.file?(File.join(dir, "sf_partner/models.rb"))
        assert File.file?(File.join(dir, "sf_partner.rb"))
        first = Dir.glob("#{dir}/**/*.rb").sort.to_h { |f| [f, File.binread(f)] }
        assert_equal 0, run_cli("generate", wsdl, "--out", dir, "--module", "SfPartner").first
        assert_equal(first, Dir.glob("#{dir}/**/*.rb").sort.to_h { |f| [f, File.binread(f)] })
      end
    end

    def test_errors_exit_non_zero_with_a_message
      status, _, err = run_cli("generate", "missing.wsdl", "--out", "x", "--module", "M")
      assert_equal 1, status
      assert_match(/wirebind generate: cannot read .*missing\.wsdl/, err)
      status, _, err = run_cli("generate", "a.wsdl")
      assert_equal 2, status
      assert_match(/--out DIR is required/, err)
      assert_equal 2, run_cli("generate", "--bogus").first
      status, _, err = run_cli("nope")
      assert_equal 2, status
      assert_equal %(wirebind: unknown command "nope" (wirebind --help lists the commands)\n), err
      Dir.mktmpdir do |dir|
        File.write(File.join(dir, "s.wsdl"), "<definitions")
        status, _, err = run_cli("generate", File.join(dir, "s.wsdl"), "--out", dir, "--module", "M")
        assert_equal 1, status
        assert_match(/wirebind generate: .*line 1/, err)
      end
    end

    def test_the_executable_runs
      require_ruby_subprocess
      exe = File.expand_path("../../exe/wirebind", __dir__)
      output = IO.popen([RbConfig.ruby, "-I#{File.expand_path('../../lib', __dir__)}", exe, "--help"], err: %i[child out], &:read)
      assert_match(/generate\s+write models and clients from a WSDL/, output)
    end
  end
end

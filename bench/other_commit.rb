# frozen_string_literal: true

require "open3"
require "rbconfig"
require "tmpdir"

module Bench
  # Another commit of this repository, checked out in a temporary git worktree
  # with its C extension compiled there: what `rake bench:compare[REF]` and
  # `ruby bench/instructions.rb --ref REF` run against. The worktree is removed
  # afterwards, also when the block fails.
  module OtherCommit
    ROOT = File.expand_path("..", __dir__)

    module_function

    # Yields the lib/ directory of +ref+, compiled.
    def with_lib(ref)
      Dir.mktmpdir("wirebind-#{ref.gsub(/[^\w.-]/, '_')}-") do |dir|
        tree = File.join(dir, "tree")
        run("git", "-C", ROOT, "worktree", "add", "--detach", "--quiet", tree, ref)
        begin
          compile(tree)
          yield File.join(tree, "lib")
        ensure
          run("git", "-C", ROOT, "worktree", "remove", "--force", tree)
        end
      end
    end

    def compile(tree)
      build = File.join(tree, "tmp/build")
      Dir.mkdir(File.dirname(build)) unless Dir.exist?(File.dirname(build))
      Dir.mkdir(build)
      run(RbConfig.ruby, File.join(tree, "ext/wirebind/extconf.rb"), chdir: build)
      run("make", "-j2", chdir: build)
      File.rename(File.join(build, "wirebind_ext.#{RbConfig::CONFIG['DLEXT']}"),
                  File.join(tree, "lib/wirebind/wirebind_ext.#{RbConfig::CONFIG['DLEXT']}"))
    end

    def run(*command, chdir: ROOT)
      output, status = Open3.capture2e({ "RUBYOPT" => nil, "BUNDLE_GEMFILE" => nil }, *command, chdir: chdir)
      raise "#{command.join(' ')} failed:\n#{output}" unless status.success?
    end
  end
end

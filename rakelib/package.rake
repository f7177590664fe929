# frozen_string_literal: true

require "rbconfig"

namespace :gem do
  desc "Build the gem and install it where every C compiler fails: it must install and run on the pure backend"
  task :no_compiler do
    root = File.expand_path("..", __dir__)
    dir = File.join(root, "tmp/no_compiler")
    rm_rf dir
    fake_bin = File.join(dir, "bin")
    mkdir_p fake_bin
    # Every name mkmf may call the compiler by, each failing as a missing one would.
    compilers = %w[cc gcc c99 clang] + [RbConfig::CONFIG["CC"].split.first]
    compilers.uniq.each do |name|
      path = File.join(fake_bin, name)
      File.write(path, "#!/bin/sh\necho \"#{name}: no compiler on this machine\" >&2\nexit 1\n")
      File.chmod(0o755, path)
    end
    gem_file = File.join(dir, "wirebind.gem")
    Dir.chdir(root) { sh "gem", "build", "wirebind.gemspec", "--silent", "--output", gem_file }

    env = {
      "PATH" => "#{fake_bin}:#{ENV.fetch('PATH')}",
      "GEM_HOME" => File.join(dir, "gems"),
      "GEM_PATH" => [File.join(dir, "gems"), Gem.default_dir].join(File::PATH_SEPARATOR)
    }
    check = <<~RUBY
      require "stringio"
      $stderr = StringIO.new # the one warning that the compiled extension is missing
      require "wirebind"
      warned, $stderr = $stderr.string, STDERR
      abort "no warning that the native extension is missing: \#{warned.inspect}" unless warned.scan("native extension is not compiled").size == 1
      signatures = File.join(Gem.loaded_specs.fetch("wirebind").full_gem_path, "sig/wirebind.rbs")
      abort "sig/ is not in the gem" unless File.file?(signatures)
      abort "backend is \#{Wirebind.backend}, not :pure" unless Wirebind.backend == :pure
      item = Class.new { include Wirebind::Model; attribute :key, :string }
      value = Wirebind::XML.decode("<issue><key>OPS-1</key></issue>", item).key
      abort "decoded \#{value.inspect}" unless value == "OPS-1"
      puts "gem:no_compiler: installed without a compiler; warned once; ships sig/; Wirebind.backend is :pure and decodes"
    RUBY
    run = lambda do
      sh env, "gem", "install", "--local", "--no-document", gem_file
      sh env, RbConfig.ruby, "-e", check
    end
    defined?(Bundler) ? Bundler.with_unbundled_env(&run) : run.call
  end

  desc "Run the examples the gem ships from the copy gem:no_compiler installed, away from the checkout and ../shared"
  task examples: :no_compiler do
    require "open3"
    require "tmpdir"
    dir = File.expand_path("../tmp/no_compiler", __dir__)
    gems = File.join(dir, "gems")
    examples = Dir[File.join(gems, "gems", "wirebind-*", "examples")].first or abort "gem:examples: no installed wirebind in #{gems}"
    # Anything the examples would read from the checkout's test data is not there.
    reads_shared = Dir[File.join(examples, "**", "*")].select { |file| File.file?(file) && File.read(file).include?("shared/") }
    abort "gem:examples: shipped examples name ../shared: #{reads_shared.join(', ')}" unless reads_shared.empty?

    env = { "GEM_HOME" => gems, "GEM_PATH" => [gems, Gem.default_dir].join(File::PATH_SEPARATOR), "JIRA_WSDL" => nil,
            "WIREBIND_BACKEND" => "pure", "DEMO_CALL" => "100", "DEMO_STREAM" => "1000" }
    expected = {
      "demo.rb" => ["Models and client generated from jira.wsdl", "equal to what the service generated: yes",
                    "the same multiRef twice is the same object: yes", "all 1000 received", "server stopped"],
      "soap_to_hypermedia.rb" => ["round trip equal: true"]
    }
    run = lambda do
      Dir.mktmpdir("wirebind-examples") do |cwd|
        expected.each do |example, lines|
          output, status = Open3.capture2e(env, RbConfig.ruby, "-W0", File.join(examples, example), chdir: cwd)
          missing = lines.reject { |line| output.include?(line) }
          abort "gem:examples: #{example} from the installed gem failed:\n#{output}" unless status.success? && missing.empty?
          puts "gem:examples: #{example} runs from the installed gem (#{lines.first})"
        end
      end
    end
    defined?(Bundler) ? Bundler.with_unbundled_env(&run) : run.call
  end
end

# frozen_string_literal: true

require "fileutils"
require_relative "../wsdl"

module Wirebind
  module CLI
    # +wirebind generate SERVICE.wsdl --out DIR --module Jira+: writes the models
    # and clients of a WSDL as Ruby source ({Wirebind::WSDL::Description#generate}).
    # Its interface is the command line (+wirebind generate --help+).
    # @api private
    class Generate < Command
      NAME = "generate"
      SUMMARY = "write models and clients from a WSDL as Ruby source"

      def parser(options)
        OptionParser.new do |parser|
          parser.banner = "Usage: wirebind generate SERVICE.wsdl|URL --out DIR --module NAME [--fetch] [--root DIR]"
          parser.on("--out DIR", "directory to write into (created if needed)") { |dir| options[:out] = dir }
          parser.on("--module NAME", "the module the classes go in, e.g. Jira (entry file DIR/jira.rb)") { |name| options[:module] = name }
          parser.on("--base DIR", "directory relative imports start from (default: the WSDL's)") { |dir| options[:base] = dir }
          parser.on("--fetch", "read a WSDL or imports given by URL (refused otherwise)") { options[:fetch] = true }
          parser.on("--root DIR", "directory local imports must stay in (default: the WSDL's)") { |dir| options[:root] = dir }
        end
      end

      def run(arguments, options)
        raise UsageError, "one WSDL file, please (got #{arguments.size})" unless arguments.size == 1
        raise UsageError, "--out DIR is required" unless options[:out]
        raise UsageError, "--module NAME is required" unless options[:module]

        description = WSDL.load(arguments.first, base: options[:base], fetch: options.fetch(:fetch, false), root: options[:root])
        files = description.generate(options[:module])
        description.warnings.each { |warning| @err.puts("wirebind generate: warning: #{warning}") }
        files.each do |path, source|
          target = File.join(options[:out], path)
          FileUtils.mkdir_p(File.dirname(target))
          # Unchanged files are left alone (their times too), so a second run changes nothing.
          File.binwrite(target, source) unless File.file?(target) && File.binread(target) == source
        end
        @out.puts("wirebind generate: #{files.size} files in #{options[:out]} (entry: #{File.join(options[:out], files.keys.first)})")
      end
    end

    register(Generate)
  end
end

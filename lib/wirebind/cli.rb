# frozen_string_literal: true

require "optparse"
require_relative "../wirebind"

module Wirebind
  # The +wirebind+ executable: one dispatcher, one command class per command.
  #
  # A command is a class in {COMMANDS} with +NAME+, +SUMMARY+, +#parser(options)+
  # (an OptionParser filling +options+) and +#run(arguments, options)+. Errors
  # (a {Wirebind::Error}, a bad option, a file that cannot be read or written,
  # any other exception) are printed on stderr as one line,
  # +wirebind COMMAND: message+, never a backtrace, and exit with status 1; usage
  # errors (one line too, naming where the usage is) with status 2. A closed
  # output pipe (+| head+) ends quietly with 0.
  module CLI
    # A command's arguments are wrong: printed with a pointer to the command's usage.
    class UsageError < StandardError; end

    # @return [Hash{String => Class}] command classes by name
    COMMANDS = {}

    class << self
      # @param command [Class] adds a command
      def register(command)
        COMMANDS[command::NAME] = command
      end

      # @param argv [Array<String>]
      # @param out [IO]
      # @param err [IO]
      # @return [Integer] the exit status
      def run(argv, out: $stdout, err: $stderr)
        name = argv.first
        if name.nil? || %w[-h --help help].include?(name)
          out.puts(usage)
          return name.nil? ? 2 : 0
        end
        if %w[-v --version].include?(name)
          out.puts("wirebind #{Wirebind::VERSION} (#{Wirebind.backend} backend)")
          return 0
        end
        command_class = COMMANDS[name]
        unless command_class
          err.puts("wirebind: unknown command #{name.inspect} (wirebind --help lists the commands)")
          return 2
        end

        command = command_class.new(out, err)
        options = {}
        parser = command.parser(options)
        begin
          arguments = parser.parse(argv.drop(1))
          command.run(arguments, options)
          0
        rescue OptionParser::ParseError, UsageError => e
          err.puts("wirebind #{name}: #{one_line(e.message)} (wirebind #{name} --help shows the usage)")
          2
        rescue Errno::EPIPE
          0 # the reader (| head) has what it wanted
        rescue Interrupt
          err.puts("wirebind #{name}: interrupted") # ^C: the output was removed, as after any failure
          130
        rescue StandardError => e
          err.puts("wirebind #{name}: #{one_line(e.message)}")
          1
        end
      end

      # @return [String] what +wirebind --help+ prints
      def usage
        lines = ["Usage: wirebind COMMAND [options]", "", "Commands:"]
        COMMANDS.each_value { |command| lines << format("  %-10s %s", command::NAME, command::SUMMARY) }
        lines << "" << "wirebind COMMAND --help describes one."
        lines.join("\n")
      end

      private

      def one_line(message)
        message.strip.gsub(/\s*\n\s*/, " ")
      end
    end

    # What commands share: where they print.
    class Command
      def initialize(out, err)
        @out = out
        @err = err
      end
    end
  end
end

require_relative "cli/generate"
require_relative "cli/convert"
require_relative "cli/serve"

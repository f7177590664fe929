# frozen_string_literal: true

module Wirebind
  module CLI
    # +wirebind convert --require models.rb --type Issue --at PATH --from xml --to json INPUT [OUTPUT]+:
    # streams the records of a file of any size into JSON, JSON Lines or HAL, one
    # record held at a time ({Wirebind::XML.each} / {Wirebind::JSON.each}), so memory
    # stays flat. On a terminal it draws a progress bar (bytes read of the input's
    # size, records per second) with the ruby-progressbar gem when it is installed;
    # piped, it prints nothing but errors, which carry the line or path.
    # Its interface is the command line (+wirebind convert --help+).
    # @api private
    class Convert < Command
      NAME = "convert"
      SUMMARY = "stream records from XML or JSON into JSON, JSON Lines or HAL"
      FROM = %w[xml json].freeze
      TO = %w[json jsonl hal].freeze
      # A constant path: "Issue", "Jira::RemoteIssue". Names come from the command
      # line, never from the payload, and are only looked up, never evaluated.
      CONSTANT = /\A(?:::)?[A-Z]\w*(?:::[A-Z]\w*)*\z/
      # How a list of records opens, separates and closes, per output format.
      FRAMES = Shareable.make(
        "json" => ["[", ",", "]\n"],
        "jsonl" => ["", "\n", "\n"],
        "hal" => ['{"_embedded":{"item":[', ",", "]}}\n"]
      )
      private_constant :CONSTANT, :FRAMES

      def parser(options)
        options[:require] = []
        OptionParser.new do |parser|
          parser.banner = "Usage: wirebind convert --require FILE --type NAME [--at PATH] --from xml|json --to json|jsonl|hal " \
                          "[--serializer NAME] INPUT [OUTPUT]"
          parser.on("--require FILE", "Ruby file declaring the models (and serializers); repeatable") { |file| options[:require] << file }
          parser.on("--type NAME", "the model class of one record, e.g. Issue") { |name| options[:type] = name }
          parser.on("--at PATH", "XML: the path of the records, e.g. Envelope/Body/*/return/item") { |path| options[:at] = path }
          parser.on("--from FORMAT", FROM, "input format: #{FROM.join(', ')} (default: xml)") { |format| options[:from] = format }
          parser.on("--to FORMAT", TO, "output format: #{TO.join(', ')} (default: json)") { |format| options[:to] = format }
          parser.on("--serializer NAME", "a Wirebind::Serializer for each record (required by --to hal)") { |name| options[:serializer] = name }
          parser.on("--strict", "an element or key the model does not declare is an error") { options[:strict] = true }
          parser.on("--missing POLICY", %w[raise empty],
                    "XML: when --at matches no element: raise (default, exit 1) or empty (an empty list)") do |policy|
            options[:missing] = policy
          end
          parser.on("--skip-errors", "leave out the records that cannot be written (counted on stderr, status 0)") do
            options[:skip_errors] = true
          end
          parser.on("--[no-]progress", "a progress bar on a terminal (default: on when stderr is a terminal)") { |on| options[:progress] = on }
        end
      end

      def run(arguments, options)
        raise UsageError, "INPUT and at most one OUTPUT, please (got #{arguments.size} arguments)" unless (1..2).cover?(arguments.size)
        raise UsageError, "--type NAME is required" unless options[:type]

        options[:require].each { |file| load_models(file) }
        type = constant(options[:type], "--type")
        raise UsageError, "--type #{options[:type]} is not a Wirebind::Model class" unless type.is_a?(Class) && type.include?(Model)

        to = options.fetch(:to, "json")
        serializer = options[:serializer] && constant(options[:serializer], "--serializer")
        if serializer && !(serializer.is_a?(Class) && serializer <= Serializer)
          raise UsageError,
                "--serializer #{options[:serializer]} is not a Wirebind::Serializer"
        end
        raise UsageError, "--to hal needs --serializer" if to == "hal" && !serializer

        from = options.fetch(:from, "xml")
        raise UsageError, "--at is for XML input" if options[:at] && from != "xml"

        input_path, output_path = arguments
        check_output(input_path, output_path)
        open_input(input_path) do |input|
          open_output(output_path) do |output|
            progress = Progress.for(@err, input.size, options[:progress])
            skipped = Skipped.new(options[:skip_errors])
            count = convert(input, type, from, decode_options(options), output, to, serializer, progress, skipped)
            progress&.finish(count)
            skipped.report(@err, count)
          end
        end
      end

      private

      def decode_options(options)
        decode = { strict: options.fetch(:strict, false) }
        return decode unless options.fetch(:from, "xml") == "xml"

        decode[:at] = options[:at]
        decode[:missing] = :raise if options[:at] && options.fetch(:missing, "raise") == "raise"
        decode
      end

      # A file that cannot be required is an error line (status 1), not a backtrace.
      def load_models(file)
        require File.expand_path(file)
      rescue LoadError, SyntaxError => e
        raise ArgumentError, "--require #{file}: #{e.message.lines.first.chomp}"
      end

      # The output is written in place of nothing the command still has to read:
      # the same path, a hard link or a symlink to the input is refused. A
      # directory is refused before anything is read (not after the whole run).
      def check_output(input_path, output_path)
        return if output_path.nil? || output_path == "-"
        raise UsageError, "OUTPUT #{output_path} is a directory" if File.directory?(output_path)
        return if input_path == "-"
        return unless File.exist?(output_path) && File.identical?(input_path, output_path)

        raise UsageError, "OUTPUT #{output_path} is the INPUT file #{input_path}: refusing to overwrite it"
      end

      def convert(input, type, from, decode, output, to, serializer, progress, skipped)
        opening, separator, closing = FRAMES.fetch(to)
        format = to == "hal" ? :hal : :plain
        output.write(opening)
        count = 0
        written = 0
        on_record = lambda do |record|
          count += 1
          progress&.update(input.bytes_read, count)
          text = skipped.guard(count) { serializer ? serializer.new(record, format: format).to_json : Wirebind::JSON.encode(record) }
          next unless text

          output.write(separator) unless written.zero?
          output.write(text)
          written += 1
        end
        if from == "xml"
          Wirebind::XML.each(input, type, **decode, &on_record)
        else
          Wirebind::JSON.each(input, type, **decode, &on_record)
        end
        output.write(closing) unless to == "jsonl" && written.zero?
        count
      end

      # The records --skip-errors leaves out: those that cannot be written (an
      # EncodeError). Errors in the input end the run whatever the option: the
      # reader cannot resume after them.
      # @api private
      class Skipped
        # @param enabled [Boolean, nil] --skip-errors given
        def initialize(enabled)
          @enabled = enabled
          @count = 0
          @first = nil
        end

        # @param number [Integer] the record's number, from 1
        # @return [String, nil] the block's text, or nil for a record skipped
        def guard(number)
          yield
        rescue EncodeError => e
          raise unless @enabled

          @count += 1
          @first ||= "record #{number}: #{e.message.strip.gsub(/\s*\n\s*/, ' ')}"
          nil
        end

        # One line on +err+ when records were skipped.
        def report(err, total)
          err.puts("wirebind convert: skipped #{@count} of #{total} records (the first, #{@first})") if @count.positive?
        end
      end

      def constant(name, option)
        raise UsageError, "#{option} #{name.inspect} is not a constant name" unless CONSTANT.match?(name)

        Object.const_get(name)
      rescue NameError
        raise UsageError, "#{option} #{name}: no such constant (is its file given with --require?)"
      end

      def open_input(path)
        return yield CountingReader.new($stdin, nil) if path == "-"

        file = naming_path("read", path) { File.open(path, "rb") }
        begin
          yield CountingReader.new(file, file.size)
        ensure
          file.close
        end
      end

      # A named output is written to a temporary file beside it and renamed over
      # it only when the whole conversion succeeded: a failure leaves the old
      # file (or none) and no partial document.
      def open_output(path)
        return yield @out if path.nil? || path == "-"

        temporary = File.join(File.dirname(path), ".#{File.basename(path)}.#{Process.pid}.#{rand(1 << 32).to_s(36)}.tmp")
        begin
          file = naming_path("write", path) { File.open(temporary, File::WRONLY | File::CREAT | File::EXCL | File::BINARY, 0o666) }
          begin
            yield file
          ensure
            file.close
          end
          naming_path("write", path) { File.rename(temporary, path) }
        ensure
          File.unlink(temporary) if File.exist?(temporary)
        end
      end

      # Opening or renaming a file the system refuses: one line naming the path the
      # user gave (not the temporary file), without Ruby's "@ rb_sysopen - ...".
      def naming_path(verb, path)
        yield
      rescue SystemCallError => e
        raise ArgumentError, "cannot #{verb} #{path}: #{e.message.sub(/ @ .*/m, '')}"
      end

      # The input as the codecs read it (+readpartial+), counting the bytes for the
      # progress bar.
      # @api private
      class CountingReader
        # @return [Integer] bytes read so far
        attr_reader :bytes_read
        # @return [Integer, nil] the input's size, when it is a file
        attr_reader :size

        def initialize(io, size)
          @io = io
          @size = size
          @bytes_read = 0
        end

        def readpartial(length, buffer = nil)
          chunk = buffer ? @io.readpartial(length, buffer) : @io.readpartial(length)
          @bytes_read += chunk.bytesize
          chunk
        end
      end

      # A progress bar on a terminal: bytes read of the input's size, records per
      # second. Drawn by ruby-progressbar when it can be loaded; without it, one
      # line rewritten in place. Redrawn at most ten times a second.
      # @api private
      class Progress
        INTERVAL = 0.1

        # @return [Progress, nil] a bar for +err+, or nil where none is wanted
        #   (+wanted+ false, or nil and +err+ not a terminal) or possible (no size)
        def self.for(err, total, wanted)
          wanted = err.respond_to?(:tty?) && err.tty? if wanted.nil?
          return nil unless wanted && total

          new(err, total)
        end

        def initialize(err, total)
          @err = err
          @total = total
          @started = Clock.now
          @next_draw = 0.0
          @bar =
            begin
              require "ruby-progressbar"
              ProgressBar.create(output: err, total: [total, 1].max, format: "%t |%B| %p%% %e", title: "0 records")
            rescue LoadError
              nil
            end
        end

        def update(bytes, records)
          now = Clock.now
          return if now < @next_draw

          @next_draw = now + INTERVAL
          draw(bytes, records, now)
        end

        def finish(records)
          draw(@total, records, Clock.now)
          @bar ? @bar.finish : @err.puts
        end

        private

        def draw(bytes, records, now)
          rate = records / [now - @started, 1e-9].max
          title = format("%d records, %.0f/s", records, rate)
          if @bar
            @bar.title = title
            @bar.progress = [bytes, @total].min
          else
            @err.print(format("\r%s: %.1f of %.1f MB (%d%%)", title, bytes / 1e6, @total / 1e6, 100 * bytes / [@total, 1].max))
          end
        end
      end

      # The monotonic clock, for the progress bar's rate.
      # @api private
      module Clock
        def self.now
          Process.clock_gettime(Process::CLOCK_MONOTONIC)
        end
      end
    end

    register(Convert)
  end
end

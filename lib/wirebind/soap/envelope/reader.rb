# frozen_string_literal: true

module Wirebind
  module SOAP
    module Envelope
      # Reads a SOAP envelope (a response for the client, a request for a service)
      # in one streaming pass.
      #
      # It first reads the start of the body, as far as the first element of
      # +Body+ (the operation or response element, or a fault), in one way
      # (+Prelude.read+: a plain start matched at once, anything else read by
      # the pure tokenizer): the envelope's version, that element's name, and,
      # for a fault, the whole fault, which {#fault} returns and {#decode}
      # raises. The bytes read for that are kept and replayed, so {#decode} and {#each} then run
      # {Wirebind::XML.decode} / {Wirebind::XML.each} (either backend) over the body from its
      # start: an IO is never read whole.
      #
      # @example
      #   reader = Wirebind::SOAP::Envelope::Reader.new(io)
      #   reader.operation                # => ["getIssueResponse", "http://soap.rpc.jira.atlassian.com"]
      #   reader.decode([RemoteIssue])    # the items of the first child of the response element
      class Reader
        # @return [String, nil] +"1.1"+ or +"1.2"+, from the Envelope's namespace
        attr_reader :version

        # @param input [String, #readpartial, #read] the body
        # @param http_status [Integer, nil] the HTTP status it came with, for {Fault#http_status}
        # @param limits [Hash] limits of {Wirebind::XML.decode} (+max_depth:+, +max_token_size:+)
        # @raise [ParseError] the start of the body is not well-formed XML
        # @raise [DecodeError] not a SOAP envelope, or no Body
        def initialize(input, http_status: nil, **limits)
          @limits = limits
          recorder = Recorder.new(input) unless input.is_a?(String)
          start = Prelude.read(recorder ? recorder.first : input, recorder || input, limits)
          @version = start.version
          @operation = start.operation
          @result = start.result
          @must_understand = start.must_understand
          @headers = start.headers
          @fault = start.fault&.with_http_status(http_status)
          @input = recorder ? Replay.new(recorder.stop, input) : input
        end

        # @return [Array(String, String), nil] the local name and namespace of Body's
        #   first element (nil when Body is empty or holds a fault)
        attr_reader :operation

        # @return [Array(String, String), nil] SOAP 1.2 RPC: the local name and
        #   namespace of the return value's element, as the response's +rpc:result+
        #   names it (Part 2 §4.2.2); nil when there is no +rpc:result+
        attr_reader :result

        # @return [Fault, nil] the fault the body holds
        attr_reader :fault

        # @return [Array<Array(String, String)>] the local name and namespace of each
        #   header block with +mustUnderstand+ true that is meant for this node (SOAP 1.1
        #   §4.2.3: no +actor+ or the +next+ one; SOAP 1.2 Part 1 §5.2.3: no +role+, or
        #   +next+ or +ultimateReceiver+), in document order
        attr_reader :must_understand

        # @return [Array<Array(String, String, String)>] each header block: local name,
        #   namespace, and the block as XML (the namespace declarations in scope carried
        #   onto it), for {Wirebind::XML.decode}
        attr_reader :headers

        # Decodes the result. Raises the fault if the body holds one.
        #
        # @param returns [Class, Symbol, Array, nil] what {Wirebind::XML.decode} takes;
        #   a single type decodes the first child of Body's first element (the
        #   +...Return+ / +...Result+ part), a list type the children of that part;
        #   nil decodes nothing (a one-way or void operation)
        # @param at [String, Wirebind::XML::Path, nil] a path below Body instead, as {Wirebind::XML.decode}'s +at:+
        # @param options [Hash] more options of {Wirebind::XML.decode} (+strict:+, +backend:+)
        # @return [Object, Array, nil]
        # @raise [Fault, ParseError, DecodeError]
        def decode(returns, at: nil, **options)
          raise @fault if @fault
          return nil if returns.nil?

          list = returns.is_a?(Array)
          path = result_path(list, at)
          return (list ? [] : nil) unless path

          XML.decode(take_input, returns, at: path, **@limits, **options)
        end

        # Streams the result's items: each is yielded as it ends, then let go.
        #
        # @param (see #decode)
        # @yieldparam record [Object]
        # @return [Integer] how many were yielded
        def each(returns, at: nil, **options, &block)
          raise @fault if @fault

          item = returns.is_a?(Array) ? returns.first : returns
          path = result_path(true, at)
          return 0 unless path

          XML.each(take_input, item, at: path, **@limits, **options, &block)
        end

        # Decodes the operation element itself (a service's request) into +model+,
        # e.g. one built by {Envelope.arguments_model}.
        #
        # @param model [Class]
        # @param options [Hash] more options of {Wirebind::XML.decode}
        # @return [Wirebind::Model, nil]
        def arguments(model, **options)
          raise @fault if @fault
          return nil unless @operation

          XML.decode(take_input, model, at: below_body(operation_step), **@limits, **options)
        end

        private

        # The body is read once: the prelude and one decode share it.
        def take_input
          input = @input or raise ArgumentError, "a Reader decodes its body once"
          @input = nil
          input
        end

        # The decode's at: as data: the names read are steps as they are, never
        # printed into a String and parsed back.
        # @return [XML::Path, nil]
        def result_path(list, at)
          return below_body(*(at.is_a?(XML::Path) ? at : XML::Path.parse(at)).steps) if at
          return nil unless @operation

          part = @result ? XML::Path.check_step(@result) : XML::Path::ANY
          list ? below_body(operation_step, part, XML::Path::ANY) : below_body(operation_step, part)
        end

        # Body's first element: its name in its namespace (any, when it has none).
        def operation_step
          XML::Path.check_step(@operation)
        end

        def below_body(*steps)
          XML::Path.new([ENVELOPE_STEP, BODY_STEP, *steps], checked: true)
        end

        # Records what the prelude reads from an IO, to be replayed.
        # @api private
        # (+read+, never +readpartial+: the end of a body is a nil, not an EOFError
        # raised through the decoder's frames, which costs more than a small body's decode.)
        class Recorder
          def initialize(io)
            @io = io
            @chunks = []
            @cursor = 0
          end

          # @return [String, nil] the first chunk, read and kept; the next read
          #   starts from the beginning again
          def first
            chunk = read(CHUNK_SIZE)
            @cursor = 0
            chunk
          end

          def read(size)
            unless @cursor < @chunks.size
              chunk = Recorder.read_from(@io, size) or return nil
              @chunks << chunk
            end
            @cursor += 1
            @chunks[@cursor - 1]
          end

          # @return [Array<String>] what was read, in order
          def stop
            chunks = @chunks
            @chunks = nil
            chunks
          end

          # @return [String, nil] the next chunk of +io+, a copy; nil at its end
          def self.read_from(io, size)
            chunk =
              if io.respond_to?(:readpartial) # a socket's read(n) would wait for all n bytes
                begin
                  io.readpartial(size)
                rescue EOFError
                  nil
                end
              else
                io.read(size)
              end
            chunk.nil? || chunk.empty? ? nil : chunk.dup
          end
        end

        # The chunks a {Recorder} kept, then the rest of the IO.
        # @api private
        class Replay
          def initialize(chunks, io)
            @chunks = chunks
            @io = io
          end

          def read(size)
            return @chunks.shift unless @chunks.empty?

            Recorder.read_from(@io, size)
          end
        end
        CHUNK_SIZE = Chunks::SIZE
        EMPTY = [].freeze
        # Envelope and Body in any namespace: the prelude has checked theirs.
        ENVELOPE_STEP = XML::Path.check_step(["Envelope", nil])
        BODY_STEP = XML::Path.check_step(["Body", nil])

        # Reads the start of an envelope: its version, Body's first element, and a
        # fault whole (its detail re-written as XML, with the namespace
        # declarations in scope carried onto it).
        # @api private
        class Prelude < XML::Tokenizer
          FOUND = Object.new.freeze

          # What a plain start says, answered as a Prelude answers it.
          Plain = Struct.new(:version, :operation) do
            def result = nil
            def must_understand = EMPTY
            def headers = EMPTY
            def fault = nil
          end

          # The start tags of a plain response (an XML declaration, Envelope, no
          # Header, Body, Body's first element, attributes without entity
          # references), matched at once: most responses look like this. What
          # this accepts is then read whole, and checked, by the decode.
          QUICK_ATTRIBUTES = %q{((?:\s+[A-Za-z_][\w.:\-]*\s*=\s*(?:"[^"<&]*"|'[^'<&]*'))*)\s*}
          QUICK_START = Regexp.new(
            %q{\A(?:<\?xml\s[^<>]*\?>)?\s*<(?:([A-Za-z_][\w.\-]*):)?Envelope} + QUICK_ATTRIBUTES + %q(>\s*) +
            %q{<(?:([A-Za-z_][\w.\-]*):)?Body} + QUICK_ATTRIBUTES + %q(>\s*) +
            %q{<(?:([A-Za-z_][\w.\-]*):)?([A-Za-z_][\w.\-]*)} + QUICK_ATTRIBUTES + "/?>",
            Regexp::MULTILINE
          )
          QUICK_DECLARATION = /\s(xmlns(?::[\w.-]+)?)\s*=\s*(?:"([^"]*)"|'([^']*)')/
          private_constant :QUICK_ATTRIBUTES, :QUICK_START, :QUICK_DECLARATION

          class << self
            # The one way the start of a body is read; a Reader only asks. A plain
            # SOAP 1.1 start (QUICK_START, all ASCII, every prefix declared on
            # the three start tags, not a fault) is read at once; anything else
            # falls back to the tokenizer (comments, a Header, a fault, SOAP
            # 1.2's rpc:result, another encoding, an entity reference).
            #
            # @param first [String, nil] the body, or its first chunk
            # @param input [String, #read] what the tokenizer reads, from the start
            # @param limits [Hash] the Reader's limits
            # @return [Prelude, Plain] the start: +version+, +operation+, +result+,
            #   +must_understand+, +headers+, +fault+
            # @raise [ParseError, DecodeError] as Reader.new
            def read(first, input, limits)
              plain = plain_start(first)
              return plain if plain

              prelude = new(input, XML::DEFAULT_LIMITS.merge(limits.slice(*XML::DEFAULT_LIMITS.keys), dtd: :reject))
              prelude.read
              prelude
            end

            # @api private
            attr_accessor :last_quick_start

            private

            # @return [Plain, nil] what the start of +text+ says, when it is plain
            def plain_start(text)
              return nil unless text

              # A server starts every response alike: the last start read, and what
              # it gave, are kept (one frozen pair, replaced whole: safe between threads).
              # A text that begins with it matches QUICK_START up to the same end
              # (each part of it ends where its text says), so no match is needed.
              last = last_quick_start
              return last[1] if last && text.start_with?(last[0])

              text = text.b unless text.encoding == Encoding::BINARY || text.ascii_only?
              match = QUICK_START.match(text) or return nil
              start = match[0]
              return nil unless start.ascii_only?

              plain = quick_scope(match)
              self.last_quick_start = [start.freeze, plain].freeze
              plain
            end

            # @return [Plain, nil] the version and operation the start's
            #   declarations give; nil for SOAP 1.2 (the operation's first child
            #   may be rpc:result), a fault, or a prefix declared further out
            def quick_scope(match)
              scope = {}
              [match[2], match[4], match[7]].each do |attributes|
                attributes.scan(QUICK_DECLARATION) { |name, double, single| scope[name] = double || single }
              end
              env = scope[match[1] ? "xmlns:#{match[1]}" : "xmlns"]
              return nil unless Version.by_envelope(env) == SOAP11 && scope[match[3] ? "xmlns:#{match[3]}" : "xmlns"] == env

              uri = scope[match[5] ? "xmlns:#{match[5]}" : "xmlns"]
              return nil if uri == env || (match[5] && uri.nil?)

              Plain.new(SOAP11.number, [match[6].force_encoding(Encoding::UTF_8).freeze, uri&.force_encoding(Encoding::UTF_8)&.freeze].freeze).freeze
            end
          end

          attr_reader :version, :operation, :fault, :result, :must_understand, :headers

          # The roles (actors) a header block may name and still be for this node.
          OWN_ROLES = [nil, Namespaces::SOAP11_ACTOR_NEXT, Namespaces::SOAP12_ROLE_NEXT,
                       Namespaces::SOAP12_ROLE_ULTIMATE_RECEIVER].freeze

          def initialize(input, options)
            super(input, **options)
            @must_understand = []
            @headers = []
            @header = nil # [local, uri, start tag, Capture, closing tag] of the header block being read
            @in_header = false
            @result_text = nil
            @env_ns = nil
            @in_body = false
            @fault_depth = nil
          end

          def read
            done = catch(FOUND) do
              run
              nil
            end
            return if done
            raise DecodeError, "a SOAP envelope needs a Body element" unless @in_body
          end

          def on_start(local, uri, attrs)
            element(local, uri, attrs, @names.size, nil)
          end

          def on_leaf(local, uri, attrs, text)
            inside_detail = @detail_depth
            element(local, uri, attrs, @names.size + 1, text)
            # A leaf inside the detail was written whole.
            closed(@names.size + 1) if @fault_depth && !inside_detail
          end

          def on_text(text)
            if @header
              @header[3].text(text)
            elsif @result_text
              @result_text << text
            elsif @detail_depth
              @detail_content.text(text)
            elsif @field
              @field << text
            end
          end

          def on_end
            return header_end if @header

            closed(@names.size) if @fault_depth
            # SOAP 1.2: the operation element, or its rpc:result, ended.
            if @operation
              finish_result if @result_text
              throw FOUND, true
            end
            return unless @in_body && @names.size == 2

            # Body ends holding nothing.
            throw FOUND, true
          end

          private

          def element(local, uri, attrs, depth, leaf_text)
            return fault_element(local, uri, attrs, depth, leaf_text) if @fault_depth
            return header_content(attrs, uri, leaf_text) if @header

            case depth
            when 1
              @soap_version = Version.by_envelope(uri)
              @version = @soap_version&.number
              unless local == "Envelope" && @version
                raise DecodeError, "expected a SOAP 1.1 or 1.2 Envelope, found <#{local}>#{" in #{uri}" if uri}"
              end

              @env_ns = uri
            when 2
              @in_header = local == "Header" && uri == @env_ns
              if local == "Body" && uri == @env_ns
                @in_body = true
                throw FOUND, true if leaf_text
              end
            when 3
              return header_block(local, uri, attrs, leaf_text) if @in_header
              return unless @in_body

              # SOAP defines only Fault in Body's namespace; some servers write ServiceFault.
              if uri == @env_ns
                start_fault(depth)
                closed(depth) if leaf_text
              else
                @operation = [local, uri].freeze
                # SOAP 1.2 RPC: a look at the first child, for rpc:result.
                throw FOUND, true unless @soap_version.rpc_result? && !leaf_text
              end
            when 4
              return unless @operation # inside a header block

              throw FOUND, true unless local == "result" && uri == RPC_NS

              @result_text = +(leaf_text || "")
              if leaf_text
                finish_result
                throw FOUND, true
              end
              @want_text = true
              return
            end
            @want_text = false
          end

          # A header block: kept as XML; noted when mustUnderstand "1" or "true" (in
          # the envelope's namespace) for this node.
          def header_block(local, uri, attrs, leaf_text)
            qname = element_qname(local, uri)
            start = "<#{qname}#{all_declarations}#{attributes_xml(attrs)}>"
            if leaf_text
              @headers << [local.freeze, uri&.freeze, "#{start}#{XML::Escape.text(leaf_text)}</#{qname}>".freeze].freeze
            else
              @header = [local.freeze, uri&.freeze, start, XML::Capture.new(:xml, uri, nil, scope: self, written: namespace_snapshot), "</#{qname}>"]
              @want_text = true
            end
            must_understand_block(local, uri, attrs) if attrs
          end

          # An element inside a header block.
          def header_content(attrs, uri, leaf_text)
            qname, written, decls = tag_source(attrs)
            leaf_text ? @header[3].leaf(qname, uri, written, decls, leaf_text) : @header[3].start(qname, uri, written, decls)
          end

          def header_end
            local, uri, start, capture, close = @header
            if @names.size == 3
              @headers << [local, uri, "#{start}#{capture.value}#{close}".freeze].freeze
              @header = nil
              @want_text = false
            else
              capture.finish
            end
          end

          def must_understand_block(local, uri, attrs)
            must = role = nil
            attrs.each_slice(3) do |name, attr_uri, value|
              next unless attr_uri == @env_ns

              case name
              when "mustUnderstand" then must = %w[1 true].include?(value.strip)
              when "actor", "role" then role = value.strip
              end
            end
            @must_understand << [local.freeze, uri&.freeze].freeze if must && OWN_ROLES.include?(role)
          end

          # rpc:result's text is a QName: the return value's element.
          def finish_result
            text = @result_text.strip
            @result_text = nil
            prefix, local = text.include?(":") ? text.split(":", 2) : ["", text]
            uri = namespace_snapshot[prefix]
            raise DecodeError, "rpc:result names #{text.inspect}, whose prefix #{prefix.inspect} is not declared" if uri.nil? && !prefix.empty?
            raise DecodeError, "rpc:result names #{text.inspect}, not an element name" unless local.match?(/\A[A-Za-z_][\w.-]*\z/)

            @result = [local.freeze, uri&.freeze].freeze
          end

          def start_fault(depth)
            @fault_depth = depth
            @fields = {}
            @subcodes = []
            @field = nil
            @detail_depth = nil
            @path = []
          end

          # Children of a fault: 1.1's faultcode, faultstring, faultactor, detail;
          # 1.2's Code/Value, Code/Subcode/.../Value, Reason/Text, Node, Role, Detail.
          def fault_element(local, uri, attrs, depth, leaf_text)
            if @detail_depth
              # Inside the detail: the same capture as a :xml attribute's.
              qname, written, decls = tag_source(attrs)
              leaf_text ? @detail_content.leaf(qname, uri, written, decls, leaf_text) : @detail_content.start(qname, uri, written, decls)
              return
            end
            @path << local
            if depth == @fault_depth + 1 && %w[detail Detail].include?(local)
              @detail_depth = depth
              @detail = +""
              @detail_name = element_qname(local, uri)
              @detail_content = XML::Capture.new(:xml, uri, nil, scope: self, written: namespace_snapshot)
              @detail << "<" << @detail_name << all_declarations << attributes_xml(attrs) << ">"
              @detail_content.text(leaf_text) if leaf_text
              @want_text = true
              return
            end
            @field = +""
            @field << leaf_text if leaf_text
            @want_text = true
          end

          def closed(depth)
            if depth == @fault_depth
              finish_fault
              throw FOUND, true
            end
            if @detail_depth
              if depth == @detail_depth
                @detail << @detail_content.value << "</" << @detail_name << ">"
                @detail_depth = nil
                @fields[:detail] = @detail
                @path.pop
              else
                @detail_content.finish
              end
              return
            end
            record_field
            @path.pop
            @field = nil
          end

          def record_field
            return unless @field

            text = @field.strip
            # an empty (or xsi:nil) field claims nothing: gSOAP writes 1.1's fields
            # nil before a SOAP 1.2 fault's Code and Reason
            return if text.empty?

            case @path
            in ["faultcode"] then @fields[:code] ||= text
            in ["faultstring"] then @fields[:reason] ||= text
            in ["faultactor"] | ["Role"] then @fields[:actor] ||= text
            in ["Node"] then @fields[:node] ||= text
            in ["Code", "Value"] then @fields[:code] ||= text
            in ["Code", *subs, "Value"] if subs.all?("Subcode") then @subcodes << text
            in ["Reason", "Text"] then @fields[:reason] ||= text
            else nil
            end
          end

          def finish_fault
            fields = @fields.transform_values { |v| v.is_a?(String) && v.empty? ? nil : v }
            @fault = Fault.new(code: fields[:code], reason: fields[:reason], detail: fields[:detail],
                               subcodes: @subcodes, actor: fields[:actor], node: fields[:node])
          end

          def element_qname(local, uri)
            return local if uri.nil? || uri == @default_ns

            prefix = namespace_snapshot.key(uri)
            prefix ? "#{prefix}:#{local}" : local
          end

          def attributes_xml(attrs)
            return "" unless attrs

            xml = +""
            i = 0
            while i < attrs.size
              local, uri, value = attrs[i, 3]
              name = uri ? "#{namespace_snapshot.key(uri) || 'xml'}:#{local}" : local
              xml << " " << name << '="' << XML::Escape.attribute(value) << '"'
              i += 3
            end
            xml
          end

          def all_declarations
            namespace_snapshot.filter_map do |prefix, uri|
              next if prefix == "xml"

              prefix.empty? ? %( xmlns="#{XML::Escape.attribute(uri)}") : %( xmlns:#{prefix}="#{XML::Escape.attribute(uri)}")
            end.join
          end
        end
        private_constant :Recorder, :Replay, :Prelude, :CHUNK_SIZE, :EMPTY, :ENVELOPE_STEP, :BODY_STEP
      end
    end
  end
end

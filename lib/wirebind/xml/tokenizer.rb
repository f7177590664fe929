# frozen_string_literal: true

require "strscan"
require_relative "syntax"
require_relative "source"
require_relative "dtd"

module Wirebind
  module XML
    # A streaming XML 1.0 + Namespaces tokenizer that checks well-formedness in
    # full and reports what it reads through four hooks, which subclasses
    # override: {#on_start}, {#on_leaf}, {#on_text}, {#on_end}.
    #
    # It reads through a buffer refilled from a {Source}, never holding more of
    # the input than the token being read plus one chunk. Element nesting is an
    # explicit stack of names, so depth costs heap, not Ruby stack. The commonest
    # shape of a payload, an element holding only text (+<key>ABC-1</key>+), is
    # matched whole by one regular expression and reported as one {#on_leaf}.
    #
    # Subclasses set +@want_text+ to say whether character data of the current
    # element matters; when it is false, text is checked but never allocated.
    #
    # @api private
    class Tokenizer
      include Syntax

      LT = 60
      AMP = 38
      RBRACKET = 93

      XML_DECL = /<\?xml[ \t\n]+version[ \t\n]*=[ \t\n]*(?:"1\.[0-9]+"|'1\.[0-9]+')(?:[ \t\n]+encoding[ \t\n]*=[ \t\n]*(?:"[A-Za-z][A-Za-z0-9._-]*"|'[A-Za-z][A-Za-z0-9._-]*'))?(?:[ \t\n]+standalone[ \t\n]*=[ \t\n]*(?:"(yes|no)"|'(yes|no)'))?[ \t\n]*\?>/
      REFERENCE_END = /[^#:#{NC_CHAR}]/
      TARGET_END = /[^:#{NC_CHAR}]./m
      CLOSERS = { "--" => /--/, "]]>" => /\]\]>/, "?>" => /\?>/ }.freeze
      PI_TARGET = /<\?(#{NAME.source})/
      ATTRIBUTE_CACHE_SIZE = 4096
      QNAME_CACHE_SIZE = 4096

      # @return [Integer] the configured maximum element depth
      attr_reader :max_depth

      # @param input [String, #readpartial, #read]
      # @param max_depth [Integer] deepest element nesting accepted
      # @param max_token_size [Integer] largest single tag, comment, PI or DOCTYPE in bytes
      # @param max_entity_expansions [Integer] references to declared entities a document may expand
      # @param max_entity_bytes [Integer] total bytes all entity expansions may produce
      # @param max_entity_depth [Integer] deepest nesting of entity references
      # @param max_attributes [Integer] most attributes in one start tag (namespace declarations included)
      # @param max_namespaces [Integer] most namespace declarations in scope at once
      # @param dtd [Symbol] +:internal+ parses an internal subset, +:reject+ refuses any DOCTYPE
      def initialize(input, max_depth:, max_token_size:, max_entity_expansions:, max_entity_bytes:, max_entity_depth:,
                     max_attributes:, max_namespaces:, dtd:)
        @source = input.is_a?(Source) ? input : Source.new(input)
        @max_depth = max_depth
        @max_token_size = max_token_size
        @max_attributes = max_attributes
        @max_namespaces = max_namespaces
        @max_entity_expansions = max_entity_expansions
        @max_entity_bytes = max_entity_bytes
        @max_entity_depth = max_entity_depth
        @dtd_policy = dtd
        @buf = +""
        @s = StringScanner.new(@buf)
        @eof = false
        @base_offset = 0
        @base_lines = 0
        @base_column = 0 # characters of the current line already discarded from the buffer
        @names = []
        # The namespace bindings in force, prefix => URI ("" the default namespace).
        # A start tag's declarations change it in place and log what they replaced
        # (@ns_undo: prefix, old URI or nil); its end tag undoes them (@ns_saves:
        # depth, undo log size, version before). Looking a prefix up, declaring and
        # undeclaring each cost O(1), whatever the number of bindings in scope.
        @ns = { "xml" => XML_NS }
        @default_ns = nil # @ns[""], kept apart: it is looked up for every element
        @ns_undo = []
        @ns_saves = []
        # Names this state of the bindings for the attribute cache: a new number on
        # every change, the old one back when a change is undone.
        @ns_version = 0
        @ns_versions = 0
        @entity_stack = []
        @entity_expansions = 0
        @entity_bytes = 0
        @want_text = false
        @standalone = false
        @dtd = nil
        @fast = nil # fast_tags' binary view of @buf (:stale: to be made again; nil: none, in an entity's text)
        @buf_owned = false
        @attribute_cache = {}
        @qname_cache = {}
      end

      # Reads the whole document, calling the hooks; raises {ParseError} at the
      # first well-formedness or limit violation.
      def run
        refill
        parse_prolog
        parse_content
        parse_epilog
        nil
      end

      # Hooks: the defaults ignore everything (a pure well-formedness check).

      # An element starts that holds more than text. +attrs+ is nil or a flat
      # Array of [local, uri, value, ...] (namespace declarations left out).
      def on_start(_local, _uri, _attrs); end

      # An element holding only text (possibly empty), start to end in one go.
      def on_leaf(_local, _uri, _attrs, _text); end

      # Character data of the current element; called only while +@want_text+.
      def on_text(_text); end

      # The current element ends (its name and namespace declarations still in force).
      def on_end; end

      # @param prefix [String] ("" for the default namespace)
      # @return [String, nil] the namespace +prefix+ is bound to where the parser is
      def namespace_of(prefix)
        @ns[prefix]
      end

      # The start tag just reported, as the document wrote it, for hooks that
      # re-write it (XML::Capture). Valid in on_start and on_leaf, and only for
      # tags read by #open_element: those read while +@want_text+ is set are.
      # @return [Array] [qname, attributes as [qname, uri, value, ...] or nil,
      #   the tag's namespace declarations as [prefix, uri or nil, ...] or nil]
      def tag_source(attrs)
        [@tag, attrs && tag_attribute_names(attrs), @tag_ns && tag_declarations(@tag_ns[0])]
      end

      # @return [Hash{String => String}] a frozen copy of the namespace bindings in
      #   force (prefix => URI, "" the default namespace), for hooks that keep them
      #   past the current element (the live Hash changes in place). One copy per
      #   state of the bindings, however many elements share it.
      def namespace_snapshot
        (@ns_snapshots ||= {})[@ns_version] ||= @ns.dup.freeze
      end

      # A mark of the current token's position, resolved by {#position} later (only
      # if needed: it holds on to the buffer rather than counting lines now).
      def mark
        if @entity_stack.empty?
          [@buf, @token_start, @base_lines, @base_column, @base_offset]
        else
          entity = @entity_stack.first
          [entity[0], entity[4], @base_lines, @base_column, @base_offset]
        end
      end

      # @return [Array(Integer, Integer, Integer)] line, column and offset of the
      #   current token, or of +pos+, or of a {#mark}
      def position(pos = @token_start || @s.pos)
        return resolve(*pos) if pos.is_a?(Array)

        buf = @buf
        unless @entity_stack.empty?
          buf, pos = @entity_stack.first.values_at(0, 4)
        end
        resolve(buf, pos, @base_lines, @base_column, @base_offset)
      end

      private

      def resolve(buf, pos, base_lines, base_column, base_offset)
        # A token's position is that of its first character: the fast path's match
        # starts with the white space before the tag.
        pos += buf.byteslice(pos, buf.bytesize - pos)[/\A[ \t\n]*/].bytesize if pos < buf.bytesize
        prefix = buf.byteslice(0, pos)
        newline = prefix.rindex("\n")
        line = base_lines + prefix.count("\n") + 1
        column = newline ? prefix.length - newline : base_column + prefix.length + 1
        [line, column, base_offset + pos]
      end

      public

      # ---- services for the DTD parser ----------------------------------------

      # Raises a positioned error for the DTD parser.
      def raise_error(message, klass, pos, reason: nil)
        error(message, klass, pos, reason: reason)
      end

      # Normalizes an ATTLIST default value as an attribute value.
      def normalize_default(body)
        normalize_attribute(body, 0)
      end

      # @return [String] the character a character reference names, checked
      def char_from_reference(decimal, hex)
        char_from_ref(decimal, hex)
      end

      # Counts one entity expansion against the limits.
      def count_expansion(text, depth)
        @entity_expansions += 1
        @entity_bytes += text.bytesize
        error("more than max_entity_depth (#{@max_entity_depth}) nested entity references", LimitError) if depth >= @max_entity_depth
        if @entity_expansions > @max_entity_expansions
          error("more than max_entity_expansions (#{@max_entity_expansions}) entity references expanded", LimitError)
        end
        return unless @entity_bytes > @max_entity_bytes

        error("entity expansion produced more than max_entity_bytes (#{@max_entity_bytes} bytes)", LimitError)
      end

      private

      # ---- buffer -------------------------------------------------------------

      # A tag scan that reached the end of the buffer goes back to the token's
      # +start+ and reads more (within max_token_size).
      # @return [Integer, nil] where the token starts now; nil at the input's end
      def token_refill(start)
        @s.pos = start
        check_token_size
        @s.pos if refill
      end

      # Keeps the unread part of the buffer and appends the next chunk; false at
      # the end of the input (or inside an entity's replacement text, which has no more).
      def refill
        return false if @eof || !@entity_stack.empty?

        chunk = @source.next_chunk
        unless chunk
          @eof = true
          return false
        end
        pos = @s.pos
        if pos.zero? && @buf.empty?
          @buf = chunk
          @buf_owned = false # the Source's (for a String input, the caller's): never appended to
        elsif pos.zero? && @buf_owned
          # A token read in many chunks: append in place (amortized), rather than
          # copy all of it so far on every read.
          @buf << chunk
        else
          if pos.positive?
            # All of the buffer read (text, a big comment read past): counted in
            # place, and the chunk taken as it is, with no copy of either.
            consumed = pos == @buf.bytesize ? @buf : @buf.byteslice(0, pos)
            newline = consumed.rindex("\n")
            @base_lines += consumed.count("\n")
            @base_column = newline ? consumed.length - newline - 1 : @base_column + consumed.length
          end
          @base_offset += pos
          @token_start -= pos if @token_start
          if pos == @buf.bytesize
            @buf = chunk
            @buf_owned = false
          else
            @buf = @buf.byteslice(pos, @buf.bytesize - pos) << chunk
            @buf_owned = true
          end
        end
        @s.string = @buf
        # The binary view for fast_tags is made when it is next used: a view shares
        # the buffer, and appending to a shared buffer copies it.
        @fast = :stale
        true
      end

      # Refills until +pattern+ (a few bytes long at most) occurs at or after
      # +from+ bytes past the current position (which must be the start of the
      # token). False if the input ends first. After a refill only what is new is
      # searched, and the last bytes before it, which a match may straddle: a
      # token read in many chunks costs its length, not its length times theirs.
      def ensure_ahead(pattern, from = 0)
        s = @s
        start = s.pos
        first = from
        while true # not loop: a return or break inside a block allocates
          s.pos = start + from if start + from <= @buf.bytesize
          found = s.pos == start + from && s.exist?(pattern)
          s.pos = start
          return true if found

          check_token_size
          from = @buf.bytesize - start - 8
          from -= 1 while from > first && (@buf.getbyte(start + from) & 0xC0) == 0x80 # a character's start
          from = first if from < first
          return false unless refill

          start = s.pos
        end
      end

      # Refills until the '>' that ends the start tag at the current position
      # (outside quoted values) is in the buffer, or the input ends. Where the
      # search stopped, and whether inside quotes, is carried over each refill: a
      # long tag trickling in a few bytes per read is scanned once, not once per read.
      def ensure_start_tag
        s = @s
        start = s.pos
        from = 1 # bytes past the '<' known to hold no end of the tag
        quote = nil
        while true # not loop: a return or break inside a block allocates
          s.pos = start + from
          while (byte = @buf.getbyte(s.pos))
            if quote
              s.skip(quote == 34 ? /[^"]*+/ : /[^']*+/)
              break unless @buf.getbyte(s.pos)

              quote = nil
              s.pos += 1
            elsif byte == 62 # ">"
              s.pos = start
              return
            else
              s.skip(/[^>"']*+/)
              next unless (byte = @buf.getbyte(s.pos)) && byte != 62

              quote = byte
              s.pos += 1
            end
          end
          from = s.pos - start
          start = token_refill(start) or return
        end
      end

      # What each state of #ensure_doctype's scan skips: the DOCTYPE's grammar as
      # far as quotes, comments and PIs hide a ']' or '>' from it.
      DOCTYPE_RUNS = {
        head: /[^\[>"']*+/, subset: /[^\]"'<]*+/, after: /[ \t\n]*+/, 34 => /[^"]*+/, 39 => /[^']*+/
      }.freeze
      DOCTYPE_CLOSERS = { comment: /-->/, pi: /\?>/ }.freeze
      private_constant :DOCTYPE_RUNS, :DOCTYPE_CLOSERS

      # Refills until the whole DOCTYPE at the current position is in the buffer
      # (to its '>'), until what is there cannot be one (the DTD parser then says
      # what is wrong), or until the input ends. The scan's state is carried over
      # each refill, so a big internal subset is scanned once however it is cut.
      def ensure_doctype
        s = @s
        start = s.pos
        from = 9 # past "<!DOCTYPE"
        state = :head
        outer = nil # the state a quoted literal returns to
        while true # not loop: a return or break inside a block allocates
          s.pos = start + from
          until s.eos?
            if (closer = DOCTYPE_CLOSERS[state])
              unless s.skip_until(closer)
                s.pos = char_start([s.pos, @buf.bytesize - 2].max) # "-->" may straddle the next read
                break
              end
              state = :subset
              next
            end
            s.skip(DOCTYPE_RUNS[state])
            break unless (byte = @buf.getbyte(s.pos))

            case state
            when 34, 39 # the closing quote
              state = outer
            when :head
              if byte == 62 # ">"
                s.pos = start
                return
              elsif byte == 91 # "["
                state = :subset
              else
                outer = :head
                state = byte
              end
            when :subset
              if byte == 93 # "]"
                state = :after
              elsif byte == LT
                break if @buf.bytesize - s.pos < 4 && !@eof # "<!--" or "<?" may straddle the next read

                if s.skip(/<!--/)
                  state = :comment
                elsif s.skip(/<\?/)
                  state = :pi
                else
                  s.pos += 1 # a markup declaration's '<'
                end
                next
              else
                outer = :subset
                state = byte
              end
            else # :after, at the '>' that ends the DOCTYPE or at what cannot follow its subset
              s.pos = start
              return
            end
            s.pos += 1
          end
          from = s.pos - start
          start = token_refill(start) or return
        end
      end

      # +pos+ (at least 0), or the start of the character of +buf+ it falls inside.
      def char_start(pos, buf = @buf)
        return 0 unless pos.positive?

        pos -= 1 while pos.positive? && (buf.getbyte(pos) & 0xC0) == 0x80
        pos
      end

      def ensure_bytes(count)
        while @buf.bytesize - @s.pos < count
          return false unless refill
        end
        true
      end

      # After a token was read whole from the buffer (a String input is one
      # buffer), or a piece of one read in pieces (the error then names
      # +mark+, the @token_mark kept across refills).
      def check_token_end(mark = @token_start)
        return if @s.pos - @token_start <= @max_token_size || @entity_stack.any?

        error("a single token is larger than max_token_size (#{@max_token_size} bytes)", LimitError, mark)
      end

      def check_token_size
        return if @buf.bytesize - @s.pos <= @max_token_size

        error("a single token is larger than max_token_size (#{@max_token_size} bytes)", LimitError)
      end

      # Errors point where the scanner stopped, unless the caller knows better (the
      # start of the token, for a wrong end tag or a bad reference).
      def error(message, klass = ParseError, pos = @s.pos, reason: nil)
        @token_start = pos
        line, column, offset = position(pos)
        message = "#{message} (in the replacement text of entity '#{@entity_stack.last[3]}')" unless @entity_stack.empty?
        raise klass.new(message, line: line, column: column, offset: offset, reason: reason)
      end

      # The input ended inside a token or an open element (ParseError#reason
      # +:truncated+).
      def truncated(message, pos = @s.pos)
        error(message, ParseError, pos, reason: :truncated)
      end

      # ---- prolog and epilog --------------------------------------------------

      def parse_prolog
        s = @s
        ensure_bytes(6)
        if s.match?(/<\?xml[ \t\n]/)
          ensure_ahead(/\?>/)
          @token_start = s.pos
          error("malformed XML declaration") unless s.scan(XML_DECL)
          @standalone = (s[1] || s[2]) == "yes"
        end
        seen_doctype = false
        loop do
          s.skip(WS)
          if s.eos?
            next if refill

            error("the document has no root element")
          end
          ensure_bytes(9)
          if s.match?(/<!DOCTYPE/)
            error("only one DOCTYPE is allowed, before the root element") if seen_doctype
            seen_doctype = true
            parse_doctype
          elsif !misc
            break
          end
        end
        error("expected the root element") unless @buf.getbyte(s.pos) == LT
      end

      def parse_epilog
        s = @s
        loop do
          s.skip(WS)
          if s.eos?
            return unless refill

            next
          end
          error("content after the root element") unless misc
        end
      end

      # A comment or processing instruction; false if something else is next.
      def misc
        s = @s
        ensure_bytes(4)
        @token_start = s.pos
        if s.match?(/<!--/)
          comment
        elsif s.match?(/<\?/)
          processing_instruction
        else
          return false
        end
        check_token_end
        true
      end

      def comment
        s = @s
        s.pos += 4
        truncated("unterminated comment", @token_mark) unless read_past("--")
        s.pos -= 2
        hold_token_mark if @buf.bytesize - s.pos < 3 # ensure_bytes may refill
        truncated("unterminated comment", @token_mark) unless ensure_bytes(3)
        error("'--' is not allowed inside a comment") unless s.skip(/-->/)
      end

      def processing_instruction
        s = @s
        # The target and the character after it (and the one after that: '?>')
        # are kept whole; the rest is read past.
        truncated("unterminated processing instruction") unless ensure_ahead(TARGET_END, 2)
        start = s.pos # a refill moves the token to the buffer's start
        target = s.scan(PI_TARGET) && s[1]
        problem =
          if target.nil?
            "a processing instruction needs a target name"
          elsif target.casecmp?("xml")
            at_start = start.zero? && @base_offset.zero? && @entity_stack.empty? # not in an entity's text
            at_start ? "malformed XML declaration" : "the XML declaration is only allowed at the very start of the document"
          elsif target.include?(":")
            "processing instruction target '#{target}' contains a colon (Namespaces in XML 1.0)"
          elsif s.skip(/\?>/)
            return
          elsif !s.skip(S)
            "expected whitespace after the processing instruction target"
          end
        if problem
          # Without a '?>' anywhere after it, the PI is unterminated whatever else is wrong.
          after_target = problem.start_with?("expected whitespace") ? s.pos - start : 0
          s.pos = start
          closed = ensure_ahead(/\?>/)
          error(closed ? problem : "unterminated processing instruction", ParseError, @token_start + (closed ? after_target : 0),
                reason: closed ? nil : :truncated)
        end
        truncated("unterminated processing instruction", @token_mark) unless read_past("?>")
      end

      # Reads on past the next +closer+ (a String of two or three ASCII bytes),
      # letting go of what it searched: one huge comment, PI or CDATA section costs
      # a chunk of memory, not its size (the text is handed to #on_text in pieces
      # when +text+). False if the input ends first. @token_mark keeps the token's
      # position for errors once its start has been let go; @token_start then goes
      # negative, still counting the token's bytes for max_token_size.
      #
      # Each buffer is read whole and the next chunk taken as it comes (no copy,
      # see #refill); the last bytes of a buffer, which may begin a closer, are
      # carried over and looked at with the next one. On return the closer is in
      # the buffer, just before the scanner.
      def read_past(closer, text: false)
        s = @s
        pattern = CLOSERS.fetch(closer)
        size = closer.bytesize
        @token_mark = @token_start # a position in this buffer until #hold_token_mark
        carry = nil # bytes read that may begin a closer: fewer than it, whole characters
        while true # not loop: a return or break inside a block allocates
          if carry
            joined = (carry + @buf.byteslice(0, size - 1)).b
            at = joined.index(closer)
            if at && at < carry.bytesize
              on_text(carry.byteslice(0, at)) if text && at.positive?
              take_back(carry.byteslice(at, carry.bytesize - at))
              s.pos = size
              break
            end
            if @buf.bytesize < size - 1 # a tiny read: what it carries is not decided yet
              carry += @buf
              cut = char_start(carry.bytesize - (size - 1), carry)
              on_text(carry.byteslice(0, cut)) if text && cut.positive?
              carry = carry.byteslice(cut, carry.bytesize - cut)
              s.pos = @buf.bytesize
              check_token_end(@token_mark)
              hold_token_mark
              next if refill

              return false
            end
            on_text(carry) if text
            carry = nil
          end
          from = s.pos
          if s.skip_until(pattern)
            on_text(@buf.byteslice(from, s.pos - from - size)) if text
            break
          end
          cut = char_start([from, @buf.bytesize - (size - 1)].max)
          on_text(@buf.byteslice(from, cut - from)) if text && cut > from
          carry = @buf.byteslice(cut, @buf.bytesize - cut) if cut < @buf.bytesize
          s.pos = @buf.bytesize
          check_token_end(@token_mark)
          hold_token_mark
          return false unless refill
        end
        check_token_end(@token_mark)
        true
      end

      # Turns @token_mark into a #mark before a refill can let go of the
      # token's start: a mark allocates, so only tokens that span reads pay.
      def hold_token_mark
        @token_mark = mark if @token_mark.is_a?(Integer)
      end

      # Puts back in front of the buffer the first bytes of a closer that began in
      # the buffer before (ASCII, no line end: the position moves back on its line).
      def take_back(bytes)
        @buf = bytes + @buf
        @buf_owned = true
        @s.string = @buf
        @fast = :stale
        @base_offset -= bytes.bytesize
        @base_column -= bytes.bytesize
        @token_start += bytes.bytesize
      end

      def parse_doctype
        s = @s
        error("a DOCTYPE is not allowed (dtd: :reject)") if @dtd_policy == :reject
        ensure_doctype
        @token_start = s.pos
        @dtd = Dtd.new(self, s, standalone: @standalone)
        @dtd.parse
      end

      # ---- content ------------------------------------------------------------

      def parse_content
        s = @s
        while true
          if !@want_text && (fast = @fast) && fast_tags(fast == :stale ? (@fast = StringScanner.new(@buf.dup.force_encoding(Encoding::BINARY))) : fast)
            return
          end

          @token_start = s.pos
          buf_byte = @buf.getbyte(s.pos)
          if buf_byte == LT
            if s.scan(START_OR_LEAF)
              open_element(s[1], s[2], s[4] || (s[3] ? +"" : nil))
            elsif s.scan(END_TAG)
              close_element(s[1])
            else
              markup
            end
            check_token_end
            return if @names.empty? && @entity_stack.empty?
          elsif buf_byte == AMP
            reference_in_content
          elsif buf_byte.nil?
            end_of_buffer
          elsif buf_byte == RBRACKET
            close_bracket
          elsif @want_text
            on_text(s.scan(TEXT))
          else
            s.skip(TEXT)
          end
        end
      end

      # The fast path: tags with ASCII names, matched on a binary view of the buffer
      # (where character classes test bytes instead of decoding UTF-8), one after
      # the other for as long as no text is wanted. It is open_element's common case
      # written out: attributes seen before under the same bindings come from the
      # cache, names without a prefix take the default namespace. Names stay binary:
      # they are ASCII, equal to their UTF-8 twins.
      # @return [Boolean] true when the root element has closed
      def fast_tags(fast)
        fast.pos = @s.pos
        while !@want_text && (size = fast.skip(SPACED_TAG_BINARY))
          @token_start = fast.pos - size
          error("a single token is larger than max_token_size (#{@max_token_size} bytes)", LimitError, @token_start) if size > @max_token_size
          if fast[1]
            close_element(fast[2])
            next unless @names.empty?

            @s.pos = fast.pos
            return true
          end
          qname = fast[3]
          text = fast[6]
          leaf_text = text ? text.force_encoding(Encoding::UTF_8) : (fast[5] ? +"" : nil)
          attributes = fast[4]
          if @dtd || (attributes && !((hit = @attribute_cache[attributes]) && hit[0] == @ns_version)) || qname.include?(":")
            @s.pos = fast.pos
            open_element(qname, attributes&.force_encoding(Encoding::UTF_8), leaf_text)
          else
            attrs = attributes ? hit[1] : nil
            if leaf_text
              error("elements are nested deeper than max_depth (#{@max_depth})", LimitError, @token_start) if @names.size >= @max_depth
              on_leaf(qname, @default_ns, attrs, leaf_text)
            else
              @names << qname
              error("elements are nested deeper than max_depth (#{@max_depth})", LimitError, @token_start) if @names.size > @max_depth
              on_start(qname, @default_ns, attrs)
              next
            end
          end
          next unless @names.empty?

          @s.pos = fast.pos
          return true
        end
        @s.pos = fast.pos
        false
      end

      def end_of_buffer
        return if refill

        if (entity = @entity_stack.last)
          error("the replacement text of entity '#{entity[3]}' ends inside an element") if @names.size != entity[2]
          @entity_stack.pop
          @buf = entity[0]
          @s.string = @buf
          @s.pos = entity[1]
          @fast = entity[5]
          return
        end
        truncated("the input ends inside element <#{@names.last}>")
      end

      def close_bracket
        s = @s
        ensure_bytes(3)
        error("']]>' is not allowed in text") if s.match?(/\]\]>/)
        s.pos += 1
        on_text("]") if @want_text
      end

      # Tags, comments, CDATA and PIs that the fast expressions did not take: the
      # token may straddle the end of the buffer, carry references, or be wrong.
      def markup
        s = @s
        ensure_bytes(9)
        byte = @buf.getbyte(s.pos + 1)
        if byte == 47 # "/"
          truncated("unterminated end tag") unless ensure_ahead(/>/)
          return close_element(s[1]) if s.scan(END_TAG)

          s.pos += 2
          error("expected an element name in the end tag") unless (name = s.scan(NAME))
          error("expected '>' to close the end tag </#{name}>")
        elsif byte == 33 # "!"
          if s.match?(/<!--/)
            comment
          elsif s.match?(/<!\[CDATA\[/)
            cdata
          elsif s.match?(/<!DOCTYPE/)
            error("a DOCTYPE is only allowed before the root element")
          else
            error("expected a comment or CDATA section after '<!'")
          end
        elsif byte == 63 # "?"
          processing_instruction
        else
          start_tag_slow
        end
      end

      def cdata
        @s.pos += 9
        truncated("unterminated CDATA section", @token_mark) unless read_past("]]>", text: @want_text)
      end

      # A start tag the fast expression could not take: whole it may hold references,
      # whitespace to normalize, or an error to pinpoint.
      def start_tag_slow
        s = @s
        ensure_start_tag
        s.pos += 1
        unless (qname = s.scan(NAME))
          error("expected an element name after '<'")
        end
        raw = nil
        while true # not loop: a return or break inside a block allocates
          had_space = s.skip(S)
          if s.skip(%r{/>})
            return open_element(qname, raw, +"")
          elsif s.skip(/>/)
            return open_element(qname, raw, nil)
          end

          unless had_space && s.match?(NAME)
            s.eos? ? truncated("the input ends inside the start tag <#{qname}>") : error("expected an attribute, '>' or '/>' in the start tag <#{qname}>")
          end
          too_many_attributes if raw && raw.size >= 2 * @max_attributes
          name = s.scan(NAME)
          s.skip(S)
          error("expected '=' after attribute name '#{name}'") unless s.skip(/=/)
          s.skip(S)
          value = attribute_value(s)
          (raw ||= []) << name << value
        end
      end

      # Reads a quoted attribute value at the scanner and returns it normalized
      # (XML 1.0 §3.3.3): references expanded, white space characters made spaces.
      def attribute_value(s)
        quote = s.scan(/["']/)
        error("expected a quoted attribute value") unless quote
        body = quote == '"' ? s.scan(/[^<"]*/) : s.scan(/[^<']*/)
        unless s.skip(quote == '"' ? /"/ : /'/)
          s.match?(/</) ? error("'<' is not allowed in an attribute value") : truncated("unterminated attribute value")
        end
        normalize_attribute(body, 0)
      end

      def normalize_attribute(body, depth)
        return body unless body.match?(/[&\t\n\r]/)

        out = +""
        scanner = StringScanner.new(body)
        until scanner.eos?
          if (plain = scanner.scan(/[^&\t\n\r]++/))
            out << plain
          elsif scanner.skip(/[\t\n\r]/)
            out << " "
          elsif scanner.scan(CHAR_REF)
            out << char_from_ref(scanner[1], scanner[2])
          elsif scanner.scan(ENTITY_REF)
            out << entity_in_attribute(scanner[1], depth)
          else
            error("'&' must start a character or entity reference")
          end
        end
        out
      end

      def entity_in_attribute(name, depth)
        if (predefined = PREDEFINED[name])
          return predefined
        end

        entity = @dtd&.general_entity(name)
        error("undeclared entity '#{name}' referenced") unless entity
        error("the external entity '#{name}' cannot be referenced in an attribute value") if entity.external?
        error("the unparsed entity '#{name}' cannot be referenced in an attribute value") if entity.unparsed?
        error("entity '#{name}' references itself") if entity.expanding
        count_expansion(entity.text, depth)
        error("the replacement text of entity '#{name}' contains '<' and is used in an attribute value") if entity.text.include?("<")
        entity.expanding = true
        begin
          normalize_attribute(entity.text, depth + 1)
        ensure
          entity.expanding = false
        end
      end

      def char_from_ref(decimal, hex, pos = @s.pos)
        code = decimal ? decimal.to_i : hex.to_i(16)
        error(format("character reference &#%s; is not an XML character", decimal || "x#{hex}"), ParseError, pos) unless code <= 0x10FFFF && char?(code)
        code.chr(Encoding::UTF_8)
      end

      def fast_attributes(source)
        raw = []
        source.scan(FAST_ATTR) { |name, double, single| raw << name << (double || single) }
        raw
      end

      # Applies DTD defaults, namespace declarations and checks, then reports the
      # element. +leaf_text+ nil means a start tag whose content follows.
      # Applies DTD defaults, namespace declarations and checks, then reports the
      # element. +attributes+ is the attribute source text from the fast expression
      # (a String) or the parsed [qname, value, ...] pairs from the slow path (an
      # Array). +leaf_text+ nil means a start tag whose content follows.
      #
      # Payloads repeat the same attribute text (+xsi:type="xsd:string"+) on most
      # elements: the checked, resolved attributes are cached by that text for as
      # long as the same namespace bindings are in force.
      def open_element(qname, attributes, leaf_text)
        saved_ns = nil
        attrs = nil
        if attributes
          cacheable = attributes.is_a?(String) && @dtd.nil?
          if cacheable && (hit = @attribute_cache[attributes]) && hit[0] == @ns_version
            attrs = hit[1]
          else
            outer_version = @ns_version
            undo_size = @ns_undo.size
            raw = attributes.is_a?(String) ? fast_attributes(attributes) : attributes
            attrs = process_attributes(qname, raw)
            if @ns_version == outer_version
              if cacheable
                @attribute_cache.clear if @attribute_cache.size >= ATTRIBUTE_CACHE_SIZE
                @attribute_cache[attributes] = [outer_version, attrs].freeze
              end
            else
              saved_ns = [undo_size, outer_version]
            end
          end
        elsif @dtd&.attributes_declared?
          attrs = process_attributes(qname, nil)
          saved_ns = nil
        end
        if qname.include?(":") && (split = @qname_cache[qname] || split_qname(qname))
          local, prefix = split
          uri = @ns[prefix]
          error(prefix == "xmlns" ? "element names must not use the prefix 'xmlns'" : "namespace prefix '#{prefix}' of element <#{qname}> is not declared") unless uri && prefix != "xmlns"
        else
          local = qname
          uri = @default_ns
        end
        # The tag as written, for hooks that re-write it (see #tag_source).
        @tag = qname
        @tag_attributes = attributes
        @tag_ns = saved_ns
        # A depth error points at the tag's start, wherever the tag was read.
        if leaf_text
          error("elements are nested deeper than max_depth (#{@max_depth})", LimitError, @token_start) if @names.size >= @max_depth
          on_leaf(local, uri, attrs, leaf_text)
          unbind(*saved_ns) if saved_ns
        else
          @names << qname
          error("elements are nested deeper than max_depth (#{@max_depth})", LimitError, @token_start) if @names.size > @max_depth
          @ns_saves << [@names.size, *saved_ns] if saved_ns
          on_start(local, uri, attrs)
        end
      end

      # attrs ([local, uri, value, ...]) with each local name replaced by the
      # name as written: the raw attributes minus the declarations, in order.
      def tag_attribute_names(attrs)
        raw = @tag_attributes
        names = raw.is_a?(String) ? raw.scan(FAST_ATTR).map(&:first) : (raw || []).each_slice(2).map(&:first)
        names.reject! { |name| name.start_with?("xmlns") && (name.size == 5 || name.getbyte(5) == 58) }
        written = attrs.dup
        i = 0
        while i < written.size
          name = names[i / 3]
          # An attribute a DTD defaulted has no written name: one bound to its namespace.
          name ||= written[i + 1] ? "#{@ns.key(written[i + 1])}:#{written[i]}" : written[i]
          written[i] = name
          i += 3
        end
        written
      end

      # The declarations logged since +undo_size+: [prefix, uri or nil, ...].
      def tag_declarations(undo_size)
        decls = []
        i = undo_size
        while i < @ns_undo.size
          decls << @ns_undo[i] << @ns[@ns_undo[i]]
          i += 2
        end
        decls
      end

      # Checks and resolves [qname, value, ...]; namespace declarations among them
      # are bound in @ns (see #initialize), to be undone at the element's end.
      # @return [Array, nil] [local, uri, value, ...] without the declarations
      def process_attributes(qname, raw)
        raw = @dtd.apply_attribute_rules(qname, raw) if @dtd&.attributes_declared?
        return nil if raw.nil? || raw.empty?

        too_many_attributes if raw.size > 2 * @max_attributes
        check_duplicate_attributes(raw) if raw.size > 2
        declared = false
        i = 0
        while i < raw.size
          name = raw[i]
          if name.start_with?("xmlns") && (name.size == 5 || name.getbyte(5) == 58)
            declare_namespace(name, raw[i + 1])
            declared = true
          end
          i += 2
        end
        if declared
          @ns_version = (@ns_versions += 1)
          @default_ns = @ns[""]
        end
        attrs = resolve_attributes(raw)
        attrs&.freeze
      end

      # Undoes the declarations logged past +undo_size+, newest first.
      def unbind(undo_size, version)
        undo = @ns_undo
        ns = @ns
        while undo.size > undo_size
          old = undo.pop
          prefix = undo.pop
          old ? ns[prefix] = old : ns.delete(prefix)
        end
        @ns_version = version
        @default_ns = ns[""]
      end

      # A limit error at the tag's start, where a depth error points too.
      def too_many_attributes
        error("a start tag has more than max_attributes (#{@max_attributes}) attributes", LimitError, @token_start)
      end

      # [local, prefix] of an element name, cached: names repeat on every record.
      def split_qname(qname)
        @qname_cache.clear if @qname_cache.size >= QNAME_CACHE_SIZE
        error("element name <#{qname}> is not a qualified name (one colon, between a prefix and a local name)") unless qname.match?(QNAME_ONLY)
        colon = qname.index(":")
        pair = [qname[(colon + 1)..].freeze, qname[0, colon].freeze]
        @qname_cache[qname.dup.freeze] = pair.freeze
      end

      def close_element(qname)
        names = @names
        expected = names.last
        if (entity = @entity_stack.last) && names.size <= entity[2]
          error("end tag </#{qname}> closes an element opened outside entity '#{entity[3]}'", ParseError, @token_start)
        end
        unless qname == expected
          error(expected ? "expected </#{expected}>, found </#{qname}>" : "unexpected end tag </#{qname}>", ParseError, @token_start)
        end
        # The element's own declarations are still in force during on_end.
        on_end
        if (save = @ns_saves.last) && save[0] == names.size
          @ns_saves.pop
          unbind(save[1], save[2])
        end
        names.pop
      end

      # The index of the colon that ends a name's prefix, or nil. Element names
      # are qualified names (open_element refuses others), so it is their only colon.
      def prefix_end(name)
        name.index(":")
      end

      def check_duplicate_attributes(raw)
        seen = {}
        i = 0
        while i < raw.size
          error("attribute '#{raw[i]}' appears twice in one start tag") if seen[raw[i]]
          seen[raw[i]] = true
          i += 2
        end
      end

      def declare_namespace(name, uri)
        if @ns_undo.size >= 2 * @max_namespaces
          error("more than max_namespaces (#{@max_namespaces}) namespace declarations in scope", LimitError)
        end
        if name.size == 5
          error("the default namespace cannot be bound to #{uri}") if uri == XML_NS || uri == XMLNS_NS
          prefix = ""
        else
          error("attribute name '#{name}' is not a qualified name (one colon, between a prefix and a local name)") unless name.match?(QNAME_ONLY)
          prefix = name[6, name.size]
          error("the prefix 'xmlns' cannot be declared") if prefix == "xmlns"
          if prefix == "xml"
            error("the prefix 'xml' can only be bound to #{XML_NS}") unless uri == XML_NS
          elsif uri == XML_NS || uri == XMLNS_NS
            error("#{uri} can only be bound to its reserved prefix")
          end
          error("namespace prefix '#{prefix}' cannot be undeclared (xmlns:#{prefix}=\"\") in XML 1.0") if uri.empty?
        end
        @ns_undo << prefix << @ns[prefix]
        uri.empty? ? @ns.delete(prefix) : @ns[prefix] = uri
      end

      # Turns [qname, value, ...] into [local, uri, value, ...], dropping namespace
      # declarations and checking that no two attributes share an expanded name.
      def resolve_attributes(raw)
        attrs = []
        i = 0
        while i < raw.size
          name = raw[i]
          value = raw[i + 1]
          i += 2
          next if name.start_with?("xmlns") && (name.size == 5 || name.getbyte(5) == 58)

          if (colon = name.index(":"))
            error("attribute name '#{name}' is not a qualified name (one colon, between a prefix and a local name)") unless name.match?(QNAME_ONLY)
            prefix = name[0, colon]
            uri = @ns[prefix]
            error("namespace prefix '#{prefix}' of attribute '#{name}' is not declared") unless uri
            attrs << name[colon + 1, name.size] << uri << value
          else
            attrs << name << nil << value
          end
        end
        check_expanded_duplicates(attrs) if attrs.size > 3
        attrs.empty? ? nil : attrs
      end

      def check_expanded_duplicates(attrs)
        seen = {}
        i = 0
        while i < attrs.size
          key = [attrs[i], attrs[i + 1]]
          error("attribute '#{attrs[i]}' appears twice in the namespace #{attrs[i + 1]}") if seen[key]
          seen[key] = true
          i += 3
        end
      end

      def reference_in_content
        s = @s
        # Read on to the first character that cannot be part of a reference (the ';'
        # if it is one), searching each byte once however the input is cut.
        ensure_ahead(REFERENCE_END, 1)
        error("'&' must start a character or entity reference") unless (ref = s.scan(CHAR_REF) || s.scan(ENTITY_REF))
        if ref.getbyte(1) == 35 # "#"
          char = char_from_ref(s[1], s[2], @token_start)
          on_text(char) if @want_text
          return
        end
        name = s[1]
        if (predefined = PREDEFINED[name])
          on_text(predefined) if @want_text
          return
        end
        entity = @dtd&.general_entity(name)
        unless entity
          # Where XML 1.0 §4.1 lets an undeclared entity pass (its declaration may be in
          # a DTD that was not read), it would still be dropped content: refuse it.
          error("undeclared entity '#{name}' referenced", ParseError, @token_start)
        end
        error("the unparsed entity '#{name}' cannot be referenced in content", ParseError, @token_start) if entity.unparsed?
        # A non-validating processor may skip an external entity (XML 1.0 §4.4.3), but
        # dropping its content silently would hand the caller wrong data: refuse it.
        error("external entity '#{name}' is referenced, and external entities are never fetched", ParseError, @token_start) if entity.external?

        if @entity_stack.any? { |e| e[3] == name }
          error("entity '#{name}' references itself", ParseError, @token_start)
        end
        count_expansion(entity.text, @entity_stack.size)
        text = entity.text
        if !text.include?("<") && !text.include?("&") && !text.include?("]")
          on_text(text) if @want_text
          return
        end
        @entity_stack << [@buf, s.pos, @names.size, name, @token_start, @fast]
        @buf = text
        s.string = text
        @fast = nil
      end
    end
  end
end

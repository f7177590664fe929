# frozen_string_literal: true

module Wirebind
  module XML
    # Reads a DOCTYPE declaration and its internal subset (XML 1.0 §2.8), checking
    # its syntax in full, and keeps what a non-validating processor must act on:
    # general entities (expanded by the tokenizer, within its limits), attribute
    # defaults and attribute types (for normalization). External subsets and
    # external entities are never read.
    #
    # Parsing is iterative: content models are parsed with an explicit stack and
    # parameter-entity replacement texts are pushed as inputs, never recursed into.
    #
    # @api private
    class Dtd
      include Syntax

      # A declared general entity: replacement text for an internal one, nil for
      # an external one (+notation+ set when unparsed). +expanding+ guards recursion.
      Entity = Struct.new(:name, :text, :notation, :expanding) do
        def external? = text.nil?
        def unparsed? = !notation.nil?
      end

      # An attribute declared in an ATTLIST: its type and its default (nil when
      # #IMPLIED or #REQUIRED).
      AttributeRule = Struct.new(:name, :type, :default)

      EXTERNAL_ID = /(SYSTEM|PUBLIC)/
      SYSTEM_LITERAL = /"([^"]*)"|'([^']*)'/
      PUBID_LITERAL = %r{"([ \r\na-zA-Z0-9\-'()+,./:=?;!*#@$_%]*)"|'([ \r\na-zA-Z0-9\-()+,./:=?;!*#@$_%]*)'}
      ATT_TYPE = /(CDATA|IDREFS|IDREF|ID|ENTITIES|ENTITY|NMTOKENS|NMTOKEN)(?=[ \t\n\r])/

      def initialize(tokenizer, scanner, standalone:)
        @tokenizer = tokenizer
        @main = scanner
        @s = scanner
        @standalone = standalone
        @inputs = [] # [scanner, name] of parameter entities being read
        @general = {}
        @parameter = {}
        @attributes = {}
      end

      # @return [Entity, nil]
      def general_entity(name)
        @general[name]
      end

      def attributes_declared?
        !@attributes.empty?
      end

      # Adds declared defaults missing from +raw+ ([qname, value, ...]) and
      # normalizes values of tokenized types; returns +raw+ or a new array.
      def apply_attribute_rules(qname, raw)
        rules = @attributes[qname]
        return raw unless rules

        result = raw ? raw.dup : []
        # The tag's attributes by name, once: a rule list and a tag of
        # thousands of attributes each stay linear.
        positions = {}
        (0...result.size).step(2) { |i| positions[result[i]] ||= i }
        rules.each_value do |rule|
          if (index = positions[rule.name])
            result[index + 1] = collapse(result[index + 1]) unless rule.type == "CDATA"
          elsif rule.default
            result << rule.name << rule.default
          end
        end
        result
      end

      # Reads +<!DOCTYPE ...>+ at the scanner.
      def parse
        s = @s
        s.pos += 9
        expect_space("after '<!DOCTYPE'")
        name = s.scan(NAME) or error("expected the document element's name in the DOCTYPE")
        qualified(name, "the DOCTYPE's element name")
        external_id(public_only_allowed: false) if s.skip(S) && s.match?(EXTERNAL_ID)
        s.skip(S)
        internal_subset if s.skip(/\[/)
        s.skip(S)
        error("expected '>' to close the DOCTYPE") unless s.skip(/>/)
      end

      private

      def error(message, klass = ParseError, reason: nil)
        pos = @inputs.empty? ? @s.pos : @inputs.first[2]
        message = "#{message} (in parameter entity '%#{@inputs.last[1]};')" unless @inputs.empty?
        @tokenizer.raise_error(message, klass, pos, reason: reason)
      end

      # The subset (or a parameter entity's text) ended inside a declaration.
      def truncated(message)
        error(message, reason: :truncated)
      end

      # Element and attribute names, wherever they occur, are qualified names
      # (Namespaces in XML 1.0 §7): one colon at most, between a non-empty prefix
      # and local part. Errors point at the name just scanned.
      def qualified(name, what)
        return if !name.include?(":") || name.match?(QNAME_ONLY)

        @s.pos -= name.bytesize if @inputs.empty?
        error("#{what} '#{name}' is not a qualified name (one colon, between a prefix and a local name)")
      end

      # Entity, notation and processing-instruction target names hold no colon
      # (Namespaces in XML 1.0 §7).
      def no_colon(name, what)
        return unless name.include?(":")

        @s.pos -= name.bytesize if @inputs.empty?
        error("#{what} '#{name}' contains a colon (Namespaces in XML 1.0)")
      end

      def expect_space(where)
        error("expected whitespace #{where}") unless @s.skip(S)
      end

      def collapse(value)
        value.squeeze(" ").strip
      end

      def internal_subset
        loop do
          @s.skip(S)
          if @s.eos?
            if @inputs.empty?
              truncated("the input ends inside the DOCTYPE's internal subset")
            end
            @s = @inputs.pop[0]
            next
          end
          if @s.match?(/\]/)
            error("']' inside a parameter entity's replacement text") unless @inputs.empty?
            @s.pos += 1
            return
          end
          declaration
        end
      end

      def declaration
        s = @s
        if s.match?(/%/)
          parameter_reference
        elsif s.match?(/<!ELEMENT/)
          element_declaration
        elsif s.match?(/<!ATTLIST/)
          attlist_declaration
        elsif s.match?(/<!ENTITY/)
          entity_declaration
        elsif s.match?(/<!NOTATION/)
          notation_declaration
        elsif s.match?(/<!--/)
          s.pos += 4
          truncated("unterminated comment") unless s.skip_until(/--/)
          error("'--' is not allowed inside a comment") unless s.skip(/>/)
        elsif s.match?(/<\?/)
          processing_instruction
        elsif s.match?(/<!\[/)
          error("conditional sections are not allowed in the internal subset")
        else
          error("expected a markup declaration in the internal subset")
        end
      end

      def processing_instruction
        s = @s
        s.pos += 2
        target = s.scan(NAME) or error("a processing instruction needs a target name")
        error("the XML declaration is only allowed at the very start of the document") if target.casecmp?("xml")
        no_colon(target, "processing instruction target")
        return if s.skip(/\?>/)

        expect_space("after the processing instruction target")
        truncated("unterminated processing instruction") unless s.skip_until(/\?>/)
      end

      def parameter_reference
        s = @s
        ref = s.scan(/%(#{NAME.source});/o) or error("malformed parameter-entity reference")
        name = s[1]
        entity = @parameter[name]
        # Skipping a reference would silently drop the declarations it holds (and,
        # XML 1.0 §5.1, every one after it): refuse it, as references to undeclared
        # or external general entities are refused.
        if entity.nil? || entity.external?
          s.pos -= ref.bytesize # the error points at the reference
          error("undeclared parameter entity '%#{name};' referenced") if entity.nil?
          error("external parameter entity '%#{name};' is referenced, and external entities are never fetched")
        end
        error("parameter entity '%#{name};' references itself") if @inputs.any? { |input| input[1] == name }
        error("parameter entities are nested deeper than max_entity_depth", LimitError) if @inputs.size >= 64
        @tokenizer.count_expansion(entity.text, @inputs.size)
        position = @inputs.empty? ? s.pos - ref.bytesize : @inputs.first[2]
        nested = StringScanner.new(" #{entity.text} ")
        @inputs << [s, name, position, nested]
        @s = nested
      end

      def element_declaration
        s = @s
        s.pos += 9
        expect_space("after '<!ELEMENT'")
        name = s.scan(NAME) or error("expected an element name in <!ELEMENT")
        qualified(name, "element name")
        expect_space("after the element name in <!ELEMENT #{name}")
        if s.skip(/EMPTY|ANY/)
          # nothing more
        elsif s.skip(/\(/)
          s.skip(S)
          s.skip(/#PCDATA/) ? mixed_content : children_content
        else
          error("expected EMPTY, ANY or a content model in <!ELEMENT #{name}")
        end
        s.skip(S)
        error("expected '>' to close <!ELEMENT #{name}") unless s.skip(/>/)
      end

      # Mixed ::= '(' S? '#PCDATA' (S? '|' S? Name)* S? ')*' | '(' S? '#PCDATA' S? ')'
      def mixed_content
        s = @s
        names = 0
        loop do
          s.skip(S)
          if s.skip(/\)/)
            error("a mixed content model with element names must end with ')*'") if names.positive? && !s.skip(/\*/)
            s.skip(/\*/) if names.zero?
            return
          end
          error("expected '|' or ')' in a mixed content model") unless s.skip(/\|/)
          s.skip(S)
          name = s.scan(NAME) or error("expected an element name in a mixed content model")
          qualified(name, "element name")
          names += 1
        end
      end

      # children ::= (choice | seq) ('?' | '*' | '+')?, parsed with a stack of the
      # separators of the open groups.
      def children_content
        s = @s
        separators = [nil]
        loop do
          # a content particle: a name or a nested group
          s.skip(S)
          if s.skip(/\(/)
            separators << nil
            next
          end
          error("#PCDATA is only allowed first in a mixed content model") if s.match?(/#PCDATA/)
          name = s.scan(NAME) or error("expected an element name or '(' in a content model")
          qualified(name, "element name")
          s.skip(/[?*+]/)
          # after a particle: a separator, or the end of one or more groups
          loop do
            s.skip(S)
            if s.skip(/\)/)
              separators.pop
              s.skip(/[?*+]/)
              return if separators.empty?

              next
            end
            separator = s.scan(/[|,]/) or error("expected '|', ',' or ')' in a content model")
            if separators.last.nil?
              separators[-1] = separator
            elsif separators.last != separator
              error("a content model group cannot mix '|' and ','")
            end
            break
          end
        end
      end

      def attlist_declaration
        s = @s
        s.pos += 9
        expect_space("after '<!ATTLIST'")
        element = s.scan(NAME) or error("expected an element name in <!ATTLIST")
        qualified(element, "element name")
        loop do
          had_space = s.skip(S)
          return if s.skip(/>/)

          error("expected whitespace before an attribute definition in <!ATTLIST #{element}") unless had_space
          name = s.scan(NAME) or error("expected an attribute name or '>' in <!ATTLIST #{element}")
          qualified(name, "attribute name")
          expect_space("after attribute name #{name}")
          type = attribute_type
          expect_space("after the type of attribute #{name}")
          default = default_declaration
          rules = (@attributes[element] ||= {})
          next if rules.key?(name)

          default = collapse(default) if default && type != "CDATA"
          rules[name] = AttributeRule.new(name, type, default)
        end
      end

      def attribute_type
        s = @s
        return s[1] if s.scan(ATT_TYPE)

        if s.skip(/NOTATION/)
          expect_space("after NOTATION")
          error("expected '(' after NOTATION") unless s.skip(/\(/)
          name_group(NAME) { |name| no_colon(name, "notation name") }
          return "NOTATION"
        end
        error("expected an attribute type") unless s.skip(/\(/)
        name_group(NMTOKEN)
        "ENUMERATION"
      end

      def name_group(pattern)
        s = @s
        loop do
          s.skip(S)
          name = s.scan(pattern) or error("expected a name in an enumeration")
          yield name if block_given?
          s.skip(S)
          return if s.skip(/\)/)

          error("expected '|' or ')' in an enumeration") unless s.skip(/\|/)
        end
      end

      def default_declaration
        s = @s
        return nil if s.skip(/#REQUIRED|#IMPLIED/)

        expect_space("after #FIXED") if s.skip(/#FIXED/)
        quote = s.scan(/["']/) or error("expected #REQUIRED, #IMPLIED, #FIXED or a quoted default value")
        body = s.scan(quote == '"' ? /[^<"]*/ : /[^<']*/)
        unless s.skip(quote == '"' ? /"/ : /'/)
          s.match?(/</) ? error("'<' is not allowed in an attribute value") : truncated("unterminated default value")
        end
        @tokenizer.normalize_default(body)
      end

      def entity_declaration
        s = @s
        s.pos += 8
        expect_space("after '<!ENTITY'")
        parameter = false
        if s.skip(/%/)
          parameter = true
          expect_space("after '%' in a parameter entity declaration")
        end
        name = s.scan(NAME) or error("expected an entity name")
        no_colon(name, "entity name")
        expect_space("after entity name '#{name}'")
        text = nil
        notation = nil
        if (quote = s.scan(/["']/))
          text = entity_value(quote)
        elsif s.match?(EXTERNAL_ID)
          external_id(public_only_allowed: false)
          if !parameter && s.skip(S) && s.skip(/NDATA/)
            expect_space("after NDATA")
            notation = s.scan(NAME) or error("expected a notation name after NDATA")
            no_colon(notation, "notation name")
          end
        else
          error("expected a quoted value, SYSTEM or PUBLIC in the declaration of entity '#{name}'")
        end
        s.skip(S)
        error("expected '>' to close the declaration of entity '#{name}'") unless s.skip(/>/)
        table = parameter ? @parameter : @general
        table[name] ||= Entity.new(name, text&.freeze, notation, false)
      end

      # EntityValue: character references are replaced now, general entity
      # references are kept for expansion at the point of use (§4.5).
      def entity_value(quote)
        s = @s
        out = +""
        stop = quote == '"' ? /[^%&"]+/ : /[^%&']+/
        loop do
          if (plain = s.scan(stop))
            out << plain
          elsif s.skip(quote == '"' ? /"/ : /'/)
            return out
          elsif s.match?(/%/)
            error("parameter-entity references are not allowed inside declarations in the internal subset")
          elsif s.scan(CHAR_REF)
            out << @tokenizer.char_from_reference(s[1], s[2])
          elsif (ref = s.scan(ENTITY_REF))
            out << ref
          elsif s.eos?
            truncated("unterminated entity value")
          else
            error("'&' must start a character or entity reference")
          end
        end
      end

      def external_id(public_only_allowed:)
        s = @s
        kind = s.scan(EXTERNAL_ID)
        expect_space("after #{kind}")
        if kind == "PUBLIC"
          s.scan(PUBID_LITERAL) or error("expected a quoted public identifier of allowed characters")
          return :public if public_only_allowed && !s.match?(/[ \t\n\r]+["']/)

          expect_space("after the public identifier")
        end
        s.scan(SYSTEM_LITERAL) or error("expected a quoted system identifier")
        :system
      end

      def notation_declaration
        s = @s
        s.pos += 10
        expect_space("after '<!NOTATION'")
        name = s.scan(NAME) or error("expected a notation name")
        no_colon(name, "notation name")
        expect_space("after notation name '#{name}'")
        error("expected SYSTEM or PUBLIC in <!NOTATION #{name}") unless s.match?(EXTERNAL_ID)
        external_id(public_only_allowed: true)
        s.skip(S)
        error("expected '>' to close <!NOTATION #{name}") unless s.skip(/>/)
      end
    end
  end
end

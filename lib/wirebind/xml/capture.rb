# frozen_string_literal: true

module Wirebind
  module XML
    # The value of a +:xml+ or +:any+ attribute, built from the tokens of the
    # element it maps to. Both backends feed it the same events (the C decoder
    # through Ruby calls, only inside such elements), so they agree on every
    # byte by construction: one rule, written once.
    #
    # Events: {#start} and {#leaf} for each element inside the captured one,
    # {#text} for its character data, {#finish} at each inner end tag; {#value}
    # when the captured element ends. Names arrive as the document wrote them
    # (+qname+, with its prefix) together with the namespace they resolved to;
    # +decls+ are the namespace declarations the element itself makes, as a flat
    # Array +[prefix, uri, ...]+ (+""+ the default namespace, a nil uri for
    # +xmlns=""+); +attrs+ a flat Array +[qname, uri, value, ...]+.
    #
    # +:xml+ (a String): elements, attributes and text re-written (comments and
    # processing instructions dropped, references expanded, CDATA escaped,
    # elements without content as empty-element tags). Each top-level element
    # of the content carries the declarations of the namespaces in scope that
    # its subtree uses (in names, and in attribute values of the form
    # +prefix:local+, such as +xsi:type="xsd:string"+) and that are declared
    # outside the captured element; declarations made inside are written where
    # they were. So the text is well-formed and namespace-equivalent on its own.
    #
    # +:any+ (nested values, see {OpenContent}): an element with neither
    # attributes nor child elements is its text (a String, "" when empty); any
    # other element a Hash: +"@name"+ for an attribute (`"@{uri}name"` in a
    # namespace), +"#text"+ for its text (left out when it only separates child
    # elements, and when empty), and each child element under its local name when it is in the
    # same namespace as its parent, else under `"{uri}local"` (`"{}local"`: no
    # namespace); a name that repeats holds an Array, in document order. When
    # that shape cannot give the document order back (text that is not blank after
    # a child element, or a name that repeats after another one), +"#content"+
    # holds the content in order too: an Array of Strings (text, white space
    # included) and one-pair Hashes (each a key to the same value).
    #
    # A +"*"+ +:any+ item (an +xsd:any+ wildcard beside declared elements) has
    # no name of its own in the model, so its value keeps the element's: a
    # one-pair Hash, the element's key to its value, the key as a child's in +"#content"+
    # (the local name when the element is in the record's namespace, else
    # `"{uri}local"`).
    #
    # Limits are the decoder's: the tokenizer enforces depth, token size,
    # attribute and namespace counts before any event arrives here, and nothing
    # here recurses.
    #
    # @api private
    class Capture
      KEY_TEXT = "#text"
      KEY_CONTENT = "#content"
      BLANK = /\A[ \t\r\n]*\z/
      QNAME_VALUE = /\A(#{XML::Syntax::NCNAME_SRC}):#{XML::Syntax::NCNAME_SRC}\z/

      # The value of a captured element that holds only text.
      # @param kind [Symbol] +:xml+ or +:any+
      # @param attrs [Array, nil] the element's own attributes, [name, uri, value, ...]
      #   (the name with or without its prefix)
      # @param text [String]
      # @param named [Array(String, String), nil] a +"*"+ +:any+ item's element:
      #   its local name and the namespace of the record it is in
      # @param uri [String, nil] the element's namespace (with +named+)
      # @return [String, Hash]
      def self.leaf_value(kind, attrs, text, named = nil, uri = nil)
        return XML::Escape.text(text) if kind == :xml

        value = attrs ? Capture.new(kind, nil, attrs).tap { |capture| capture.text(text) }.value : text
        named ? { key_of(named[0], uri, named[1]) => value } : value
      end

      # The key of an element named +qname+ in +uri+ inside one in +parent_uri+.
      def self.key_of(qname, uri, parent_uri)
        colon = qname.index(":")
        local = colon ? qname[(colon + 1)..] : qname
        uri == parent_uri ? local : "{#{uri}}#{local}"
      end

      # @param kind [Symbol] +:xml+ or +:any+
      # @param uri [String, nil] the captured element's namespace (+:any+ names
      #   its children relative to it)
      # @param attrs [Array, nil] its own attributes (+:any+ keeps them), as for {.leaf_value}
      # @param scope [#namespace_of, nil] (+:xml+) the decoder feeding it, asked
      #   what the prefix of an attribute value in +prefix:local+ form is bound
      #   to (+xsi:type="xsd:string"+), during the event only
      # @param written [Hash{String => String}, nil] (+:xml+) declarations the
      #   output will be placed under (prefix => uri), which need no repeating
      #   (SOAP::Fault#detail's element carries every one in scope)
      # @param named [Array(String, String), nil] as for {.leaf_value}
      def initialize(kind, uri, attrs, scope: nil, written: nil, named: nil)
        @kind = kind
        @named = named && Capture.key_of(named[0], uri, named[1])
        @scope = scope
        @written = written
        @depth = 0
        if kind == :xml
          @out = String.new(encoding: Encoding::UTF_8)
          @piece = nil   # the top-level element being written
          @head = 0      # where its declarations go: just past "<qname"
          @carry = nil   # prefix => uri, declared outside and used by it
          @inner = {}    # prefix => how many open elements inside declare it
          @declared = [] # per open element: the prefixes it declared
          @names = []
        else
          @nodes = [[nil, uri, any_attributes(attrs), nil]]
        end
      end

      # @return [Integer] elements open inside the captured one
      attr_reader :depth

      # An element inside the captured one starts.
      def start(qname, uri, attrs, decls)
        @depth += 1
        if @kind == :xml
          open_tag(qname, uri, attrs, decls)
          @names << qname << @piece.bytesize
        else
          parent = @nodes.last
          @nodes << [Capture.key_of(qname, uri, parent[1]), uri, any_attributes(attrs), nil]
        end
      end

      # An element inside the captured one, holding only text, seen whole.
      def leaf(qname, uri, attrs, decls, text)
        if @kind == :xml
          open_tag(qname, uri, attrs, decls)
          if text.empty?
            empty_element_tag
          else
            @piece << XML::Escape.text(text) << "</" << qname << ">"
          end
          close_tag
        else
          parent = @nodes.last
          add(parent, Capture.key_of(qname, uri, parent[1]), attrs ? node_value([nil, uri, any_attributes(attrs), text]) : text)
        end
      end

      # Character data of the innermost open element (the captured one included).
      def text(text)
        if @kind == :xml
          (@piece || @out) << XML::Escape.text(text)
        else
          node = @nodes.last
          node[3] ? node[3] << text : node[3] = text.dup
          order(node, nil, text) if node[5]
        end
      end

      # The innermost element inside the captured one ends.
      def finish
        @depth -= 1
        if @kind == :xml
          # An element that got no content is written as an empty-element tag,
          # as a leaf is, whatever (comments, empty CDATA) it held.
          empty_at = @names.pop
          qname = @names.pop
          @piece.bytesize == empty_at ? empty_element_tag : @piece << "</" << qname << ">"
          close_tag
        else
          node = @nodes.pop
          add(@nodes.last, node[0], node_value(node))
        end
      end

      # @return [String, Hash] the captured element's value, once it has ended
      def value
        return @out if @kind == :xml

        value = node_value(@nodes.first)
        @named ? { @named => value } : value
      end

      private

      def open_tag(qname, uri, attrs, decls)
        top = @piece.nil?
        if top
          @piece = String.new(encoding: Encoding::UTF_8)
          @carry = {}
        end
        @piece << "<" << qname
        @head = @piece.bytesize if top
        declared = nil
        if decls
          declared = []
          i = 0
          while i < decls.size
            prefix = decls[i]
            ns = decls[i + 1]
            @piece << (prefix.empty? ? " xmlns=\"" : " xmlns:#{prefix}=\"") << (ns ? XML::Escape.attribute(ns) : "") << '"'
            @inner[prefix] = @inner.fetch(prefix, 0) + 1
            declared << prefix
            i += 2
          end
        end
        @declared << declared
        use(qname, uri)
        if attrs
          i = 0
          while i < attrs.size
            name = attrs[i]
            value = attrs[i + 2]
            use(name, attrs[i + 1]) if attrs[i + 1]
            use_in_value(value) if @scope && value.include?(":")
            @piece << " " << name << "=\"" << XML::Escape.attribute(value) << '"'
            i += 3
          end
        end
        @piece << ">"
      end

      # The start tag just written ends in ">": it becomes "/>".
      def empty_element_tag
        @piece.chop!
        @piece << "/>"
      end

      # The element just written (a leaf, or at its end tag) is done: undo its
      # declarations; a finished top-level element gets the outside
      # declarations it uses, and joins the output.
      def close_tag
        @declared.pop&.each { |prefix| (@inner[prefix] -= 1).zero? && @inner.delete(prefix) }
        return unless @declared.empty?

        carried = +""
        @carry.each do |prefix, uri|
          carried << (prefix.empty? ? " xmlns=\"" : " xmlns:#{prefix}=\"") << XML::Escape.attribute(uri) << '"'
        end
        # Byte offsets: counting characters would cost a scan of the piece.
        @out << @piece.byteslice(0, @head) << carried << @piece.byteslice(@head, @piece.bytesize - @head)
        @piece = nil
      end

      # A name's prefix (+""+: the default namespace, for an element) is bound
      # outside the captured element unless one inside declares it.
      def use(qname, uri)
        colon = qname.index(":")
        prefix = colon ? qname[0, colon] : ""
        return if uri.nil? || prefix == "xml" || @inner.key?(prefix) || (@written && @written[prefix] == uri)

        @carry[prefix] ||= uri
      end

      # An attribute value that is a QName (+xsi:type="ns2:RecordRef"+) uses
      # its prefix too, when that prefix is bound.
      def use_in_value(value)
        match = QNAME_VALUE.match(value) or return
        prefix = match[1]
        return if prefix == "xml" || @inner.key?(prefix) || @carry.key?(prefix)

        uri = @scope.namespace_of(prefix) or return
        @carry[prefix] = uri unless @written && @written[prefix] == uri
      end

      def any_attributes(attrs)
        return nil unless attrs

        hash = {}
        i = 0
        while i < attrs.size
          name = attrs[i]
          colon = name.index(":")
          local = colon ? name[(colon + 1)..] : name
          hash[attrs[i + 1] ? "@{#{attrs[i + 1]}}#{local}" : "@#{local}"] = attrs[i + 2]
          i += 3
        end
        hash
      end

      def node_value(node)
        hash = node[2]
        text = node[3]
        return text || "" unless hash

        hash[KEY_TEXT] = text if text && !text.empty? && !(node[4] && text.match?(BLANK))
        hash[KEY_CONTENT] = ordered_content(node[5]) if node[6]
        hash
      end

      # A node is [key, uri, attributes Hash, text, has children, order, out of
      # order, last child key]; order (from its first child on) is a flat Array of
      # [key, value] pairs, key nil for text, turned into "#content" only when
      # the Hash's own order would lose the document's.
      def add(node, key, value)
        node[4] = true
        hash = (node[2] ||= {})
        if hash.key?(key)
          existing = hash[key]
          existing.is_a?(Array) ? existing << value : hash[key] = [existing, value]
          node[6] = true if node[7] != key
        else
          hash[key] = value
        end
        node[7] = key
        node[5] ||= node[3] ? [nil, node[3].dup] : []
        order(node, key, value)
      end

      def order(node, key, value)
        pieces = node[5]
        if key.nil?
          node[6] = true unless value.match?(BLANK)
          # Text may arrive in pieces: one String per run of text.
          return pieces[-1] << value if pieces.size >= 2 && pieces[-2].nil?

          value = value.dup
        end
        pieces << key << value
      end

      def ordered_content(pieces)
        content = []
        i = 0
        while i < pieces.size
          content << (pieces[i].nil? ? pieces[i + 1] : { pieces[i] => pieces[i + 1] })
          i += 2
        end
        content
      end
    end
  end
end

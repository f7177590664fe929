# frozen_string_literal: true

require "socket"
require "uri"

module Wirebind
  module WSDL
    # Reads a WSDL and every file it imports or includes (+wsdl:import+,
    # +xsd:import+, +xsd:include+), each once, without recursion: a queue of
    # locations, resolved against the file that named them. Locations that are
    # URLs are refused unless +fetch: true+; then each is fetched under an
    # overall deadline and a size cap, and a redirect is refused. Local imports
    # are confined to the root directory (the WSDL's own unless named): a path
    # out of it, by "../", an absolute path or a symlink, is refused without
    # looking at it, and only regular files are read (a FIFO would block).
    # Without fetch, an xsd:import by URL of a namespace already imported from
    # a local file is skipped with a warning (sets that ship local copies of
    # their schemas keep some imports' published URLs), as libxml2 skips a
    # namespace it has.
    #
    # @api private
    class Loader
      URL = %r{\A[a-zA-Z][a-zA-Z0-9+.-]*://}
      # Most files one description may read: a guard against a generated chain of imports.
      MAX_FILES = 10_000
      # Largest body fetched from a URL.
      MAX_FETCH_BYTES = 64 * 1024 * 1024
      # Most seconds one URL may take, connecting to the last byte.
      FETCH_DEADLINE = 60
      # Blanks and comments before an XML declaration (one character or comment a
      # step: no nested repetition to backtrack over).
      PRELUDE = /\A(?:[ \t\r\n]|<!--(?:[^-]|-(?!->))*-->)+(?=<\?xml[ \t\r\n])/n
      DECLARATION = /\A<\?xml[ \t\r\n][^>]*\?>/n
      # How far into a file a misplaced declaration is looked for.
      PRELUDE_LIMIT = 64 * 1024

      # @return [Array<Array(Node, String)>] +wsdl:definitions+ elements and their targetNamespace
      attr_reader :definitions
      # @return [Array<Array(Node, String)>] +xsd:schema+ elements and their effective targetNamespace
      attr_reader :schemas
      # @return [Array<String>] what was read but not understood, and where
      attr_reader :warnings

      def initialize(fetch:, limits:, root: nil, max_fetch_bytes: MAX_FETCH_BYTES, fetch_deadline: FETCH_DEADLINE)
        @fetch = fetch
        @limits = limits
        @root = root && real_directory(root)
        @max_fetch_bytes = max_fetch_bytes
        @fetch_deadline = fetch_deadline
        @seen = {}
        # Namespace => the local file an xsd:import read it from.
        @local_imports = {}
        @queue = []
        @definitions = []
        @schemas = []
        @warnings = []
      end

      # @param input [String, IO] a path, or an IO holding the WSDL
      # @param base [String, nil] the directory relative locations start from
      def run(input, base)
        if input.respond_to?(:read)
          name = input.respond_to?(:path) && input.path ? input.path.to_s : "(io)"
          directory = File.expand_path(base || Dir.pwd)
          @root ||= real_directory(directory)
          visit(DocumentReader.read(input, name, **@limits), directory, nil)
        elsif input.to_s.match?(URL)
          @seen[[input.to_s, nil]] = true
          visit(read(input.to_s, nil), base ? File.expand_path(base) : directory_of(input.to_s), nil)
        else
          path = input.to_s
          raise ArgumentError, "Wirebind::WSDL.load takes a path or an IO, not #{input.inspect}" if path.empty?

          location = File.expand_path(path)
          @seen[[location, nil]] = true
          directory = base ? File.expand_path(base) : File.dirname(location)
          @root ||= real_directory(directory)
          visit(read(location, nil), directory, nil)
        end
        until @queue.empty?
          location, chameleon, where = @queue.shift
          visit(read(location, where), directory_of(location), chameleon)
        end
        self
      end

      private

      # Queues +location+ unless read already; returns its absolute form.
      def enqueue(location, from, chameleon, where)
        location = location.strip
        absolute =
          if location.match?(URL) then location
          elsif from.match?(URL) then URI.join("#{from}/", location).to_s
          else File.expand_path(location, from)
          end
        key = [absolute, chameleon]
        return absolute if @seen[key]

        raise InvalidError, "#{where}: more than #{MAX_FILES} files imported" if @seen.size >= MAX_FILES

        @seen[key] = true
        @queue << [absolute, chameleon, where]
        absolute
      end

      def directory_of(location)
        location.match?(URL) ? location.sub(%r{/[^/]*\z}, "") : File.dirname(location)
      end

      def real_directory(directory)
        File.realpath(directory)
      rescue SystemCallError => e
        raise InvalidError, "cannot read the directory #{directory}: #{e.message}"
      end

      def read(location, where)
        return DocumentReader.read(declaration_first(fetch(location, where), location), location, **@limits) if location.match?(URL)

        confine(location, where) if where
        # Non-blocking: opening a FIFO for reading would wait for a writer.
        File.open(location, File::RDONLY | File::NONBLOCK | File::BINARY) do |file|
          raise InvalidError, "#{prefix(where)}#{location} is not a regular file" unless file.stat.file?

          DocumentReader.read(declaration_first(file, location), location, **@limits)
        end
      rescue Errno::ENOENT, Errno::EISDIR, Errno::EACCES, Errno::ENXIO, Errno::ELOOP => e
        raise InvalidError, "#{prefix(where)}cannot read #{location}: #{e.message}"
      rescue ParseError => e
        # Which of the files read is not well-formed (the same error, position and reason kept).
        raise e.exception("#{location}: #{e.message}")
      end

      # Some services publish a WSDL whose XML declaration comes after a comment or
      # blank lines (not well-formed XML): such a file (+input+, a String or a File)
      # is read as if its declaration came first, blanked where it is, with a
      # warning. Anything else, and a declaration of another encoding than
      # UTF-8, is returned as it was, for the parser to judge.
      def declaration_first(input, location)
        head = (input.is_a?(String) ? input.byteslice(0, PRELUDE_LIMIT) : input.read(PRELUDE_LIMIT)).to_s.b
        prelude = head[PRELUDE]
        declaration = prelude && head.byteslice(prelude.bytesize..)[DECLARATION]
        encoding = declaration && declaration[/encoding[ \t\r\n]*=[ \t\r\n]*["']([^"']*)/, 1]
        if declaration.nil? || (encoding && !encoding.match?(/\Autf-?8\z/i))
          input.rewind unless input.is_a?(String)
          return input
        end

        text = input.is_a?(String) ? input.b : head << input.read.to_s.b
        text[prelude.bytesize, declaration.bytesize] = " " * declaration.bytesize
        @warnings << "#{location}:#{prelude.count("\n") + 1}: the XML declaration is not at the start of the file; read as if it were"
        text
      end

      def prefix(where)
        where ? "#{where}: " : ""
      end

      # An import must name a file under the root: checked on the path as
      # written (nothing outside is looked at), then on the real path (symlinks).
      def confine(location, where)
        refuse_outside(location, where) unless inside?(location)
        real = File.realpath(location)
        refuse_outside(location, where) unless inside?(real)
      rescue Errno::ENOENT, Errno::EACCES, Errno::ELOOP, Errno::ENOTDIR => e
        raise InvalidError, "#{prefix(where)}cannot read #{location}: #{e.message}"
      end

      def inside?(path)
        path.start_with?(@root.end_with?("/") ? @root : "#{@root}/")
      end

      def refuse_outside(location, where)
        raise InvalidError, "#{prefix(where)}#{location} is outside #{@root}, the directory imports are read from (root: names another)"
      end

      def fetch(url, where)
        raise InvalidError, "#{prefix(where)}#{url} is a URL; imports by URL are read only with fetch: true" unless @fetch

        uri = begin
          URI(url)
        rescue URI::Error => e
          raise InvalidError, "#{prefix(where)}cannot fetch #{url}: #{e.message}"
        end
        raise InvalidError, "#{prefix(where)}only http and https URLs are fetched, not #{url}" unless uri.is_a?(URI::HTTP) && uri.host

        # Loaded before the rescue below names its constants.
        require "net/http"
        begin
          download(uri, url, where)
        rescue SocketError, SystemCallError, Timeout::Error, IOError, Net::HTTPBadResponse, Net::HTTPHeaderSyntaxError => e
          raise InvalidError, "#{prefix(where)}cannot fetch #{url}: #{e.message}"
        end
      end

      # The body of a GET, within the deadline and the size cap; a redirect is
      # an answer like any other that is not a success.
      def download(uri, url, where)
        deadline = SOAP::Transport.now + @fetch_deadline
        body = +""
        # Each wait is cut to what is left of the deadline, so that a server
        # trickling bytes cannot hold the load past it.
        Net::HTTP.start(uri.host, uri.port, use_ssl: uri.scheme == "https", open_timeout: SOAP::Transport.budget(10, deadline),
                                            read_timeout: SOAP::Transport.budget(30, deadline),
                                            write_timeout: SOAP::Transport.budget(30, deadline)) do |http|
          http.request_get(uri.request_uri) do |response|
            raise InvalidError, "#{prefix(where)}GET #{url} answered #{response.code}" unless response.is_a?(Net::HTTPSuccess)

            response.read_body do |chunk|
              body << chunk
              raise InvalidError, "#{prefix(where)}#{url} is larger than #{@max_fetch_bytes} bytes" if body.bytesize > @max_fetch_bytes
              raise InvalidError, "#{prefix(where)}GET #{url} took longer than #{@fetch_deadline} s" if SOAP::Transport.now >= deadline

              http.read_timeout = SOAP::Transport.budget(30, deadline)
            end
          end
        end
        body
      rescue Timeout::Error
        raise InvalidError, "#{prefix(where)}GET #{url} took longer than #{@fetch_deadline} s" if SOAP::Transport.now >= deadline - 0.01

        raise
      end

      def visit(root, directory, chameleon)
        if root.uri == WSDL_NS && root.local == "definitions"
          read_definitions(root, directory)
        elsif XSD_NAMESPACES.include?(root.uri) && root.local == "schema"
          read_schema(root, directory, chameleon)
        else
          raise InvalidError, "#{root.where}: neither a WSDL 1.1 description (wsdl:definitions) nor an XML Schema"
        end
      end

      # targetNamespace="" (WCF publishes it) is no namespace, as a reference
      # without a prefix resolves to.
      def target_namespace(node)
        tns = node["targetNamespace"]
        tns.nil? || tns.empty? ? nil : tns
      end

      def read_definitions(root, directory)
        @definitions << [root, target_namespace(root)]
        root.children.each do |child|
          if child.uri == WSDL_NS && child.local == "import" && child["location"]
            enqueue(child["location"], directory, nil, child.where)
          elsif child.uri == WSDL_NS && child.local == "types"
            child.children.each { |node| read_types_child(node, directory) }
          end
        end
      end

      # A schema; an xsd:import written straight into wsdl:types (outside any
      # schema, as some services publish) is followed; anything else is a warning.
      def read_types_child(node, directory)
        if XSD_NAMESPACES.include?(node.uri) && node.local == "schema"
          read_schema(node, directory, nil)
        elsif XSD_NAMESPACES.include?(node.uri) && node.local == "import" && (location = node["schemaLocation"])
          enqueue(location, directory, nil, node.where)
        elsif node.uri != WSDL_NS || node.local != "documentation"
          @warnings << "#{node.where}: {#{node.uri}}#{node.local} in wsdl:types is not understood; skipped"
        end
      end

      def read_schema(node, directory, chameleon)
        tns = target_namespace(node) || chameleon
        @schemas << [node, tns]
        node.children.each do |child|
          next unless child.uri == node.uri && (location = child["schemaLocation"])

          case child.local
          when "import" then import(child, location, directory)
          when "include", "redefine" then enqueue(location, directory, tns, child.where)
          end
        end
      end

      def import(node, location, directory)
        namespace = node["namespace"].to_s
        known = @local_imports[namespace]
        if known && !@fetch && location.strip.match?(URL)
          @warnings << "#{node.where}: #{location.strip} not fetched (fetch: false); #{namespace} is read from #{known}"
          return
        end
        absolute = enqueue(location, directory, nil, node.where)
        @local_imports[namespace] ||= absolute if absolute && !absolute.match?(URL)
      end
    end
  end
end

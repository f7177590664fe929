# frozen_string_literal: true

require "uri"

module Wirebind
  module WSDL
    # Reads a WSDL and every file it imports or includes (+wsdl:import+,
    # +xsd:import+, +xsd:include+), each once, without recursion: a queue of
    # locations, resolved against the file that named them. Locations that are
    # URLs are refused unless +fetch: true+.
    #
    # @api private
    class Loader
      URL = %r{\A[a-zA-Z][a-zA-Z0-9+.-]*://}
      # Most files one description may read: a guard against a generated chain of imports.
      MAX_FILES = 10_000
      # Largest body fetched from a URL.
      MAX_FETCH_BYTES = 64 * 1024 * 1024
      # Seconds fetching one URL may take, all of it (the per-read timeout alone
      # lets a server trickling bytes hold the load forever).
      FETCH_DEADLINE = 60

      # @return [Array<Array(Node, String)>] +wsdl:definitions+ elements and their targetNamespace
      attr_reader :definitions
      # @return [Array<Array(Node, String)>] +xsd:schema+ elements and their effective targetNamespace
      attr_reader :schemas

      def initialize(fetch:, limits:, fetch_deadline: FETCH_DEADLINE)
        @fetch = fetch
        @fetch_deadline = SOAP::Transport.seconds(fetch_deadline, "fetch_deadline")
        @limits = limits
        @seen = {}
        @queue = []
        @definitions = []
        @schemas = []
      end

      # @param input [String, IO] a path, or an IO holding the WSDL
      # @param base [String, nil] the directory relative locations start from
      def run(input, base)
        if input.respond_to?(:read)
          name = input.respond_to?(:path) && input.path ? input.path.to_s : "(io)"
          visit(DocumentReader.read(input, name, **@limits), File.expand_path(base || Dir.pwd), nil)
        else
          path = input.to_s
          raise ArgumentError, "Wirebind::WSDL.load takes a path or an IO, not #{input.inspect}" if path.empty?

          location = File.expand_path(path)
          @seen[[location, nil]] = true
          visit(read(location, nil), base ? File.expand_path(base) : File.dirname(location), nil)
        end
        until @queue.empty?
          location, chameleon, where = @queue.shift
          visit(read(location, where), directory_of(location), chameleon)
        end
        self
      end

      private

      def enqueue(location, from, chameleon, where)
        location = location.strip
        absolute =
          if location.match?(URL) then location
          elsif from.match?(URL) then URI.join("#{from}/", location).to_s
          else File.expand_path(location, from)
          end
        key = [absolute, chameleon]
        return if @seen[key]

        raise InvalidError, "#{where}: more than #{MAX_FILES} files imported" if @seen.size >= MAX_FILES

        @seen[key] = true
        @queue << [absolute, chameleon, where]
      end

      def directory_of(location)
        location.match?(URL) ? location.sub(%r{/[^/]*\z}, "") : File.dirname(location)
      end

      def read(location, where)
        return DocumentReader.read(fetch(location, where), location, **@limits) if location.match?(URL)

        File.open(location, "rb") { |file| DocumentReader.read(file, location, **@limits) }
      rescue Errno::ENOENT, Errno::EISDIR, Errno::EACCES => e
        raise InvalidError, "#{where ? "#{where}: " : ''}cannot read #{location}: #{e.message}"
      end

      def fetch(url, where)
        unless @fetch
          raise InvalidError, "#{where ? "#{where}: " : ''}#{url} is a URL; imports by URL are read only with fetch: true"
        end

        require "net/http"
        uri = URI(url)
        raise InvalidError, "#{where}: only http and https URLs are fetched, not #{url}" unless uri.is_a?(URI::HTTP)

        body = +""
        deadline = SOAP::Transport.now + @fetch_deadline
        Net::HTTP.start(uri.host, uri.port, use_ssl: uri.scheme == "https", open_timeout: [10, @fetch_deadline].min,
                                            read_timeout: SOAP::Transport.budget(30, deadline)) do |http|
          http.request_get(uri.request_uri) do |response|
            raise InvalidError, "#{where}: GET #{url} answered #{response.code}" unless response.is_a?(Net::HTTPSuccess)

            response.read_body do |chunk|
              body << chunk
              raise InvalidError, "#{where}: #{url} is larger than #{MAX_FETCH_BYTES} bytes" if body.bytesize > MAX_FETCH_BYTES
              raise InvalidError, "#{where}: fetching #{url} took longer than #{@fetch_deadline} s" if SOAP::Transport.now >= deadline

              http.read_timeout = SOAP::Transport.budget(30, deadline)
            end
          end
        end
        body
      rescue Timeout::Error => e
        raise InvalidError, "#{where}: fetching #{url} took longer than #{@fetch_deadline} s" if deadline && SOAP::Transport.now >= deadline - 0.01

        raise InvalidError, "#{where}: cannot fetch #{url}: #{e.message}"
      rescue SocketError, SystemCallError, IOError, Net::HTTPBadResponse, Net::HTTPHeaderSyntaxError => e
        raise InvalidError, "#{where}: cannot fetch #{url}: #{e.message}"
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

      def read_definitions(root, directory)
        @definitions << [root, root["targetNamespace"]]
        root.children.each do |child|
          if child.uri == WSDL_NS && child.local == "import" && child["location"]
            enqueue(child["location"], directory, nil, child.where)
          elsif child.uri == WSDL_NS && child.local == "types"
            child.children.each { |schema| read_schema(schema, directory, nil) if XSD_NAMESPACES.include?(schema.uri) && schema.local == "schema" }
          end
        end
      end

      def read_schema(node, directory, chameleon)
        tns = node["targetNamespace"] || chameleon
        @schemas << [node, tns]
        node.children.each do |child|
          next unless child.uri == node.uri && (location = child["schemaLocation"])

          case child.local
          when "import" then enqueue(location, directory, nil, child.where)
          when "include", "redefine" then enqueue(location, directory, tns, child.where)
          end
        end
      end
    end
  end
end

# frozen_string_literal: true

# bundle exec ruby examples/h2_file_server.rb --port 8080 --root DIR
#
# Serves the files under DIR with Wirebind::HTTP2::Server: HTTP/2 in
# cleartext with prior knowledge (h2c: `curl --http2-prior-knowledge`,
# `nghttp`, `h2load`) and HTTP/1.1 on the same port. The example is the Rack
# application below; the server does the rest (a thread per connection, flow
# control, to_path bodies sent from the file by the kernel, INT/TERM). GET
# and HEAD answer 200 with content-length, 404, or 405 for other methods.
#
# It never serves a file whose real path is outside DIR: the path is
# percent-decoded once, `..` segments are refused, and the file's realpath
# (symlinks resolved) must be inside DIR's realpath. (`Rack::Files` under
# `wirebind serve` serves a directory too, but follows symlinks out of it.)
#
# Prints "listening on HOST:PORT" once bound (--port 0 picks a free port).

require "optparse"
require_relative "../lib/wirebind"
require_relative "../lib/wirebind/http2/server"

# The Rack application: files under the root, by their real path.
class H2FileServer
  NOT_FOUND = "not found\n"

  # A to_path body: the server sends the file itself; #each is for other servers.
  FileBody = Struct.new(:to_path) do
    def each
      File.open(to_path, "rb") { |file| while (chunk = file.read(64 * 1024)) do yield chunk end }
    end
  end

  def initialize(root)
    @root = File.realpath(root)
    raise ArgumentError, "#{root} is not a directory" unless File.directory?(@root)
  end

  # @return [String, nil] the real path of the file path names under the root
  def resolve(path)
    return nil unless path.start_with?("/")
    return nil if path.match?(/%(?![0-9a-fA-F]{2})/)

    decoded = path.gsub(/%[0-9a-fA-F]{2}/) { |escape| escape[1, 2].hex.chr }.b
    return nil if decoded.include?("\0") || decoded.include?("\\")

    segments = decoded.split("/").reject(&:empty?)
    return nil if segments.any? { |segment| segment == ".." }

    real = File.realpath(File.join(@root, *segments))
    return nil unless real.start_with?("#{@root}/") && File.file?(real)

    real
  rescue SystemCallError, ArgumentError, EncodingError
    nil
  end

  def call(env)
    unless %w[GET HEAD].include?(env["REQUEST_METHOD"])
      return [405, { "allow" => "GET, HEAD", "content-length" => "0" }, []]
    end

    real = resolve(env["PATH_INFO"])
    size = real && File.size(real)
    return [404, { "content-type" => "text/plain", "content-length" => NOT_FOUND.bytesize.to_s }, [NOT_FOUND]] unless size

    [200, { "content-type" => "application/octet-stream", "content-length" => size.to_s }, FileBody.new(real)]
  rescue SystemCallError
    [404, { "content-type" => "text/plain", "content-length" => NOT_FOUND.bytesize.to_s }, [NOT_FOUND]]
  end
end

if $PROGRAM_NAME == __FILE__
  options = { host: "127.0.0.1", port: 8080, root: "." }
  OptionParser.new do |parser|
    parser.on("--port PORT", Integer) { |port| options[:port] = port }
    parser.on("--host HOST") { |host| options[:host] = host }
    parser.on("--root DIR") { |root| options[:root] = root }
  end.parse!

  server = Wirebind::HTTP2::Server.new(H2FileServer.new(options[:root]), bind: options[:host], port: options[:port], drain_timeout: 5)
  # INT and TERM stop it (requests in flight finish, GOAWAY, at most 5 s);
  # trapped before "listening" is printed, so that a signal sent on that line is handled too
  %w[INT TERM].each { |signal| trap(signal) { server.stop } }
  $stdout.puts "listening on #{options[:host]}:#{server.port}"
  $stdout.flush
  server.run
end

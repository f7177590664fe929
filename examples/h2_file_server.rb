# frozen_string_literal: true

# bundle exec ruby examples/h2_file_server.rb --port 8080 --root DIR
#
# Serves the files under DIR over HTTP/2 in cleartext with prior knowledge
# (h2c: `curl --http2-prior-knowledge`, `nghttp`, `h2load`), on
# Wirebind::HTTP2: a thread per connection, many streams per connection,
# flow control both ways. GET and HEAD answer 200 with content-length, 404,
# or 405 for other methods. Bodies go out in DATA frames read from the file
# into one reused buffer per connection, never as a whole-file String.
#
# It never serves a file whose real path is outside DIR: the path is
# percent-decoded once, `..` segments are refused, and the file's realpath
# (symlinks resolved) must be inside DIR's realpath.
#
# Prints "listening on HOST:PORT" once bound (--port 0 picks a free port).

require "optparse"
require "socket"
require_relative "../lib/wirebind"
require_relative "../lib/wirebind/http2"

# The file-serving handler: one call per request, in the connection's thread.
class H2FileServer
  NOT_FOUND = "not found\n"

  def initialize(root)
    @root = File.realpath(root)
    raise ArgumentError, "#{root} is not a directory" unless File.directory?(@root)
  end

  # @return [String, nil] the real path of the file path names under the root
  def resolve(path)
    path = path.split("?", 2).first
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

  def call(connection, stream)
    headers = stream.headers
    method = headers.find { |name, _| name == ":method" }&.last
    path = headers.find { |name, _| name == ":path" }&.last.to_s
    unless %w[GET HEAD].include?(method)
      return connection.respond(stream, 405, [["allow", "GET, HEAD"], ["content-length", "0"]])
    end

    real = resolve(path)
    file = real && begin
      File.open(real, "rb")
    rescue SystemCallError
      nil
    end
    unless file
      body = method == "HEAD" ? nil : StringIO.new(NOT_FOUND)
      return connection.respond(stream, 404, [["content-type", "text/plain"], ["content-length", NOT_FOUND.bytesize.to_s]],
                                body: body, length: NOT_FOUND.bytesize)
    end

    size = file.size
    response_headers = [["content-length", size.to_s], ["content-type", "application/octet-stream"]]
    if method == "HEAD"
      file.close
      connection.respond(stream, 200, response_headers)
    else
      connection.respond(stream, 200, response_headers, body: file, length: size)
    end
  end
end

if $PROGRAM_NAME == __FILE__
  require "stringio"
  options = { host: "127.0.0.1", port: 8080, root: "." }
  OptionParser.new do |parser|
    parser.on("--port PORT", Integer) { |port| options[:port] = port }
    parser.on("--host HOST") { |host| options[:host] = host }
    parser.on("--root DIR") { |root| options[:root] = root }
  end.parse!

  handler = H2FileServer.new(options[:root])
  server = TCPServer.new(options[:host], options[:port])
  # INT and TERM stop it at once, idle or not. A trap may not close the server
  # the main thread is blocked accepting on (the close waits for that accept,
  # which never returns: the signal was ignored while idle), so the handler
  # only writes to a pipe the accept loop also waits on. Connections in
  # progress end with the process. Set before "listening" is printed, so that
  # a signal sent on that line is handled too.
  stop, stopping = IO.pipe
  %w[INT TERM].each { |signal| trap(signal) { stopping.write_nonblock(".", exception: false) } }
  $stdout.puts "listening on #{options[:host]}:#{server.local_address.ip_port}"
  $stdout.flush

  loop do
    ready, = IO.select([server, stop])
    break if ready.include?(stop)

    socket = server.accept_nonblock(exception: false)
    next if socket == :wait_readable

    Thread.new(socket) do |client|
      client.setsockopt(Socket::IPPROTO_TCP, Socket::TCP_NODELAY, 1)
      Wirebind::HTTP2::Connection.new(client, handler).run
    rescue StandardError => e
      warn "connection failed: #{e.class}: #{e.message}"
    ensure
      client.close unless client.closed?
    end
  end
  server.close
end

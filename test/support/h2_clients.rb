# frozen_string_literal: true

require "timeout"

# Real HTTP/2 clients for the server tests: whether they are installed (a
# clear skip locally, a failure in CI), the start of a Python h2 client, and
# a raw socket read until the server closes it.
module H2Clients
  def require_tool(tool, package = tool)
    return if system("command -v #{tool} > /dev/null 2>&1")

    flunk "#{tool} is missing (apt-get install #{package})" if ENV["CI"]
    skip "#{tool} is not installed (apt-get install #{package})"
  end

  def require_python_h2
    return if ENV["CI"] || system("/usr/bin/python3 -c 'import h2' 2>/dev/null")

    skip "python3 with h2 is missing (apt-get install python3-h2)"
  end

  # Reads what the server sends until it closes the connection (or resets it).
  # @return [Integer] the bytes read
  def bytes_until_closed(socket, timeout)
    received = 0
    Timeout.timeout(timeout) do
      loop { received += socket.readpartial(1 << 16).bytesize }
    rescue EOFError, Errno::ECONNRESET
      nil
    end
    received
  end

  # Python lines that connect to 127.0.0.1 (port: argv[1]) and send a GET of
  # path on stream 1; setup runs between the H2Connection's creation and its
  # preface (+conn+ and +sock+ exist then), after_preface before the request.
  def python_h2_get(path, headers: "", setup: "", after_preface: "")
    <<~PY
      import hashlib, socket, sys, time, h2.connection, h2.events, h2.settings
      sock = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
      conn = h2.connection.H2Connection()
      #{setup}
      conn.initiate_connection()
      #{after_preface}
      conn.send_headers(1, [(":method", "GET"), (":path", "#{path}"), (":scheme", "http"), (":authority", "127.0.0.1")#{headers}], end_stream=True)
      sock.sendall(conn.data_to_send())
    PY
  end
end

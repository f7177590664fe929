# frozen_string_literal: true

require "socket"

# What the benchmarks that start servers on 127.0.0.1 share.

# @return [Integer] a port free on 127.0.0.1 just now
def free_port
  server = TCPServer.new("127.0.0.1", 0)
  server.local_address.ip_port
ensure
  server&.close
end

# @return [Boolean] something accepts on the port within 10 s
def wait_for_port(port)
  50.times do
    TCPSocket.new("127.0.0.1", port).close
    return true
  rescue SystemCallError
    sleep 0.2
  end
  false
end

# frozen_string_literal: true

require "wirebind"
require_relative "models"

module Jira
  # A JIRA-like SOAP service, as JIRA's Axis 1 endpoint speaks: rpc/encoded,
  # every record an Axis-style multiRef, the records those of the models
  # generated from JIRA's WSDL (models.rb). Issues are made up, the same for a
  # given number in every process, so a caller can check what it received.
  class Service < Wirebind::SOAP::Service
    namespace "http://soap.rpc.jira.atlassian.com"
    style :rpc_encoded
    multi_ref true

    operation :login, args: { in0: :string, in1: :string }, returns: :string do |user, password|
      unless password == "secret"
        raise Wirebind::SOAP::Fault.new(code: "Client",
                                        reason: "com.atlassian.jira.rpc.exception.RemoteAuthenticationException: Invalid username or password.")
      end

      "token-#{user}"
    end

    # The issues are produced as the response is written: an Enumerator.
    operation :getIssuesFromJqlSearch, args: { in0: :string, in1: :string, in2: :integer },
                                       returns: [RemoteIssue] do |token, _jql, max|
      raise Wirebind::SOAP::Fault.new(code: "Client", reason: "not logged in") unless token&.start_with?("token-")

      Enumerator.new { |y| max.times { |n| y << Jira.issue(n) } }
    end
  end

  CREATED = Time.utc(2024, 3, 1, 9, 30, 0)
  VERSIONS = Array.new(4) do |n|
    RemoteVersion.new(id: (10_000 + n).to_s, name: "4.#{n}", archived: false, release_date: Time.utc(2024, n + 1, 1),
                      released: n < 2, sequence: n + 1)
  end
  COMPONENTS = [RemoteComponent.new(id: "100", name: "Backend"), RemoteComponent.new(id: "101", name: "Web UI")].freeze

  # @return [RemoteIssue] issue number +n+, the same in every process
  def self.issue(n)
    RemoteIssue.new(
      id: (20_000 + n).to_s, key: "OPS-#{n + 1}", project: "OPS", type: "1", status: (n % 5 + 1).to_s,
      priority: (n % 4 + 1).to_s, resolution: n.even? ? nil : "1", assignee: "dev#{n % 7}", reporter: "ops#{n % 3}",
      summary: "Disk usage alert on node-#{n % 100} <prod> & friends", description: "Step #{n}: check é, ü and “quotes”.\nLine two.",
      environment: nil, created: CREATED + n * 60, updated: CREATED + n * 120, duedate: nil, votes: n % 11,
      affects_versions: [VERSIONS[n % 4]], fix_versions: [VERSIONS[(n + 1) % 4], VERSIONS[(n + 2) % 4]],
      components: [COMPONENTS[n % 2]], attachment_names: (n % 3).zero? ? ["log-#{n}.txt"] : [],
      custom_field_values: [RemoteCustomFieldValue.new(customfield_id: "customfield_10010", key: nil, values: ["team-#{n % 4}"])]
    )
  end

  # Runs a Rack app under Puma in a child process on 127.0.0.1 (an ephemeral
  # port): its CPU and memory are its own, not the caller's. Stop it with {#stop}.
  class ForkedServer
    attr_reader :port, :pid

    def initialize(app, threads: 4)
      reader, writer = IO.pipe
      @pid = fork do
        reader.close
        begin
          require "puma"
          require "puma/server"
        rescue LoadError
          warn "the demo's service runs under Puma, which is not installed (gem install puma)"
          exit!(1)
        end
        server = Puma::Server.new(app, nil, min_threads: 1, max_threads: threads, log_writer: Puma::LogWriter.null)
        server.add_tcp_listener("127.0.0.1", 0)
        thread = server.run
        writer.puts server.connected_ports.first
        writer.close
        Signal.trap("TERM") { server.stop }
        thread.join
        exit!(0)
      end
      writer.close
      line = reader.gets or raise "the server process ended before listening"
      @port = Integer(line)
    ensure
      reader&.close
    end

    def url(path = "/rpc/soap/jirasoapservice-v2")
      "http://127.0.0.1:#{@port}#{path}"
    end

    def stop
      return unless @pid

      Process.kill(:TERM, @pid)
      Process.wait(@pid)
    rescue Errno::ESRCH, Errno::ECHILD
      nil
    ensure
      @pid = nil
    end
  end
end

# frozen_string_literal: true

require_relative "wsdl_test_support"

module Wirebind
  class WSDLJiraTest < Minitest::Test
    include TestSupport
    include WSDLTestSupport

    def setup
      @path = shared_path("fixtures/wsdl/jirasoapservice-v2.wsdl")
    end

    def test_the_description
      description = WSDL.load(@path)
      port = description.ports.first
      assert_equal "jirasoapservice-v2", port.name
      assert_equal "http://jira.atlassian.com/rpc/soap/jirasoapservice-v2", port.endpoint
      assert_same SOAP::SOAP11, port.binding.version
      assert_equal 108, port.binding.operations.size
      assert(port.binding.operations.all? { |operation| operation.style == :rpc_encoded })
      assert_includes description.types.map(&:name), "RemoteIssue"
      assert_empty description.warnings
    end

    def test_defined_models_and_client
      jira = Module.new
      description = WSDL.load(@path)
      description.define(jira)
      issue = jira::RemoteIssue
      assert_equal jira::AbstractRemoteEntity, issue.superclass
      assert_equal :id, issue.attributes.first.name # the base's fields first
      versions = issue.attributes.find { |a| a.name == :affects_versions }
      assert_equal [jira::RemoteVersion, true, "affectsVersions/*"], [versions.type, versions.list?, versions.xml]
      assert_equal :time, issue.attributes.find { |a| a.name == :created }.type
      assert_equal ["RemoteIssue", "http://beans.soap.rpc.jira.atlassian.com"], issue.xml_type

      client = jira::Client
      assert_equal jira::JirasoapserviceV2Client, client
      operations = description.ports.first.binding.operations
      operations.each do |operation|
        assert client.method_defined?(WSDL::Naming.snake(operation.name)), "no method for #{operation.name}"
      end
      own = client.instance_methods(false).reject { |name| name.start_with?("each_") }
      assert_equal operations.size, own.size
      assert client.method_defined?(:each_get_issues_from_jql_search)
      assert_equal %i[in0 in1], client.instance_method(:get_issue).parameters.select { |kind, _| kind == :key }.map(&:last)

      instance = client.new(endpoint: "http://127.0.0.1:1/")
      assert_equal "http://127.0.0.1:1/", instance.endpoint
      record = sample(issue)
      assert_equal record, issue.from_xml(record.to_xml)
    ensure
      instance&.close
    end

    def test_generated_files_are_deterministic_and_load
      files = WSDL.load(@path).generate("WirebindJiraGenerated")
      assert_equal files, WSDL.load(@path).generate("WirebindJiraGenerated")
      assert_equal "wirebind_jira_generated.rb", files.keys.first
      with_files(files) do |dir|
        require_ruby_subprocess
        script = "require #{File.join(dir, files.keys.first).dump}; " \
                 "print WirebindJiraGenerated::Client.instance_methods(false).size, ' ', " \
                 "WirebindJiraGenerated::RemoteIssue.superclass"
        output = IO.popen([RbConfig.ruby, "-w", "-I#{File.expand_path('../../lib', __dir__)}", "-e", script], err: %i[child out], &:read)
        assert_equal "142 WirebindJiraGenerated::AbstractRemoteEntity", output
      end
    end
  end
end

# frozen_string_literal: true

require "wirebind/wsdl"

# The JIRA SOAP API's beans and client, generated from JIRA's own WSDL
# (../shared/fixtures/wsdl/jirasoapservice-v2.wsdl, or the file JIRA_WSDL
# names) when this file is loaded: Wirebind::WSDL defines in this module the
# models of its 40 types (Jira::RemoteIssue, Jira::RemoteVersion...) and
# Jira::Client, the same classes `wirebind generate` writes as files:
#
#   bundle exec wirebind generate ../shared/fixtures/wsdl/jirasoapservice-v2.wsdl --out tmp/jira --module Jira
#
# The demo's service (service.rb) is built on these models, and its client is
# the generated one.
module Jira
  BEANS = "http://beans.soap.rpc.jira.atlassian.com"
  WSDL_PATH = ENV.fetch("JIRA_WSDL") { File.expand_path("../../../shared/fixtures/wsdl/jirasoapservice-v2.wsdl", __dir__) }
  unless File.file?(WSDL_PATH)
    raise LoadError, "#{WSDL_PATH} is absent: the shared test data sits beside the checkout (or set JIRA_WSDL to JIRA's WSDL)"
  end

  started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  # The description the classes are generated from.
  DESCRIPTION = Wirebind::WSDL.load(WSDL_PATH)
  DESCRIPTION.define(self)
  # Seconds taken to read the WSDL and define the classes (the demo prints it).
  DEFINE_SECONDS = Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
end

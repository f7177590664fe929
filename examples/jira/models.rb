# frozen_string_literal: true

require "wirebind/wsdl"

# The beans and client of a JIRA-like SOAP API, generated when this file is
# loaded from jira.wsdl beside it (the demo's two operations and their types,
# written for wirebind with the names, namespaces and rpc/encoded style of
# JIRA's Axis 1 endpoint; shipped in the gem), or from the file JIRA_WSDL names,
# such as JIRA's own jirasoapservice-v2.wsdl: Wirebind::WSDL defines in this
# module the models of its types (Jira::RemoteIssue, Jira::RemoteVersion...) and
# Jira::Client, the same classes `wirebind generate` writes as files:
#
#   bundle exec wirebind generate examples/jira/jira.wsdl --out tmp/jira --module Jira
#
# The demo's service (service.rb) is built on these models, and its client is
# the generated one.
module Jira
  BEANS = "http://beans.soap.rpc.jira.atlassian.com"
  WSDL_PATH = ENV.fetch("JIRA_WSDL") { File.expand_path("jira.wsdl", __dir__) }
  raise LoadError, "#{WSDL_PATH} is absent (JIRA_WSDL names the WSDL to generate from)" unless File.file?(WSDL_PATH)

  started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  # The description the classes are generated from.
  DESCRIPTION = Wirebind::WSDL.load(WSDL_PATH)
  DESCRIPTION.define(self)
  # Seconds taken to read the WSDL and define the classes (the demo prints it).
  DEFINE_SECONDS = Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
end

# frozen_string_literal: true

# The JIRA SOAP API's beans, as ../shared/fixtures/wsdl/jirasoapservice-v2.wsdl
# declares them (namespace http://beans.soap.rpc.jira.atlassian.com): the same
# names, element order, types and inheritance. One file, so that models
# generated from that WSDL can take its place.
module Jira
  BEANS = "http://beans.soap.rpc.jira.atlassian.com"

  class AbstractRemoteEntity
    include Wirebind::Model
    xml_type "AbstractRemoteEntity", namespace: BEANS
    attribute :id, :string
  end

  class AbstractNamedRemoteEntity < AbstractRemoteEntity
    xml_type "AbstractNamedRemoteEntity", namespace: BEANS
    attribute :name, :string
  end

  class RemoteVersion < AbstractNamedRemoteEntity
    xml_type "RemoteVersion", namespace: BEANS
    attribute :archived, :boolean
    attribute :release_date, :time
    attribute :released, :boolean
    attribute :sequence, :integer
  end

  class RemoteComponent < AbstractNamedRemoteEntity
    xml_type "RemoteComponent", namespace: BEANS
  end

  class RemoteCustomFieldValue
    include Wirebind::Model
    xml_type "RemoteCustomFieldValue", namespace: BEANS
    attribute :customfield_id, :string, xml: "customfieldId"
    attribute :key, :string
    attribute :values, [:string], xml: "values/*"
  end

  class RemoteIssue < AbstractRemoteEntity
    xml_type "RemoteIssue", namespace: BEANS
    attribute :affects_versions, [RemoteVersion], xml: "affectsVersions/*"
    attribute :assignee, :string
    attribute :attachment_names, [:string], xml: "attachmentNames/*"
    attribute :components, [RemoteComponent], xml: "components/*"
    attribute :created, :time
    attribute :custom_field_values, [RemoteCustomFieldValue], xml: "customFieldValues/*"
    attribute :description, :string
    attribute :duedate, :time
    attribute :environment, :string
    attribute :fix_versions, [RemoteVersion], xml: "fixVersions/*"
    attribute :key, :string
    attribute :priority, :string
    attribute :project, :string
    attribute :reporter, :string
    attribute :resolution, :string
    attribute :status, :string
    attribute :summary, :string
    attribute :issue_type, :string, xml: "type"
    attribute :updated, :time
    attribute :votes, :integer
  end
end

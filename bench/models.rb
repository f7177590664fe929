# frozen_string_literal: true

require "wirebind"

# The schema every contender decodes into: JIRA's RemoteIssue as its SOAP API
# (Axis 1.x, rpc/encoded) sent it, plus a few fields (labels, watched, lang,
# timeSpent) so that every shape the codec supports is on the timed path:
# an XML attribute, a repeated element without a wrapper, wrapped lists of
# records and of strings, and each scalar type.
#
# Peers build these same classes (with keyword new), so "equal output" means
# Model#== and nothing weaker.
module Bench
  # JIRA's AbstractRemoteEntity: everything it sends has a String id.
  class Entity
    include Wirebind::Model

    attribute :id, :string
  end

  # AbstractNamedRemoteEntity.
  class NamedEntity < Entity
    attribute :name, :string
  end

  # RemoteComponent adds nothing to its parent: inheritance alone must carry the schema.
  class Component < NamedEntity
  end

  # RemoteVersion.
  class Version < NamedEntity
    attribute :archived, :boolean
    attribute :released, :boolean
    attribute :release_date, :time, xml: "releaseDate"
    attribute :sequence, :integer
  end

  # RemoteCustomFieldValue. JIRA names its id customfieldId, and the values
  # come as a SOAP-encoded array of xsd:string.
  class CustomField
    include Wirebind::Model

    attribute :id, :string, xml: "customfieldId"
    attribute :key, :string
    attribute :values, [:string], xml: "values/*"
  end

  # RemoteIssue.
  class Issue < Entity
    attribute :key, :string
    attribute :summary, :string
    attribute :description, :string
    attribute :type, :string
    attribute :status, :string
    attribute :priority, :string
    attribute :resolution, :string
    attribute :assignee, :string
    attribute :reporter, :string
    attribute :project, :string
    attribute :environment, :string
    attribute :created, :time
    attribute :updated, :time
    attribute :duedate, :date
    attribute :votes, :integer
    attribute :watched, :boolean
    attribute :lang, :string, xml: "@lang"
    attribute :time_spent, :decimal
    attribute :affects_versions, [Version], xml: "affectsVersions/*"
    attribute :fix_versions, [Version], xml: "fixVersions/*"
    attribute :components, [Component], xml: "components/*"
    attribute :labels, [:string], xml: "label"
    attribute :custom_field_values, [CustomField], xml: "customFieldValues/*"
  end

  # Where the records sit in a getIssues response; every decoder is pointed here.
  ISSUES_PATH = "Envelope/Body/getIssuesResponse/return/item"
  # The same, as a streaming reader that knows less about the envelope says it.
  STREAM_PATH = "Envelope/Body/*/return/*"
end

# frozen_string_literal: true

require "test_helper"
require_relative "../support/codec_test_helpers"

# Models the SOAP tests share: JIRA-like beans.
module SOAPTestModels
  BEANS = "http://beans.soap.rpc.jira.atlassian.com"

  class RemoteVersion
    include Wirebind::Model
    xml_type "RemoteVersion", namespace: BEANS
    attribute :id, :string
    attribute :name, :string
    attribute :sequence, :integer
    attribute :released, :boolean
  end

  class RemoteIssue
    include Wirebind::Model
    xml_type "RemoteIssue", namespace: BEANS
    attribute :id, :string
    attribute :key, :string
    attribute :summary, :string
    attribute :votes, :integer
    attribute :created, :time
    attribute :due, :date
    attribute :estimate, :decimal
    attribute :ratio, :float
    attribute :affects_versions, [RemoteVersion], xml: "affectsVersions/*"
    attribute :labels, [:string], xml: "label"
  end

  class Session
    include Wirebind::Model
    xml_namespace "urn:session", prefix: "s"
    xml_root "Session"
    attribute :token, :string
  end

  class ErrorDetail
    include Wirebind::Model
    attribute :errno, :string, xml: "ERRNO"
  end

  def self.issue(n)
    version = RemoteVersion.new(id: "v#{n % 3}", name: "1.#{n % 3}", sequence: n % 3, released: n.even?)
    RemoteIssue.new(id: n.to_s, key: "OPS-#{n}", summary: "Issue <#{n}> & \"more\" é", votes: n * 7,
                    created: Time.utc(2024, 1, 2, 3, 4, 5), due: Date.new(2024, 2, n % 28 + 1),
                    estimate: BigDecimal("#{n}.25"), ratio: n / 4.0, affects_versions: [version, version],
                    labels: ["a#{n}", "b"])
  end
end

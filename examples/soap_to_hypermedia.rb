# frozen_string_literal: true

# bundle exec ruby examples/soap_to_hypermedia.rb
#
# One schema, three wire formats: reads a SOAP response into typed records,
# serves them as HAL and JSON:API, and reads its own JSON back into the same
# records.

$LOAD_PATH.unshift File.expand_path("../lib", __dir__)
require "wirebind"

class Version
  include Wirebind::Model
  attribute :id, :string
  attribute :name, :string
  attribute :release_date, :date, xml: "releaseDate"
end

class Issue
  include Wirebind::Model
  attribute :key, :string
  attribute :summary, :string
  attribute :votes, :integer
  attribute :updated, :time
  attribute :affects_versions, [Version], xml: "affectsVersions/version"
end

class VersionSerializer < Wirebind::Serializer
  type "version"
  attributes :name, :release_date
end

class IssueSerializer < Wirebind::Serializer
  type "issue"
  id :key
  attributes :summary, :votes, :updated
  link(:self) { |issue| "/issues/#{issue.key}" }
  many :affects_versions, VersionSerializer
end

SOAP = <<~XML
  <soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/">
    <soapenv:Body>
      <getIssuesResponse>
        <issue>
          <key>WB-1</key>
          <summary>Decode &amp; serve</summary>
          <votes>3</votes>
          <updated>2026-11-22T10:00:00+01:00</updated>
          <affectsVersions>
            <version><id>10</id><name>1.0</name><releaseDate>2026-12-01</releaseDate></version>
          </affectsVersions>
        </issue>
      </getIssuesResponse>
    </soapenv:Body>
  </soapenv:Envelope>
XML

issues = Wirebind::XML.decode(SOAP, [Issue], at: "Envelope/Body/getIssuesResponse/issue")
puts "XML  -> #{issues.first.inspect}"

puts "\nHAL:\n#{IssueSerializer.new(issues.first, format: :hal).to_json}"
puts "\nJSON:API:\n#{IssueSerializer.new(issues, format: :json_api).to_json}"

json = Wirebind::JSON.encode(issues)
again = Wirebind::JSON.decode(json, [Issue])
puts "\nJSON -> #{json}"
puts "round trip equal: #{again == issues}"

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

# Certificates made for a test: self-signed (a CA when +ca:+), or issued by
# another (+issuer:+ with its key), for 127.0.0.1 when +san:+ says so.
module TestCertificates
  # @return [Array(OpenSSL::PKey::RSA, OpenSSL::X509::Certificate)]
  def self.issue(subject, ca: false, san: nil, issuer: nil, issuer_key: nil)
    key = OpenSSL::PKey::RSA.new(2048)
    cert = OpenSSL::X509::Certificate.new
    cert.version = 2
    cert.serial = OpenSSL::BN.rand(64)
    cert.subject = OpenSSL::X509::Name.parse(subject)
    cert.issuer = issuer ? issuer.subject : cert.subject
    cert.public_key = key.public_key
    cert.not_before = Time.now - 60
    cert.not_after = Time.now + 3600
    factory = OpenSSL::X509::ExtensionFactory.new(issuer || cert, cert)
    cert.add_extension(factory.create_extension("basicConstraints", ca ? "CA:TRUE" : "CA:FALSE", true))
    cert.add_extension(factory.create_extension("subjectAltName", san)) if san
    cert.sign(issuer_key || key, OpenSSL::Digest.new("SHA256"))
    [key, cert]
  end
end

# The httpx adapter's test classes need the optional gem.
module RequiresHTTPX
  def setup
    super
    require "httpx"
  rescue LoadError => e
    skip "httpx is not installed: #{e.message}"
  end
end

# One test class per built-in adapter for a module of transport tests:
# <prefix>SocketTest, <prefix>NetHTTPTest and <prefix>HTTPXTest, each with its ADAPTER.
module AdapterTestClasses
  ADAPTERS = { "Socket" => :socket, "NetHTTP" => :net_http, "HTTPX" => :httpx }.freeze

  def self.define(prefix, tests)
    ADAPTERS.each do |name, adapter|
      klass = Class.new(Minitest::Test) { include tests }
      klass.const_set(:ADAPTER, adapter)
      klass.prepend(RequiresHTTPX) if adapter == :httpx
      Object.const_set("#{prefix}#{name}Test", klass)
    end
  end
end

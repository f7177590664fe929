# frozen_string_literal: true

require_relative "lib/wirebind/version"

Gem::Specification.new do |spec|
  spec.name = "wirebind"
  spec.version = Wirebind::VERSION
  spec.authors = ["wirebind developers"]
  spec.summary = "Declare a schema once; read and write XML, JSON, binary and hypermedia (HAL, JSON:API, Siren), " \
                 "call and serve SOAP from WSDL, serve Rack over HTTP/2 (HPACK) and HTTP/1.1: streaming, typed, safe, " \
                 "in C or pure Ruby."
  spec.description = <<~DESC
    wirebind decodes XML, JSON and binary payloads (SOAP responses, JSON APIs and the like)
    straight into typed Ruby objects in one streaming pass, driven by a schema declared once on
    a class, encodes those objects back, and serves them as HAL, JSON:API or Siren. On top: a
    streaming SOAP client and Rack SOAP service, models and clients generated from a WSDL, and
    an HTTP/2 server (framing, HPACK, TLS/ALPN, HTTP/1.1) for Rack applications. A C backend
    does the hot loops; a pure-Ruby backend keeps the same contract and is used where no C
    compiler is.
  DESC
  spec.license = "MIT"
  spec.homepage = "https://github.com/wirebind/wirebind"
  spec.metadata["homepage_uri"] = spec.homepage
  spec.metadata["source_code_uri"] = spec.homepage
  spec.metadata["changelog_uri"] = "#{spec.homepage}/blob/main/CHANGELOG.md"
  spec.metadata["bug_tracker_uri"] = "#{spec.homepage}/issues"
  spec.required_ruby_version = ">= 3.1"

  spec.files = Dir["lib/**/*.rb", "ext/**/*.{c,h,rb}", "ext/wirebind/README.md", "examples/**/*.{rb,wsdl}",
                   "exe/*", "sig/**/*.rbs", "README.md", "CHANGELOG.md", "ARCHITECTURE.md", "LICENSE"]
  spec.require_paths = ["lib"]
  spec.bindir = "exe"
  spec.executables = ["wirebind"]
  spec.extensions = ["ext/wirebind/extconf.rb"]
  spec.metadata["rubygems_mfa_required"] = "true"

  # A bundled gem, no longer a default one, from Ruby 3.4 on (:decimal values are BigDecimals).
  spec.add_dependency "bigdecimal", ">= 3.1", "< 5"
end

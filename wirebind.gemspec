# frozen_string_literal: true

require_relative "lib/wirebind/version"

Gem::Specification.new do |spec|
  spec.name = "wirebind"
  spec.version = Wirebind::VERSION
  spec.authors = ["wirebind developers"]
  spec.summary = "Declare a schema once; read and write XML at native speed, streaming, typed and safe."
  spec.description = <<~DESC
    wirebind decodes XML payloads (SOAP responses and the like) straight into typed Ruby
    objects in one streaming pass, driven by a schema declared once on a class, and encodes
    those objects back. A C backend does the hot loops; a pure-Ruby backend keeps the same contract.
  DESC
  spec.license = "MIT"
  spec.required_ruby_version = ">= 3.1"

  spec.files = Dir["lib/**/*.rb", "ext/**/*.{c,h,rb}", "README.md", "CHANGELOG.md", "ARCHITECTURE.md", "LICENSE"]
  spec.require_paths = ["lib"]
  spec.extensions = ["ext/wirebind/extconf.rb"]
  spec.metadata["rubygems_mfa_required"] = "true"
end

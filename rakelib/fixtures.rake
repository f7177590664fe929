# frozen_string_literal: true

require "yaml"

# Real documents that other projects publish in their gems' test suites (MIT
# licensed), used by the tests as input nobody here wrote. They are unpacked from
# the gems on RubyGems into tmp/fixtures/ (not committed); `.ci/run` runs this
# task, and a test whose gem is absent skips with the reason printed
# (test/support/fixture_gems.rb).
FIXTURE_GEMS = {
  # WSDLs: e-conomic, Marketo, TradeTracker, GeoTrust, SOAP 1.2, imports, two bindings...
  "wasabi" => "3.5.0",
  # NetSuite SuiteTalk SOAP responses (spec/support/fixtures), MIT
  "netsuite" => "0.9.3",
  # HappyMapper's namespace and mapping documents (spec/fixtures), MIT; the last
  # version whose gem ships its specs
  "nokogiri-happymapper" => "0.5.9",
  # Real services' WSDLs (spec/fixtures/wsdl: Betfair, eDialog, Interhome, TaxCloud,
  # EU VIES, SoftLayer, Team Software, Wasmuth) and a TaxCloud response, MIT; the
  # last version whose gem ships its specs
  "savon" => "2.12.1",
  # Stripe webhook event payloads (lib/stripe_mock/webhook_fixtures), MIT
  # (Copyright (c) 2013 Gilbert, the gem's LICENSE.txt)
  "stripe-ruby-mock" => "5.0.0",
  # Shopify Admin REST API payloads (test/fixtures), MIT (Copyright (c) 2009
  # "JadedPixel inc.", the gem's LICENSE)
  "shopify_api" => "9.0.0"
}.freeze

FIXTURES_DIR = File.expand_path("../tmp/fixtures", __dir__)

# Packages of other registries, each with its source and licence (npm: unpacked
# with `npm pack`, which .ci/run has installed by then).
REAL_DOCUMENTS = YAML.safe_load_file(File.expand_path("real_documents.yml", __dir__)).freeze

desc "Unpack the gems whose test fixtures the suite reads into tmp/fixtures/"
task :fixtures do
  mkdir_p FIXTURES_DIR
  FIXTURE_GEMS.each do |name, version|
    next if File.directory?(File.join(FIXTURES_DIR, "#{name}-#{version}"))

    Dir.chdir(FIXTURES_DIR) do
      sh "gem", "fetch", name, "-v", version, "--silent"
      sh "gem", "unpack", "#{name}-#{version}.gem", "--silent"
      rm_f "#{name}-#{version}.gem"
    end
  end
  REAL_DOCUMENTS.each do |package|
    name = package.fetch("name")
    version = package.fetch("version")
    # npm names a scoped package's tarball "scope-name-version.tgz"; the directory takes that stem.
    stem = "#{name.delete_prefix('@').tr('/', '-')}-#{version}"
    target = File.join(FIXTURES_DIR, stem)
    next if File.directory?(target)
    raise "rake fixtures: npm is needed to unpack #{name}@#{version} (apt-get install npm)" unless system("npm --version > /dev/null 2>&1")

    Dir.chdir(FIXTURES_DIR) do
      sh "npm", "pack", "#{name}@#{version}", "--silent", "--loglevel=error", out: File::NULL
      mkdir_p "#{target}.partial"
      sh "tar", "xzf", "#{stem}.tgz", "--strip-components=1", "-C", "#{target}.partial"
      rm_f "#{stem}.tgz"
      mv "#{target}.partial", target
    end
  end
end

# frozen_string_literal: true

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
  "nokogiri-happymapper" => "0.5.9"
}.freeze

FIXTURES_DIR = File.expand_path("../tmp/fixtures", __dir__)

# Real WSDL sets other projects ship in their npm packages, unpacked the same way
# (npm pack, into tmp/fixtures/NAME-VERSION; `.ci/run` installs npm before this task).
FIXTURE_NPM = {
  # FedEx Web Services WSDLs (Ship v15, Rate v16, Track v9, Pickup v9, Locations v1,
  # ASYNC v2, ValidationAvailabilityAndCommitment v2: lib/wsdl), as FedEx publishes them;
  # the package is ISC licensed. test/wsdl/fedex_test.rb.
  "fedex" => "0.0.1"
}.freeze

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
  FIXTURE_NPM.each do |name, version|
    next if File.directory?(File.join(FIXTURES_DIR, "#{name}-#{version}"))

    Dir.chdir(FIXTURES_DIR) do
      sh "npm", "pack", "#{name}@#{version}", "--silent", "--no-audit", "--no-fund"
      mkdir_p "#{name}-#{version}"
      sh "tar", "-xzf", "#{name}-#{version}.tgz", "-C", "#{name}-#{version}", "--strip-components=1"
      rm_f "#{name}-#{version}.tgz"
    end
  end
end

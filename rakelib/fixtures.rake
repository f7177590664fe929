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
  "shopify_api" => "9.0.0",
  # Microsoft Advertising (Bing Ads) v13's six WCF services as their ?singleWsdl
  # (lib/bing_ads_ruby_sdk/wsdl), MIT (Copyright (c) 2018 Effilab, the gem's LICENSE.txt)
  "bing_ads_ruby_sdk" => "1.7",
  # Mexico's CFDI 4.0 electronic invoice schemas, the SAT's own publications, with
  # local imports (lib/xsd; an attribute named "Año"), MIT (the gem's licence)
  "cfdi40" => "0.4.9"
}.freeze

FIXTURES_DIR = File.expand_path("../tmp/fixtures", __dir__)

# Packages of other registries, each with its source and licence (npm: unpacked
# with `npm pack`, which .ci/run has installed by then; Debian: the .deb fetched
# with `apt-get download` and unpacked with `dpkg-deb -x`, nothing installed).
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

    Dir.chdir(FIXTURES_DIR) do
      mkdir_p "#{target}.partial"
      package.fetch("registry") == "debian" ? unpack_deb(name, version, "#{target}.partial") : unpack_npm(name, version, stem, "#{target}.partial")
      mv "#{target}.partial", target
    end
  end
end

# Unpacks npm package +name+@+version+ into +dir+ (run in FIXTURES_DIR).
def unpack_npm(name, version, stem, dir)
  raise "rake fixtures: npm is needed to unpack #{name}@#{version} (apt-get install npm)" unless system("npm --version > /dev/null 2>&1")

  sh "npm", "pack", "#{name}@#{version}", "--silent", "--loglevel=error", out: File::NULL
  sh "tar", "xzf", "#{stem}.tgz", "--strip-components=1", "-C", dir
  rm_f "#{stem}.tgz"
end

# Unpacks Debian package +name+ at +version+ into +dir+ (run in FIXTURES_DIR)
# without installing it. A machine whose package lists are empty or old gets
# `apt-get update` once (CI runs as root).
def unpack_deb(name, version, dir)
  # The sandbox user cannot write the working directory; root downloads it.
  download = ["apt-get", "download", "-qq", "-o", "APT::Sandbox::User=root", "#{name}=#{version}"]
  unless system(*download, out: File::NULL)
    sh "apt-get", "update", "-qq"
    sh(*download, out: File::NULL)
  end
  deb = Dir["#{name}_*.deb"].fetch(0) { raise "rake fixtures: apt-get download #{name}=#{version} wrote no .deb" }
  sh "dpkg-deb", "-x", deb, dir
  rm_f deb
end

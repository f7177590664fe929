# frozen_string_literal: true

module Wirebind
  # Fixtures taken from other gems' published test suites (see rakelib/fixtures.rake).
  module FixtureGems
    DIR = File.expand_path("../../tmp/fixtures", __dir__)

    # @return [String] the path of +file+ inside the unpacked gem +gem+ ("wasabi-3.5.0");
    #   skips the calling test, saying why, when the gem has not been unpacked
    def fixture_gem_path(gem, file)
      path = File.join(DIR, gem, file)
      skip "#{gem} is not unpacked in tmp/fixtures (run `bundle exec rake fixtures`)" unless File.exist?(path)

      path
    end
  end
end

Minitest::Test.include(Wirebind::FixtureGems)

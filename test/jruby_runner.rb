# frozen_string_literal: true

# Loads every test file on JRuby (rake test:jruby). A file that cannot even be
# loaded there is reported, with the reason, instead of stopping the whole run;
# minitest then runs what loaded and prints the usual totals.
require "wirebind"
abort "jruby_runner: expected the pure backend, got #{Wirebind.backend}" unless Wirebind.backend == :pure

unloadable = []
Dir[File.expand_path("**/*_test.rb", __dir__)].sort.each do |file|
  require file
rescue StandardError, ScriptError => e
  unloadable << "#{file.delete_prefix("#{__dir__}/")}: #{e.class}: #{e.message.lines.first.chomp}"
end
puts "JRuby #{JRUBY_VERSION}: #{unloadable.size} test file(s) could not be loaded" unless unloadable.empty?
unloadable.each { |line| puts "  #{line}" }

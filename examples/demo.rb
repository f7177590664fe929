# frozen_string_literal: true

# bundle install && bundle exec ruby examples/demo.rb
#
# Makes a JIRA-style SOAP response with 1,000 issues, decodes it into typed
# objects with each wirebind backend this machine has, writes the objects back
# out as XML, reads that again, and times it all against Nokogiri.
#
# The schema is bench/models.rb, declared once like this:
#
#   class Issue < Entity                     # Entity: attribute :id, :string
#     attribute :lang, :string, xml: "@lang"
#     attribute :created, :time
#     attribute :votes, :integer
#     attribute :affects_versions, [Version], xml: "affectsVersions/*"
#     attribute :labels, [:string], xml: "label"
#     ...
#   end
#
# The full comparison, with five more libraries, is `bundle exec rake bench`.

$LOAD_PATH.unshift File.expand_path("../lib", __dir__)
require "wirebind"
require_relative "../bench/generator"
require_relative "../bench/peers/nokogiri_children"

def best_of(runs = 3)
  result = nil
  best = Float::INFINITY
  runs.times do
    GC.start
    t0 = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    result = yield
    best = [best, Process.clock_gettime(Process::CLOCK_MONOTONIC) - t0].min
  end
  [result, best]
end

def ms(seconds) = format("%7.1f ms", seconds * 1000)

backends = Wirebind.backend == :native ? %i[native pure] : %i[pure]
puts "wirebind #{Wirebind::VERSION} on #{RUBY_ENGINE} #{RUBY_VERSION}; backends here: #{backends.join(', ')}" \
     "#{' (the C one is not built yet)' unless backends.include?(:native)}"

xml = Bench::Generator.issues_xml(1000)
puts format("\nA JIRA-style getIssues SOAP response: 1,000 issues, %.1f MB.", xml.bytesize / 1e6)

timings = {}
issues = nil
backends.each do |backend|
  issues, timings["wirebind #{backend}"] = best_of do
    Wirebind::XML.decode(xml, [Bench::Issue], at: "Envelope/Body/getIssuesResponse/return/item", backend: backend)
  end
  puts "decoded with the #{backend} backend: #{issues.size} Issue objects in#{ms(timings["wirebind #{backend}"])}"
end

first = issues.first
puts "\nThe first one:"
puts "  #{first.key}: #{first.summary}"
puts "  reporter #{first.reporter.inspect}, assignee #{first.assignee.inspect}, lang #{first.lang.inspect}"
puts "  created #{first.created} (a #{first.created.class}), votes #{first.votes.inspect}, " \
     "time spent #{first.time_spent&.to_s('F').inspect}"
puts "  affects #{first.affects_versions.map(&:name).inspect}, labels #{first.labels.inspect}"
puts "  matches the generator's reference: #{first == Bench::Generator.expected_issue(0) ? 'yes' : 'NO'}"

encoded, encode_time = best_of { Wirebind::XML.encode(issues, root: "return", item: "item") }
again = Wirebind::XML.decode(encoded, [Bench::Issue], at: "return/item")
puts format("\nEncoded back to XML: %.1f MB in%s; decoded again, equal to the originals: %s",
            encoded.bytesize / 1e6, ms(encode_time), again == issues ? "yes" : "NO")

_, timings["Nokogiri::XML(xml), a DOM only"] = best_of { Nokogiri::XML(xml) }
children = Bench::Peers::NokogiriChildren.new
peer_issues, timings["Nokogiri DOM + children walk"] = best_of { children.decode(xml) }
abort "the Nokogiri peer disagrees with wirebind" unless peer_issues == issues

puts "\nDecoding the same document (best of 3):"
timings.sort_by { |_, t| t }.each { |name, t| puts "  #{name.ljust(34)}#{ms(t)}" }
backends.each do |backend|
  ratio = timings["Nokogiri DOM + children walk"] / timings["wirebind #{backend}"]
  verdict = ratio >= 1 ? format("%.1fx faster than", ratio) : format("%.1fx slower than", 1 / ratio)
  puts "wirebind #{backend} is #{verdict} Nokogiri walking its DOM into the same objects."
end
puts "\nEvery contender, checked equal first, then timed: bundle exec rake bench"

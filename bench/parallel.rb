# frozen_string_literal: true

# What threads and Ractors buy a native XML decode on this Ruby: the same
# 1000-issue document decoded WORK times by one thread, by two threads, and by
# two Ractors (WORK/2 each), outputs checked equal first. Wall time on the
# monotonic clock (bench/clock.rb); the ratio is the speedup over one thread.
#
#   bundle exec rake bench:parallel

lib = File.expand_path("../lib", __dir__)
$LOAD_PATH.unshift(lib) unless $LOAD_PATH.include?(lib)
require "wirebind"
require_relative "clock"
require_relative "generator"

module Bench
  module Parallel
    WORK = Integer(ENV.fetch("BENCH_PARALLEL_WORK", "40"))
    AT = ISSUES_PATH

    module_function

    def main
      abort "bench/parallel.rb measures the native backend; it is not in use" unless Wirebind.backend == :native

      xml = Ractor.make_shareable(Generator.issues_xml(1000, seed: 1))
      expected = Generator.expected(1000, seed: 1)
      decoded = Wirebind::XML.decode(xml, [Issue], at: AT)
      abort "the decode differs from the generator's reference" unless decoded == expected
      # Plans made shareable in the main Ractor, so other Ractors may read them.
      [Issue, Version, Component, CustomField].each do |klass|
        Ractor.make_shareable(klass.instance_variable_get(:@__wb_plans))
      end
      check = Ractor.new(xml) { |doc| Wirebind::XML.decode(doc, [Bench::Issue], at: AT).size }.take
      abort "a Ractor decoded #{check} issues, not 1000" unless check == 1000

      puts "Ruby #{RUBY_VERSION}, #{Etc.nprocessors} cores; #{WORK} decodes of 1000 issues (#{(xml.bytesize / 1e6).round(2)} MB) each way"
      one = time { WORK.times { Wirebind::XML.decode(xml, [Issue], at: AT) } }
      threads = time { 2.times.map { Thread.new { (WORK / 2).times { Wirebind::XML.decode(xml, [Issue], at: AT) } } }.each(&:join) }
      ractors = time do
        2.times.map { Ractor.new(xml, WORK / 2) { |doc, n| n.times { Wirebind::XML.decode(doc, [Bench::Issue], at: AT) } } }.each(&:take)
      end
      report("one thread", one, one)
      report("two threads", threads, one)
      report("two Ractors", ractors, one)
    end

    def time
      GC.start
      started = Clock.now
      yield
      Clock.now - started
    end

    def report(name, seconds, baseline)
      puts format("%-12s %8.1f ms  %.2fx one thread", name, seconds * 1000, baseline / seconds)
    end
  end
end

require "etc"
Warning[:experimental] = false
Bench::Parallel.main

# frozen_string_literal: true

# The work bench/instructions.rb counts, run under callgrind: one process per
# backend, every row in turn. Each row runs once untimed (plans compiled,
# caches filled), then GC.start, then REPS times inside a window that
# GC.count opens and closes: callgrind is started with
# --dump-before=rb_gc_count, so each window is a dump of its own and process
# start-up, loading and input generation fall outside it. Garbage collection
# inside the window is counted (the full GC before it makes that repeatable).
# Nothing in the windows may call GC.count (or Class#subclasses, which calls
# rb_gc_count too): the untimed run fills the caches that ask it. Calls during
# start-up only add dumps before the first window; the driver counts the
# windows from the last dump back.
#
# Usage (the driver's): ruby -I<lib> bench/instructions/workload.rb BACKEND [ROW,...]
# Prints one line of JSON: the rows in the order their windows were dumped.
# With CPU_RUNS=N (rake bench:compare, not under callgrind) it times the same
# rows instead, interleaved (Clock.interleaved), and prints per row the mean
# CPU nanoseconds and the allocations per record.

require "json"
require "wirebind"
require_relative "../generator"
require_relative "../hpack_headers"
require_relative "../clock"

module Bench
  module InstructionWorkload
    # records of the XML, JSON, serializer and SOAP rows (WORKLOAD_ISSUES for bench:compare on a bigger document;
    # the budget is for 100)
    ISSUES = Integer(ENV.fetch("WORKLOAD_ISSUES", "100"))
    HEADER_BLOCKS = 50 # records of the HPACK rows: one header block each
    REPS = 2

    # Some other class of the application declares a formatted time (Stripe's
    # "created"): encoding the issues, which hold none, must not pay for it
    # (Model.encodable decides per class whether records need a copy).
    FORMATTED_ELSEWHERE = Class.new do
      include Wirebind::Model
      attribute :created, :time, format: :epoch
    end

    # A plain serializer of the issues' scalar fields and versions (the
    # bench's hypermedia one needs the peers' gems loaded).
    def self.serializer_class
      version = Class.new(Wirebind::Serializer) { attributes :id, :name, :archived, :released, :release_date, :sequence }
      Class.new(Wirebind::Serializer) do
        model Issue
        attributes :id, :key, :summary, :description, :type, :status, :created, :updated, :votes, :time_spent, :labels
        many :affects_versions, version
        many :fix_versions, version
      end
    end

    # name => [records, work, check]; +work+ runs the row, +check+ tells
    # whether its output is right (every row is checked before it is counted).
    def self.rows(backend)
      issues = Generator.expected(ISSUES)
      xml = Generator.issues_xml(ISSUES)
      json = Wirebind::JSON.encode(issues)
      decoded = ->(output) { output == issues }
      rows = {
        "xml_decode" => [ISSUES, -> { Wirebind::XML.decode(xml, [Issue], at: ISSUES_PATH, backend: backend) }, decoded],
        "xml_encode" => [ISSUES, -> { Wirebind::XML.encode(issues, root: "return", item: "item", backend: backend) },
                         ->(output) { Wirebind::XML.decode(output, [Issue], at: "return/item", backend: :pure) == issues }],
        "json_decode" => [ISSUES, -> { Wirebind::JSON.decode(json, [Issue], backend: backend) }, decoded],
        "json_encode" => [ISSUES, -> { Wirebind::JSON.encode(issues, backend: backend) },
                          ->(output) { Wirebind::JSON.decode(output, [Issue], backend: :pure) == issues }]
      }
      if defined?(Wirebind::Serializer)
        serializer = serializer_class
        rows["serializer"] = [ISSUES, -> { serializer.new(issues, backend: backend).to_json },
                              ->(output) { output == serializer.new(issues, backend: :pure).to_json }]
      end
      if defined?(Wirebind::SOAP::Envelope::Reader)
        envelope = Wirebind::SOAP::Envelope.write(+"", operation: "getIssuesResponse", namespace: "urn:bench",
                                                       parts: { getIssuesReturn: issues }, style: :rpc_encoded, multi_ref: true)
        rows["soap_read"] = [ISSUES, lambda {
          Wirebind::SOAP::Envelope::Reader.new(envelope).decode([Issue], references: true, backend: backend)
        }, decoded]
        # A service's rpc/encoded response, multiRefs included (one writer, whichever backend decodes).
        rows["soap_encoded_write"] = [ISSUES, lambda {
          Wirebind::SOAP::Envelope.write(+"", operation: "getIssuesResponse", namespace: "urn:bench", parts: { getIssuesReturn: issues },
                                              types: { getIssuesReturn: [Issue] }, style: :rpc_encoded, multi_ref: true)
        }, ->(output) { Wirebind::SOAP::Envelope::Reader.new(output).decode([Issue], references: true, backend: :pure) == issues }]
      end
      hpack_rows(rows)
      rows
    end

    # HPACK has one engine (C when compiled): its rows are measured with the native backend only.
    def self.hpack_rows(rows)
      require "wirebind/http2"
      block = Wirebind::HTTP2::HPACK::Encoder.new.encode(HPACK_HEADERS).freeze
      rows["hpack_encode"] = [HEADER_BLOCKS, -> { Array.new(HEADER_BLOCKS) { Wirebind::HTTP2::HPACK::Encoder.new.encode(HPACK_HEADERS) } },
                              ->(blocks) { blocks.all?(block) }]
      rows["hpack_decode"] = [HEADER_BLOCKS, -> { Array.new(HEADER_BLOCKS) { Wirebind::HTTP2::HPACK::Decoder.new.decode(block) } },
                              ->(lists) { lists.all?(HPACK_HEADERS) }]
    rescue LoadError
      nil
    end

    def self.main(backend, only)
      rows = rows(backend)
      rows.delete_if { |name, _| name.start_with?("hpack", "soap_encoded_write") } if backend != :native
      rows.select! { |name, _| only.include?(name) } if only
      rows.each { |name, (_, work, check)| abort "#{name} (#{backend}): wrong output" unless check.call(work.call) }
      return print_cpu(rows, Integer(ENV["CPU_RUNS"])) if ENV["CPU_RUNS"]

      windows = []
      GC.count # window 1 ends: start-up, loading, generation
      rows.each do |name, (records, work, _)|
        work.call
        GC.start
        GC.count # the untimed run's window ends
        REPS.times { work.call }
        GC.count # the measured window ends
        windows << { "row" => name, "records" => records * REPS }
      end
      puts JSON.generate(windows)
    end

    def self.print_cpu(rows, runs)
      samples = Clock.interleaved(rows.transform_values { |row| row[1] }, runs: runs)
      puts JSON.generate(samples.to_h do |name, sample|
        records = rows[name].first
        [name, { "ns" => sample.mean_ns / records, "allocations" => sample.allocations / records }]
      end)
    end
  end
end

Bench::InstructionWorkload.main(ARGV.fetch(0).to_sym, ARGV[1]&.split(","))

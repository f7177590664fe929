# frozen_string_literal: true

require "fileutils"
require "json"
require "time"

module Bench
  # Collects the numbers of one `rake bench` run and writes them three ways:
  # results/xml.md for the README, results/xml.json for tools, and
  # results/xml_decode.svg, a bar chart with no dependencies.
  class Report
    FILES = %w[xml.md xml.json xml_decode.svg].freeze
    PEER_GEMS = %w[nokogiri ox nori shale nokogiri-happymapper builder].freeze

    # What each peer needed to give the reference output; the details and
    # reasons are in the comments of bench/peers/*.rb.
    PEER_NOTES = [
      "**nori (savon)**: Savon 2.17's Nori options, plus `consistent_empty_tags: true, empty_tag_value: \"\"`: " \
      "with Savon's defaults an element carrying `xsi:type` reads the same whether it is `xsi:nil` or empty " \
      "(both become the attribute Hash), so nil and \"\" cannot be told apart. Savon's `tag.snakecase` became " \
      "`Nori::StringUtils.snakecase(tag)` (Nori 2.7.1 stopped patching String).",
      "**shale**: its Nokogiri adapter reads an element's first text node only, which cuts " \
      "`text<![CDATA[more]]>` short; the peer's adapter parses with NOCDATA. A String attribute is nil for " \
      "`<x/>` and for `xsi:nil`, so `environment` (the one field with both) is mapped as content plus the nil attribute.",
      "**happymapper**: its Time typecast turns an empty or nil element into `Time.at(0)` and its Integer " \
      "typecast turns a padded `0` into nil, so those fields use the `parser:` option; nillable strings go " \
      "through a content-plus-nil-attribute class; content mappings skip CDATA, so the document is parsed with NOCDATA.",
      "**ox sax**: `skip: :skip_return`, the fastest mode that reads this document right (the default collapses " \
      "white space inside values); it would drop a whitespace-only value, which this document does not have.",
      "**nokogiri xpath / children**: `at_xpath`/`element_children` plus an `xsi:nil` check, rather than " \
      "jiraSOAP's `.to_s`, which reads nil as \"\".",
      "The DOM peers parse with NOBLANKS, which saves libxml2 the indentation text nodes (it would drop a " \
      "whitespace-only value, which this document does not have); the bare-parse floor uses `Nokogiri::XML(xml)` as is."
    ].freeze

    attr_accessor :document_bytes, :elapsed, :stream_document

    def initialize(count:, seed:, backends:, runs:, without_wirebind: false)
      @count = count
      @runs = runs
      @seed = seed
      @backends = backends
      @without_wirebind = without_wirebind
      @date = Time.now.utc
      @load_at_start = load_average
      @decode = []
      @encode = []
      @stream = []
    end

    # ---- collecting --------------------------------------------------------

    # Heap objects per reference record (Check.objects_in), for the allocation goal.
    attr_accessor :objects_per_record
    # The jiraSOAP technique's mean over the pure backend's, under --yjit.
    attr_accessor :pure_yjit

    # The native backend's goals (issue 3's, raised by issue 21: 3x a bare
    # Nokogiri parse, 15x the jiraSOAP technique, 5x Ox::Builder): [what,
    # measured, goal, met?] rows, from this run's means. Rows whose contenders did not run are left out.
    def goals
      native = ->(rows) { rows.find { |r| r[:name] == "wirebind native" } }
      peer = ->(rows, name) { rows.find { |r| r[:name] == name } }
      out = []
      if (w = native.call(@decode))
        [["decode vs a bare Nokogiri::XML parse", "nokogiri parse only", 3.0],
         ["decode vs the jiraSOAP 0.9 technique", "nokogiri children", 15.0],
         ["decode vs Nori with Savon's options", "nori (savon)", 50.0]].each do |what, name, wanted|
          next unless (other = peer.call(@decode, name))

          ratio = other[:mean] / w[:mean]
          out << [what, format("%.1fx", ratio), format(">= %.1fx", wanted), ratio >= wanted]
        end
        if (pure = peer.call(@decode, "wirebind pure")) && (technique = peer.call(@decode, "nokogiri children"))
          ratio = technique[:mean] / pure[:mean]
          out << ["pure decode vs the jiraSOAP 0.9 technique", format("%.2fx", ratio), ">= 1.00x", ratio >= 1.0]
        end
        out << ["the same, both under --yjit", format("%.2fx", pure_yjit), ">= 1.00x", pure_yjit >= 1.0] if pure_yjit
        if objects_per_record
          limit = objects_per_record + 1
          out << ["allocations per decoded record", format("%.1f", w[:allocations_per_record]),
                  format("<= %.1f (%.1f objects + 1)", limit, objects_per_record), w[:allocations_per_record] <= limit]
        end
      end
      if (w = native.call(@encode))
        [["encode vs Builder", "builder", 10.0], ["encode vs hand-written Ox::Builder", "ox builder", 5.0]].each do |what, name, wanted|
          next unless (other = peer.call(@encode, name))

          ratio = other[:mean] / w[:mean]
          out << [what, format("%.1fx", ratio), format(">= %.1fx", wanted), ratio >= wanted]
        end
      end
      if (w = native.call(@stream))
        growth = w[:hwm_growth] / 1024.0 / 1024
        out << ["streaming #{mb(stream_document[:bytes])} MB: peak RSS growth", format("%.1f MiB", growth), "<= 64 MiB", growth <= 64]
        if w[:vs_in_memory]
          out << ["streaming MB/s vs the same document in memory", format("%.2fx", w[:vs_in_memory]), ">= 0.80x", w[:vs_in_memory] >= 0.8]
        end
      end
      out
    end

    def goals_text
      goals.map { |what, measured, wanted, met| format("  %-44s %-12s goal %-26s %s", what, measured, wanted, met ? "met" : "NOT met") }.join("\n")
    end

    def add_decode(contender, measured)
      @decode << row(contender, measured, document_bytes)
    end

    def add_encode(contender, measured, output_bytes)
      @encode << row(contender, measured, output_bytes).merge(output_bytes: output_bytes)
    end

    def add_stream(name, group, result)
      in_memory = @decode.find { |r| r[:name] == name }
      @stream << {
        name: name, group: group, issues: result[:issues], bytes: result[:bytes], seconds: result[:seconds],
        mb_per_s: result[:mb_per_s], records_per_s: result[:records_per_s],
        hwm_growth: result[:hwm_growth], hwm_before: result[:hwm_before], hwm_after: result[:hwm_after],
        vs_in_memory: result[:in_memory_mb_per_s] && result[:mb_per_s] / result[:in_memory_mb_per_s],
        vs_small_decode: in_memory && result[:mb_per_s] / in_memory[:mb_per_s]
      }
    end

    # One contender's Bench::Clock::Sample as a row: seconds per run (mean and
    # best), the collector's share and allocations per record.
    def row(contender, sample, bytes)
      mean = sample.mean_ns / 1e9
      {
        name: contender.name, group: contender.group, note: contender.note,
        mean: mean, best: sample.best_ns / 1e9, gc_per_run: sample.gc_count, gc_ms_per_run: sample.gc_ms,
        mb_per_s: bytes / 1e6 / mean, records_per_s: @count / mean,
        allocations_per_record: sample.allocations.fdiv(@count)
      }
    end

    # ---- text for the terminal ---------------------------------------------

    def header_text
      "wirebind #{Wirebind::VERSION} bench · #{RUBY_DESCRIPTION}\n" \
        "#{machine} · backends: #{@backends.empty? ? 'none (BENCH_WITHOUT_WIREBIND)' : @backends.join(', ')}\n" \
        "peers: #{gem_versions.map { |g, v| "#{g} #{v}" }.join(', ')}"
    end

    def stream_line(name)
      r = @stream.find { |x| x[:name] == name }
      vs = r[:vs_in_memory] ? format(", %.2fx the MB/s of the same document from a String", r[:vs_in_memory]) : ""
      format("  %-22s %d issues %8.2f MB/s %10.0f records/s  peak RSS +%.1f MB%s",
             r[:name], r[:issues], r[:mb_per_s], r[:records_per_s], r[:hwm_growth] / 1e6, vs)
    end

    def ratio_text
      ratios(@decode).map { |line| "  #{line}" }.join("\n")
    end

    # "wirebind pure is 1.4x faster than nokogiri children" (by means), for every
    # wirebind backend against every other contender.
    def ratios(rows, markdown: false)
      rows.select { |r| r[:group] == :wirebind }.flat_map do |w|
        rows.reject { |r| r[:group] == :wirebind }.map do |other|
          factor = other[:mean] / w[:mean]
          verdict =
            if factor >= 1.05 then format("%.1fx faster than", factor)
            elsif factor > 1 / 1.05 then "as fast as (within 5%)"
            else format("%.1fx slower than", 1 / factor)
            end
          verdict = "**#{verdict}**" if markdown
          suffix = other[:group] == :baseline ? " (which builds no objects)" : ""
          "#{w[:name]} is #{verdict} #{other[:name]}#{suffix}"
        end
      end
    end

    # ---- files -------------------------------------------------------------

    def write(dir)
      FileUtils.mkdir_p(dir)
      File.write(File.join(dir, "xml.md"), markdown)
      File.write(File.join(dir, "xml.json"), "#{JSON.pretty_generate(to_h)}\n")
      File.write(File.join(dir, "xml_decode.svg"), svg)
    end

    def to_h
      {
        date: @date.iso8601, ruby: RUBY_DESCRIPTION, yjit: yjit?, machine: machine,
        load_average: { start: @load_at_start, end: load_average },
        wirebind: Wirebind::VERSION, backends: @backends, peers: gem_versions,
        document: { generator: "bench/generator.rb", seed: @seed, issues: @count, bytes: document_bytes },
        runs: @runs, decode: @decode, encode: @encode,
        stream: { document: stream_document, runs: @stream },
        elapsed_seconds: elapsed
      }
    end

    def markdown
      lines = []
      lines << "# XML benchmark results"
      lines << ""
      lines << "`bundle exec rake bench` on #{@date.strftime('%Y-%m-%d')}: #{RUBY_DESCRIPTION}#{yjit? ? '' : ' (YJIT off)'}, " \
               "#{machine} (load average #{@load_at_start} at the start, #{load_average} at the end). " \
               "wirebind #{Wirebind::VERSION}, backends: #{@backends.join(', ')}."
      lines << ""
      lines << "The document is a JIRA-style SOAP 1.1 `getIssues` response (rpc/encoded, as Axis 1.x sent it) made by " \
               "`bench/generator.rb` (seed #{@seed}): #{@count} issues, #{mb(document_bytes)} MB, with `xsi:nil`, " \
               "entities and character references, CDATA, multi-byte UTF-8 and indentation. Every contender's output " \
               "was compared with the generator's reference objects (built from its draws, never parsed) before " \
               "anything was timed: models equal by `==`, same classes, same Time offsets. Every contender ran once per round, " \
               "#{@runs} rounds in a rotating order after a warm-up, in one process: the mean CPU time of a run with " \
               "the garbage collector enabled (its collections inside the timed windows counted) is shown, and the " \
               "ratios come from the means. Allocations are Ruby objects (libxml2's own memory is not counted). " \
               "MB are 10^6 bytes."
      lines << ""
      lines << "## Decode: XML to typed objects"
      lines << ""
      lines << "| contender | mean | best | GC/run | MB/s | records/s | allocations/record | how |"
      lines << "|---|---:|---:|---:|---:|---:|---:|---|"
      @decode.each do |r|
        lines << "| #{bold_if_wirebind(r)} | #{ms(r[:mean])} | #{ms(r[:best])} | #{gc(r)} | #{two(r[:mb_per_s])} | " \
                 "#{int(r[:records_per_s])} | #{int(r[:allocations_per_record])} | #{r[:note]} |"
      end
      lines << ""
      lines << "![records/s per contender](xml_decode.svg)"
      lines << ""
      ratios(@decode, markdown: true).each { |line| lines << "- #{line}" }
      unless @encode.empty?
        lines << ""
        lines << "## Encode: #{@count} objects to XML"
        lines << ""
        lines << "Each output was read back (by the Nokogiri children technique) to objects equal to the input."
        lines << ""
        lines << "| contender | mean | best | GC/run | output MB/s | records/s | allocations/record | output |"
        lines << "|---|---:|---:|---:|---:|---:|---:|---:|"
        @encode.each do |r|
          lines << "| #{bold_if_wirebind(r)} | #{ms(r[:mean])} | #{ms(r[:best])} | #{gc(r)} | #{two(r[:mb_per_s])} | " \
                   "#{int(r[:records_per_s])} | #{int(r[:allocations_per_record])} | #{mb(r[:output_bytes])} MB |"
        end
        lines << ""
        ratios(@encode, markdown: true).each { |line| lines << "- #{line}" }
      end
      unless @stream.empty?
        lines << ""
        lines << "## Streaming: #{mb(stream_document[:bytes])} MB from a file, #{stream_document[:issues]} issues"
        lines << ""
        lines << "Each run is a new process reading the file through an IO, one record at a time; peak RSS growth is " \
                 "VmHWM after the run minus VmHWM before it. Sampled records (every 2%, and the last) were checked " \
                 "against the reference after the run. The in-memory case is the same document read into a " \
                 "String first (not timed) and decoded by the same `each` in another process: it does the same " \
                 "garbage collection work as the #{@count}-issue decode above."
        lines << ""
        lines << "| contender | MB/s | records/s | peak RSS growth | MB/s vs the same document in memory | MB/s vs the #{@count}-issue decode |"
        lines << "|---|---:|---:|---:|---:|---:|"
        @stream.each do |r|
          vs = r[:vs_in_memory] ? format("%.2fx", r[:vs_in_memory]) : "–"
          small = r[:vs_small_decode] ? format("%.2fx", r[:vs_small_decode]) : "–"
          lines << "| #{bold_if_wirebind(r)} | #{two(r[:mb_per_s])} | #{int(r[:records_per_s])} | " \
                   "#{format('%.1f', r[:hwm_growth] / 1e6)} MB | #{vs} | #{small} |"
        end
      end
      unless goals.empty?
        lines << ""
        lines << "## Goals (issues 3 and 21, native backend)"
        lines << ""
        lines << "| goal | measured | wanted | |"
        lines << "|---|---:|---|---|"
        goals.each { |what, measured, wanted, met| lines << "| #{what} | #{measured} | #{wanted} | #{met ? 'met' : '**NOT met**'} |" }
      end
      lines << ""
      lines << "## Peers"
      lines << ""
      lines << gem_versions.map { |g, v| "#{g} #{v}" }.join(", ") + "."
      lines << ""
      PEER_NOTES.each { |note| lines << "- #{note}" }
      lines << ""
      "#{lines.join("\n")}\n"
    end

    # Horizontal bars of records/s, fastest first. Plain SVG 1.1, system fonts.
    def svg
      # The floor goes last whatever its speed: it makes no records.
      rows = @decode.reject { |r| r[:group] == :baseline }.sort_by { |r| -r[:records_per_s] } +
             @decode.select { |r| r[:group] == :baseline }
      label_w = 230
      bar_w = 460
      value_w = 110
      row_h = 30
      top = 64
      width = label_w + bar_w + value_w + 20
      height = top + rows.size * row_h + 52
      max = rows.map { |r| r[:records_per_s] }.max.to_f
      colors = { wirebind: "#c2410c", peer: "#64748b", baseline: "#cbd5e1" }
      out = []
      out << %(<svg xmlns="http://www.w3.org/2000/svg" width="#{width}" height="#{height}" viewBox="0 0 #{width} #{height}" ) +
             %(font-family="-apple-system, 'Segoe UI', Helvetica, Arial, sans-serif" font-size="13">)
      out << %(  <rect width="100%" height="100%" fill="#ffffff"/>)
      out << %(  <text x="10" y="24" font-size="16" font-weight="bold" fill="#0f172a">Decode: JIRA getIssues response to typed objects (records/s, higher is better)</text>)
      out << %(  <text x="10" y="44" fill="#475569">#{esc("#{@count} issues, #{mb(document_bytes)} MB · #{RUBY_DESCRIPTION.split(' (').first}#{yjit? ? ' +YJIT' : ''} · #{@date.strftime('%Y-%m-%d')} · outputs checked equal before timing")}</text>)
      rows.each_with_index do |r, i|
        y = top + i * row_h + (r[:group] == :baseline ? 12 : 0)
        w = [(r[:records_per_s] / max * bar_w).round(1), 1].max
        weight = r[:group] == :wirebind ? ' font-weight="bold"' : ""
        label = r[:group] == :baseline ? "#{r[:name]} (no objects)" : r[:name]
        out << %(  <text x="#{label_w - 8}" y="#{y + 18}" text-anchor="end" fill="#0f172a"#{weight}>#{esc(label)}</text>)
        out << %(  <rect x="#{label_w}" y="#{y + 5}" width="#{w}" height="#{row_h - 10}" rx="2" fill="#{colors[r[:group]]}"/>)
        out << %(  <text x="#{label_w + w + 6}" y="#{y + 18}" fill="#334155">#{esc(int(r[:records_per_s]))}</text>)
      end
      out << %(  <text x="10" y="#{height - 14}" fill="#64748b" font-size="11">) +
             %(#{esc('"nokogiri parse only" builds a DOM and no objects: a floor, not a peer. Source: bench/run.rb; numbers in xml.md.')}</text>)
      out << "</svg>"
      "#{out.join("\n")}\n"
    end

    private

    def bold_if_wirebind(row)
      row[:group] == :wirebind ? "**#{row[:name]}**" : row[:name]
    end

    def ms(seconds) = format("%.1f ms", seconds * 1e3)
    def gc(row) = format("%.1f (%.1f ms)", row[:gc_per_run], row[:gc_ms_per_run])
    def two(number) = format("%.2f", number)
    def mb(bytes) = format("%.2f", bytes / 1e6)

    def int(number)
      number.round.to_s.reverse.scan(/\d{1,3}/).join(",").reverse
    end

    def esc(text)
      text.to_s.gsub("&", "&amp;").gsub("<", "&lt;").gsub(">", "&gt;").gsub('"', "&quot;")
    end

    def yjit?
      defined?(RubyVM::YJIT) && RubyVM::YJIT.respond_to?(:enabled?) && RubyVM::YJIT.enabled?
    end

    # Other work on the machine skews every number; the reader should know.
    def load_average
      File.read("/proc/loadavg").split.first(3).join(" ") if File.readable?("/proc/loadavg")
    end

    def machine
      @machine ||= begin
        cpu = File.read("/proc/cpuinfo")[/^model name\s*:\s*(.+)$/, 1] if File.readable?("/proc/cpuinfo")
        "#{cpu || RUBY_PLATFORM}, #{Etc.nprocessors} cores"
      end
    end

    def gem_versions
      @gem_versions ||= PEER_GEMS.to_h do |name|
        version = Gem.loaded_specs[name]&.version&.to_s || "?"
        version = "#{version} (libxml2 #{Nokogiri::VERSION_INFO.dig('libxml', 'loaded')})" if name == "nokogiri"
        [name, version]
      end
    end
  end
end

# frozen_string_literal: true

# `ruby bench/shapes.rb`: typed decode on documents that differ from the
# JIRA-like corpus of bench/run.rb and bench/json.rb, each in XML and in JSON,
# so that a claim can name the document it holds for:
#
#   strings     articles with long bodies (entities, quotes, multi-byte text)
#   numbers     a GPX-like track: points of floats and integers
#   attributes  UBL-like invoice lines whose values are XML attributes
#               (in JSON: many short members)
#   deep        a tree ten levels deep (records inside records, as SOAP
#               rpc/encoded graphs nest)
#
# Each document is written here by hand from seeded draws, never by wirebind,
# and each contender's output is checked equal (Model#==) to the objects built
# from the same draws before anything is timed. Contenders per document:
#   wirebind native / pure      Wirebind::XML.decode / Wirebind::JSON.decode
#   nokogiri children + mapping Nokogiri::XML, one pass over element_children
#                               into the same models (the jiraSOAP technique)
#   JSON.parse + mapping        JSON.parse, then the same models by hand
#   nokogiri parse only /       the floors: no objects of ours
#   JSON.parse alone
# Timing: Bench::Clock.report (mean CPU time over interleaved runs, GC counted).
#
# Environment: BENCH_SEED=1, BENCH_RUNS=10, BENCH_SCALE=1 (document size factor).

lib = File.expand_path("../lib", __dir__)
$LOAD_PATH.unshift(lib) unless $LOAD_PATH.include?(lib)
$stdout.sync = true

require "json"
require "nokogiri"
require "wirebind"
require_relative "clock"

module Bench
  # The four documents, their models, writers and hand mappings.
  module Shapes
    SEED = Integer(ENV.fetch("BENCH_SEED", "1"))
    RUNS = Integer(ENV.fetch("BENCH_RUNS", "10"))
    SCALE = Float(ENV.fetch("BENCH_SCALE", "1"))

    # ---- models ---------------------------------------------------------------

    # strings: one article.
    class Article
      include Wirebind::Model

      attribute :id, :integer, xml: "@id"
      attribute :title, :string
      attribute :author, :string
      attribute :body, :string
      attribute :tags, [:string], xml: "tag", json: "tags"
    end

    # numbers: one track point.
    class Point
      include Wirebind::Model

      attribute :lat, :float, xml: "@lat"
      attribute :lon, :float, xml: "@lon"
      attribute :ele, :float
      attribute :hr, :integer
      attribute :cad, :integer
    end

    # attributes: one invoice line, every value an attribute in XML.
    class Line
      include Wirebind::Model

      attribute :id, :integer, xml: "@id"
      attribute :code, :string, xml: "@code"
      attribute :quantity, :integer, xml: "@quantity"
      attribute :unit, :string, xml: "@unit"
      attribute :price, :float, xml: "@price"
      attribute :currency, :string, xml: "@currency"
      attribute :tax, :float, xml: "@tax"
      attribute :name, :string, xml: "@name"
    end

    # deep: one node of a tree.
    class Node
      include Wirebind::Model

      attribute :name, :string, xml: "@name"
      attribute :weight, :integer
      attribute :children, [Node], xml: "node", json: "children"
    end

    # The DOM peer parses without indentation text nodes, as bench/peers do.
    NOBLANKS = Nokogiri::XML::ParseOptions::DEFAULT_XML | Nokogiri::XML::ParseOptions::NOBLANKS

    WORDS = %w[
      invoice ledger payment gateway customer résumé naïve façade Straße Ελλάδα 東京 данные
      alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu
    ].freeze

    module_function

    # ---- draws (the reference objects) ------------------------------------------

    def articles(random)
      Array.new((300 * SCALE).ceil) do |i|
        body = Array.new(random.rand(300..900)) { WORDS.sample(random: random) }
        # Markup characters every third article: escaped in XML and JSON alike.
        body.insert(random.rand(body.size), %(<a href="x?a=1&b=2">"quoted" it's</a>)) if i % 3 == 0
        Article.new(id: i + 1, title: "Article #{i + 1}: #{WORDS.sample(3, random: random).join(' ')}",
                    author: WORDS.sample(random: random).capitalize, body: body.join(" "),
                    tags: WORDS.sample(random.rand(1..4), random: random))
      end
    end

    def points(random)
      lat = 47.0
      lon = 8.0
      Array.new((20_000 * SCALE).ceil) do
        lat = (lat + (random.rand - 0.5) / 1000).round(7)
        lon = (lon + (random.rand - 0.5) / 1000).round(7)
        Point.new(lat: lat, lon: lon, ele: (400 + random.rand * 100).round(1), hr: random.rand(90..180), cad: random.rand(60..100))
      end
    end

    def lines(random)
      Array.new((8_000 * SCALE).ceil) do |i|
        Line.new(id: i + 1, code: "SKU-#{random.rand(100_000)}", quantity: random.rand(1..50), unit: %w[EA KGM MTR H87].sample(random: random),
                 price: (random.rand * 1000).round(2), currency: %w[EUR USD CHF].sample(random: random),
                 tax: [0.0, 7.7, 19.0, 20.0].sample(random: random), name: WORDS.sample(2, random: random).join(" "))
      end
    end

    # Trees of depth 10 (1023 nodes each).
    def trees(random)
      Array.new((8 * SCALE).ceil) { tree(random, 10, "n") }
    end

    def tree(random, depth, name)
      # Iterative: the nodes of one level, then their children.
      root = Node.new(name: name, weight: random.rand(1000), children: [])
      level = [root]
      (depth - 1).times do
        level = level.flat_map do |parent|
          parent.children = Array.new(2) { |i| Node.new(name: "#{parent.name}.#{i}", weight: random.rand(1000), children: []) }
        end
      end
      root
    end

    # ---- writers (by hand, not by wirebind) ------------------------------------

    def xml_text(text)
      text.gsub("&", "&amp;").gsub("<", "&lt;").gsub(">", "&gt;").gsub('"', "&quot;")
    end

    def articles_xml(list)
      out = +%(<?xml version="1.0" encoding="UTF-8"?>\n<articles>\n)
      list.each do |a|
        out << %(  <article id="#{a.id}">\n    <title>#{xml_text(a.title)}</title>\n    <author>#{xml_text(a.author)}</author>\n) <<
          %(    <body>#{xml_text(a.body)}</body>\n)
        a.tags.each { |tag| out << "    <tag>#{xml_text(tag)}</tag>\n" }
        out << "  </article>\n"
      end
      out << "</articles>\n"
    end

    def points_xml(list)
      out = +%(<?xml version="1.0" encoding="UTF-8"?>\n<gpx><trk><trkseg>\n)
      list.each do |p|
        out << %(<trkpt lat="#{p.lat}" lon="#{p.lon}"><ele>#{p.ele}</ele><hr>#{p.hr}</hr><cad>#{p.cad}</cad></trkpt>\n)
      end
      out << "</trkseg></trk></gpx>\n"
    end

    def lines_xml(list)
      out = +%(<?xml version="1.0" encoding="UTF-8"?>\n<invoice>\n)
      list.each do |l|
        out << %(<line id="#{l.id}" code="#{l.code}" quantity="#{l.quantity}" unit="#{l.unit}" price="#{l.price}" ) <<
          %(currency="#{l.currency}" tax="#{l.tax}" name="#{xml_text(l.name)}"/>\n)
      end
      out << "</invoice>\n"
    end

    def trees_xml(list)
      out = +%(<?xml version="1.0" encoding="UTF-8"?>\n<forest>)
      stack = list.reverse.map { |node| [node, false] }
      until stack.empty?
        node, closing = stack.pop
        if closing
          out << "</node>"
          next
        end
        out << %(<node name="#{node.name}"><weight>#{node.weight}</weight>)
        stack << [node, true]
        node.children.reverse_each { |child| stack << [child, false] }
      end
      out << "</forest>\n"
    end

    def articles_json(list)
      ::JSON.generate(list.map { |a| { "id" => a.id, "title" => a.title, "author" => a.author, "body" => a.body, "tags" => a.tags } })
    end

    def points_json(list)
      ::JSON.generate(list.map { |p| { "lat" => p.lat, "lon" => p.lon, "ele" => p.ele, "hr" => p.hr, "cad" => p.cad } })
    end

    def lines_json(list)
      ::JSON.generate(list.map do |l|
        { "id" => l.id, "code" => l.code, "quantity" => l.quantity, "unit" => l.unit, "price" => l.price,
          "currency" => l.currency, "tax" => l.tax, "name" => l.name }
      end)
    end

    def trees_json(list)
      ::JSON.generate(list.map { |node| node_hash(node) }, max_nesting: 64)
    end

    def node_hash(root)
      # Iterative, children filled in after their parent's Hash exists.
      out = { "name" => root.name, "weight" => root.weight, "children" => [] }
      stack = [[root, out]]
      until stack.empty?
        node, hash = stack.pop
        node.children.each do |child|
          child_hash = { "name" => child.name, "weight" => child.weight, "children" => [] }
          hash["children"] << child_hash
          stack << [child, child_hash]
        end
      end
      out
    end

    # ---- hand mappings (what a user writes without wirebind) -------------------

    def articles_from_nokogiri(doc)
      doc.root.element_children.map do |e|
        fields = { tags: [] }
        e.element_children.each do |c|
          case c.name
          when "title" then fields[:title] = c.text
          when "author" then fields[:author] = c.text
          when "body" then fields[:body] = c.text
          when "tag" then fields[:tags] << c.text
          end
        end
        Article.new(id: Integer(e["id"], 10), **fields)
      end
    end

    def points_from_nokogiri(doc)
      doc.root.first_element_child.first_element_child.element_children.map do |e|
        fields = {}
        e.element_children.each do |c|
          case c.name
          when "ele" then fields[:ele] = Float(c.text)
          when "hr" then fields[:hr] = Integer(c.text, 10)
          when "cad" then fields[:cad] = Integer(c.text, 10)
          end
        end
        Point.new(lat: Float(e["lat"]), lon: Float(e["lon"]), **fields)
      end
    end

    def lines_from_nokogiri(doc)
      doc.root.element_children.map do |e|
        Line.new(id: Integer(e["id"], 10), code: e["code"], quantity: Integer(e["quantity"], 10), unit: e["unit"],
                 price: Float(e["price"]), currency: e["currency"], tax: Float(e["tax"]), name: e["name"])
      end
    end

    def trees_from_nokogiri(doc)
      doc.root.element_children.map do |root|
        top = Node.new(name: root["name"], children: [])
        stack = [[root, top]]
        until stack.empty?
          element, node = stack.pop
          element.element_children.each do |c|
            if c.name == "weight"
              node.weight = Integer(c.text, 10)
            else
              child = Node.new(name: c["name"], children: [])
              node.children << child
              stack << [c, child]
            end
          end
        end
        top
      end
    end

    def articles_from_hashes(list)
      list.map { |h| Article.new(id: h["id"], title: h["title"], author: h["author"], body: h["body"], tags: h["tags"]) }
    end

    def points_from_hashes(list)
      list.map { |h| Point.new(lat: h["lat"], lon: h["lon"], ele: h["ele"], hr: h["hr"], cad: h["cad"]) }
    end

    def lines_from_hashes(list)
      list.map do |h|
        Line.new(id: h["id"], code: h["code"], quantity: h["quantity"], unit: h["unit"], price: h["price"],
                 currency: h["currency"], tax: h["tax"], name: h["name"])
      end
    end

    def trees_from_hashes(list)
      list.map do |hash|
        top = Node.new(name: hash["name"], weight: hash["weight"], children: [])
        stack = [[hash, top]]
        until stack.empty?
          h, node = stack.pop
          h["children"].each do |c|
            child = Node.new(name: c["name"], weight: c["weight"], children: [])
            node.children << child
            stack << [c, child]
          end
        end
        top
      end
    end

    # ---- the run ------------------------------------------------------------------

    # Each shape: its model, where its records sit in the XML, and the name of
    # its draw (+name+), writers (+name+_xml, +name+_json) and hand mappings
    # (+name+_from_nokogiri, +name+_from_hashes) above.
    SHAPES = {
      "strings" => { model: Article, name: "articles", at: "articles/article" },
      "numbers" => { model: Point, name: "points", at: "gpx/trk/trkseg/trkpt" },
      "attributes" => { model: Line, name: "lines", at: "invoice/line" },
      "deep" => { model: Node, name: "trees", at: "forest/node" }
    }.freeze
    # Issue 21's goals that name one of these documents: [shape, format, floor, wanted].
    GOALS = [["strings", :json, "JSON.parse alone", 1.5], ["numbers", :json, "JSON.parse alone", 1.0],
             ["attributes", :xml, "nokogiri parse only", 2.0]].freeze

    def main
      native = Wirebind::XML.const_defined?(:Native, false)
      backends = native ? %i[native pure] : %i[pure]
      puts format("wirebind %s, Ruby %s, nokogiri %s (libxml2 %s), json %s; seed %d, %d interleaved runs",
                  Wirebind::VERSION, RUBY_VERSION, Nokogiri::VERSION, Nokogiri::VERSION_INFO.dig("libxml", "loaded"),
                  ::JSON::VERSION, SEED, RUNS)
      ratios = {}
      SHAPES.each do |shape, spec|
        name = spec[:name]
        expected = send(name, Random.new(SEED))
        xml = send(:"#{name}_xml", expected)
        json = send(:"#{name}_json", expected)
        model = spec[:model]
        count = shape == "deep" ? expected.sum { |root| nodes_in(root) } : expected.size

        xml_rows = backends.to_h { |b| ["wirebind #{b}", -> { Wirebind::XML.decode(xml, [model], at: spec[:at], backend: b) }] }
        xml_rows["nokogiri children + mapping"] = -> { send(:"#{name}_from_nokogiri", Nokogiri::XML(xml, nil, nil, NOBLANKS)) }
        json_rows = backends.to_h { |b| ["wirebind #{b}", -> { Wirebind::JSON.decode(json, [model], backend: b) }] }
        json_rows["JSON.parse + mapping"] = -> { send(:"#{name}_from_hashes", ::JSON.parse(json, max_nesting: 64)) }
        [xml_rows, json_rows].each do |rows|
          rows.each { |row, call| abort "#{shape}: #{row} does not give the reference objects" unless call.call == expected }
        end
        xml_rows["nokogiri parse only"] = -> { Nokogiri::XML(xml) }
        json_rows["JSON.parse alone"] = -> { ::JSON.parse(json, max_nesting: 64) }
        puts "\nchecked #{shape}: every typed contender == the #{count} reference records (XML #{mb(xml)} MB, JSON #{mb(json)} MB)"

        { xml: xml_rows, json: json_rows }.each do |format, rows|
          samples = Clock.report("#{shape}, #{format.upcase} (#{count} records, #{mb(format == :xml ? xml : json)} MB)",
                                 rows, runs: RUNS, count: count)
          next unless native

          ours = samples.fetch("wirebind native").mean_ns
          samples.each { |row, sample| ratios[[shape, format, row]] = sample.mean_ns / ours }
        end
      end
      return unless native

      puts "\n== goals that name these documents (native backend, from the means)"
      GOALS.each do |shape, format, floor, wanted|
        ratio = ratios.fetch([shape, format, floor])
        puts format("  %-11s %-4s typed decode vs %-19s %5.2fx (goal %.1fx): %s", shape, format, floor, ratio, wanted,
                    ratio >= wanted ? "met" : "NOT met")
      end
    end

    def nodes_in(root)
      count = 0
      stack = [root]
      until stack.empty?
        node = stack.pop
        count += 1
        stack.concat(node.children)
      end
      count
    end

    def mb(text)
      format("%.2f", text.bytesize / 1e6)
    end
  end
end

Bench::Shapes.main if $PROGRAM_NAME == __FILE__

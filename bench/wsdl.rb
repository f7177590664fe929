# frozen_string_literal: true

# `bundle exec rake bench:wsdl`: Wirebind::WSDL on a large real WSDL, beside
# the Wasabi gem's parse of the same file and, where Debian's python3-zeep is
# installed, zeep's.
#
# No Workday-sized WSDL (4 MB, 3,600 types, 236 operations) is published in
# the Savon or Wasabi gems (savon 1.2.0, 2.2.0, 2.3.0 and wasabi 3.5.0 were
# looked at), so the largest published one is the real file: wasabi's
# economic.wsdl (e-conomic: 3.1 MB, 3,257 types, 3,022 operations over two
# ports, but few fields: 1.2 a type). As an extra, clearly labelled
# synthetic, a generated WSDL of Workday's shape and size (3,600 types, most
# with 7 to 14 fields, extensions, enumerations, lists; 236 document/literal
# operations; about 4 MB) shows the cost of types with many fields.
#
# For each: load + generate (the source of every file, in this process), then
# the generated code's load (`require` of the entry file in a new process:
# wirebind itself, every class, every attribute), best of BENCH_RUNS (3), as
# the process's CPU time beside the wall time (bench/clock.rb: one-shot,
# in-process, single-thread work, where the wall clock of a shared machine
# mostly counts other processes' turns; CPU time is what the work costs,
# wall time what a user waits). Before timing,
# the generated code is checked: every class is there and each client has a
# method per operation of its binding.
lib = File.expand_path("../lib", __dir__)
$LOAD_PATH.unshift(lib) unless $LOAD_PATH.include?(lib)
$stdout.sync = true
require "wirebind/wsdl"
require "fileutils"
require "rbconfig"
require "tmpdir"
require_relative "clock"

module Bench
  module WSDL
    RUNS = Integer(ENV.fetch("BENCH_RUNS", "3"))
    ECONOMIC = File.expand_path("../tmp/fixtures/wasabi-3.5.0/spec/fixtures/economic.wsdl", __dir__)
    SYNTHETIC = File.expand_path("../tmp/bench/synthetic_workday.wsdl", __dir__)

    module_function

    # [wall seconds, CPU seconds] the block took.
    def clocks(&block)
      Clock.wall_and_cpu(&block)
    end

    # Best wall and best CPU time of RUNS runs of the block (which returns them).
    def best(runs = RUNS)
      times = Array.new(runs) do
        GC.start
        yield
      end
      [times.map(&:first).min, times.map(&:last).min]
    end

    def seconds(pair)
      format("%.2f s wall, %.2f s CPU", *pair)
    end

    # Loads the entry file in a new Ruby; returns [wall, cpu, classes, operations].
    def load_generated(dir, entry, module_name)
      script = <<~RUBY
        require #{File.expand_path('clock', __dir__).dump}
        wall, cpu = Bench::Clock.wall_and_cpu { require #{File.join(dir, entry).dump} }
        classes = #{module_name}.constants.map { |name| #{module_name}.const_get(name) }.select { |c| c.is_a?(Class) }.uniq
        clients = classes.select { |c| c < Wirebind::SOAP::Client }
        print wall, " ", cpu, " ", classes.size, " ", clients.sum { |c| c.instance_methods(false).count { |m| !m.start_with?("each_") } }
      RUBY
      output = IO.popen([RbConfig.ruby, "-I#{File.expand_path('../lib', __dir__)}", "-e", script], &:read)
      abort "bench/wsdl.rb: the generated code did not load" unless $?.success?
      wall, cpu, classes, operations = output.split
      [Float(wall), Float(cpu), Integer(classes), Integer(operations)]
    end

    def run(path, module_name, label)
      puts "\n#{label}: #{File.basename(path)} (#{format('%.1f', File.size(path) / 1e6)} MB)"
      description = Wirebind::WSDL.load(path)
      files = description.generate(module_name)
      operations = description.ports.sum { |port| port.binding.operations.size }
      generate = best do
        clocks { Wirebind::WSDL.load(path).generate(module_name) }
      end
      fields = description.types.sum { |type| type.all_fields.size }
      puts format("  wirebind load + generate: %s (%d types, %d fields, %d operations, %d files; goal < 2 s)",
                  seconds(generate), description.types.size, fields, operations, files.size)

      Dir.mktmpdir("wirebind-bench-wsdl") do |dir|
        files.each do |name, source|
          FileUtils.mkdir_p(File.dirname(File.join(dir, name)))
          File.write(File.join(dir, name), source)
        end
        _, _, classes, methods = load_generated(dir, files.keys.first, module_name)
        expected = description.types.size + description.ports.size
        abort "bench/wsdl.rb: #{classes} classes loaded, #{expected} expected" unless classes == expected
        abort "bench/wsdl.rb: #{methods} operation methods, #{operations} expected" unless methods == operations

        loaded = best do
          wall, cpu, = load_generated(dir, files.keys.first, module_name)
          [wall, cpu]
        end
        puts format("  load the generated code: %s (%d classes, in a new process, wirebind included; goal < 1 s)",
                    seconds(loaded), classes)
      end
      wasabi(path, generate)
      zeep(path, generate)
    end

    # zeep (Debian's python3-zeep) parsing the same file into its whole model
    # (types included), best of RUNS in one Python process, its import excluded.
    ZEEP = <<~PYTHON
      import sys, time
      from zeep.wsdl import Document
      from zeep.transports import Transport
      best = None
      for _ in range(int(sys.argv[2])):
          cpu, wall = time.process_time(), time.perf_counter()
          document = Document(sys.argv[1], Transport())
          pair = (time.perf_counter() - wall, time.process_time() - cpu)
          best = pair if best is None else (min(best[0], pair[0]), min(best[1], pair[1]))
      print(best[0], best[1], sum(len(binding._operations) for binding in document.bindings.values()))
    PYTHON
    PYTHON3 = "/usr/bin/python3"

    def zeep(path, generate)
      unless File.executable?(PYTHON3) && system(PYTHON3, "-c", "import zeep", err: File::NULL)
        return puts("  zeep is not installed (apt-get install python3-zeep)")
      end

      output = IO.popen([PYTHON3, "-c", ZEEP, path, RUNS.to_s], err: File::NULL, &:read)
      return puts("  zeep could not parse #{File.basename(path)}") unless $?.success?

      wall, cpu, count = output.split
      parse = [Float(wall), Float(cpu)]
      puts format("  zeep parse (the whole model, types included): %s (%d operations)", seconds(parse), Integer(count))
      puts format("  wirebind load + generate / zeep parse: %.2fx wall, %.2fx CPU", generate[0] / parse[0], generate[1] / parse[1])
    end

    def wasabi(path, generate)
      verbose = $VERBOSE
      $VERBOSE = nil # Wasabi's dependencies warn while loading
      require "wasabi"
      $VERBOSE = verbose
      count = nil
      parse = best do
        clocks { count = Wasabi::Document.new(File.read(path)).operations.size }
      end
      puts format("  Wasabi %s parse (operation names and endpoint only, no types): %s (%d operations)",
                  Wasabi::VERSION, seconds(parse), count)
      puts format("  wirebind load + generate / Wasabi parse: %.2fx wall, %.2fx CPU", generate[0] / parse[0], generate[1] / parse[1])
    rescue LoadError
      puts "  Wasabi is not installed (bundle install --with bench)"
    end

    # A WSDL of Workday's shape (SYNTHETIC, not a real service): document/literal
    # wrapped, qualified elements, +types+ types in all (the operations'
    # request and response elements included), most with 7 to 14 fields of
    # every scalar type, references to earlier types and lists of them, an
    # attribute, some extending a base type, some with an enumeration.
    def synthetic_wsdl(types: 3600, operations: 236, seed: 20_241_123)
      random = Random.new(seed)
      named = types - 2 * operations
      scalars = %w[xsd:string xsd:string xsd:string xsd:decimal xsd:date xsd:dateTime xsd:boolean xsd:int xsd:long]
      out = +<<~XML
        <?xml version="1.0" encoding="UTF-8"?>
        <!-- SYNTHETIC: generated by bench/wsdl.rb in Workday's shape and size; not a real service. -->
        <wsdl:definitions xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/" xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/"
            xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:wd="urn:com.workday/bsvc" targetNamespace="urn:com.workday/bsvc"
            name="Synthetic_Human_Resources">
          <wsdl:types>
            <xsd:schema elementFormDefault="qualified" attributeFormDefault="qualified" targetNamespace="urn:com.workday/bsvc">
      XML
      named.times do |i|
        name = "Synthetic_Object_#{i}_Type"
        base = i > 10 && (i % 9).zero? ? "Synthetic_Object_#{random.rand(i / 2)}_Type" : nil
        out << %(      <xsd:complexType name="#{name}">\n)
        fields = +""
        random.rand(7..14).times do |f|
          field = "Field_#{f}_#{%w[Reference Data Name Date Amount Flag Count ID Descriptor Line][f % 10]}"
          occurs = random.rand(4).zero? ? ' minOccurs="0" maxOccurs="unbounded"' : ' minOccurs="0"'
          type =
            if i.positive? && random.rand(4).zero? then "wd:Synthetic_Object_#{random.rand(i)}_Type"
            else scalars[random.rand(scalars.size)]
            end
          if type == "xsd:string" && random.rand(12).zero?
            fields << %(          <xsd:element name="#{field}" minOccurs="0"><xsd:simpleType><xsd:restriction base="xsd:string">) <<
              %w[Active Inactive Pending].map { |v| %(<xsd:enumeration value="#{v}_#{f}"/>) }.join << %(</xsd:restriction></xsd:simpleType></xsd:element>\n)
          else
            fields << %(          <xsd:element name="#{field}" type="#{type}"#{occurs}/>\n)
          end
        end
        if base
          out << %(        <xsd:complexContent><xsd:extension base="wd:#{base}"><xsd:sequence>\n#{fields}) <<
            %(        </xsd:sequence></xsd:extension></xsd:complexContent>\n)
        else
          out << %(        <xsd:sequence>\n#{fields}        </xsd:sequence>\n)
          out << %(        <xsd:attribute name="Descriptor" type="xsd:string"/>\n)
        end
        out << "      </xsd:complexType>\n"
      end
      operations.times do |j|
        %w[Request Response].each do |kind|
          out << %(      <xsd:element name="Synthetic_Operation_#{j}_#{kind}"><xsd:complexType><xsd:sequence>\n)
          3.times { |k| out << %(        <xsd:element name="#{kind}_Part_#{k}" type="wd:Synthetic_Object_#{random.rand(named)}_Type" minOccurs="0"/>\n) }
          out << %(      </xsd:sequence><xsd:attribute name="version" type="xsd:string"/></xsd:complexType></xsd:element>\n)
        end
      end
      out << "    </xsd:schema>\n  </wsdl:types>\n"
      operations.times do |j|
        %w[Request Response].each do |kind|
          out << %(  <wsdl:message name="Synthetic_Operation_#{j}_#{kind}">) <<
            %(<wsdl:part name="body" element="wd:Synthetic_Operation_#{j}_#{kind}"/></wsdl:message>\n)
        end
      end
      out << %(  <wsdl:portType name="Synthetic_PortType">\n)
      operations.times do |j|
        out << %(    <wsdl:operation name="Synthetic_Operation_#{j}"><wsdl:input message="wd:Synthetic_Operation_#{j}_Request"/>) <<
          %(<wsdl:output message="wd:Synthetic_Operation_#{j}_Response"/></wsdl:operation>\n)
      end
      out << %(  </wsdl:portType>\n  <wsdl:binding name="Synthetic_Binding" type="wd:Synthetic_PortType">\n)
      out << %(    <soap:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>\n)
      operations.times do |j|
        out << %(    <wsdl:operation name="Synthetic_Operation_#{j}"><soap:operation soapAction="Synthetic_Operation_#{j}"/>) <<
          %(<wsdl:input><soap:body use="literal"/></wsdl:input><wsdl:output><soap:body use="literal"/></wsdl:output></wsdl:operation>\n)
      end
      out << %(  </wsdl:binding>\n  <wsdl:service name="Synthetic_Human_Resources">\n)
      out << %(    <wsdl:port name="Synthetic_Port" binding="wd:Synthetic_Binding"><soap:address location="https://example.invalid/ccx/service/synthetic"/></wsdl:port>\n)
      out << "  </wsdl:service>\n</wsdl:definitions>\n"
    end
  end
end

if $PROGRAM_NAME == __FILE__
  abort "bench/wsdl.rb: #{Bench::WSDL::ECONOMIC} is absent (run `bundle exec rake fixtures`)" unless File.exist?(Bench::WSDL::ECONOMIC)
  puts "wirebind #{Wirebind::VERSION} (#{Wirebind.backend} backend), Ruby #{RUBY_VERSION}; best of #{Bench::WSDL::RUNS}"
  Bench::WSDL.run(Bench::WSDL::ECONOMIC, "Economic", "The largest real WSDL at hand")
  FileUtils.mkdir_p(File.dirname(Bench::WSDL::SYNTHETIC))
  File.write(Bench::WSDL::SYNTHETIC, Bench::WSDL.synthetic_wsdl)
  Bench::WSDL.run(Bench::WSDL::SYNTHETIC, "SyntheticWorkday", "SYNTHETIC, Workday-shaped (generated by this script, not a real service)")
end

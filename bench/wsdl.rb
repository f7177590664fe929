# frozen_string_literal: true

# `bundle exec rake bench:wsdl`: Wirebind::WSDL on two large WSDLs, beside
# zeep's parse of the same file (where Debian's python3-zeep is installed)
# and the Wasabi gem's (operation names only).
#
# The files: the largest real WSDL at hand, wasabi's economic.wsdl
# (e-conomic: 3.1 MB, 3,257 types, 3,022 operations over two ports, but few
# fields: 1.2 a type); clearly labelled synthetic, a WSDL this script
# generates (deterministically) in the shape and size of VMware vSphere's
# vim25: about 4,000 complex types in 2.3 MB, deep complexContent/extension
# chains, mostly optional fields, enumerations, ArrayOfX wrappers, 560
# operations; and a real vSphere service, the Storage Policy (pbm) API 7.0
# that oslo.vmware ships, whose imports bring vSphere's real vim25 data
# types (vim-types.xsd, 1.45 MB: 3,543 types, 32 operations; skipped with a
# note when `rake fixtures` has not unpacked it). Issue 19's goals are
# vim25's: generating < 1 s CPU (zeep parses it in 0.62 s) and requiring the
# generated code < 0.5 s CPU.
#
# Rows, per file, each the mean CPU time over BENCH_RUNS (5) interleaved
# rounds (every contender once per round, in an order that rotates from round
# to round, after an untimed warm-up; the garbage collector enabled and
# counted), the best run beside it (bench/clock.rb's rule: in-process,
# single-thread work is CPU time):
# - generation: WSDL.load + generate (every file's source), in a new Ruby
#   (wirebind loaded and one generation run first, untimed);
# - require: the generated entry file required in a new Ruby, wirebind and
#   its SOAP layer already loaded (their own load is printed once, apart);
# - zeep parse: zeep's Document (the whole model, types included) in one
#   Python process kept for the run, its import excluded;
# - Wasabi parse, in this process;
# - with BENCH_BEFORE=REF (a commit), REF's generation (in a child Ruby) and
#   require of REF's generated code, in the same rounds.
# BENCH_WSDL=economic, vim25 or pbm (or a comma-separated list) runs those only.
# Before timing, the generated code is checked: every class is there and each
# client has a method per operation of its binding.
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
    RUNS = Integer(ENV.fetch("BENCH_RUNS", "5"))
    BEFORE = ENV.fetch("BENCH_BEFORE", nil)
    ECONOMIC = File.expand_path("../tmp/fixtures/wasabi-3.5.0/spec/fixtures/economic.wsdl", __dir__)
    SYNTHETIC = File.expand_path("../tmp/bench/synthetic_vim25.wsdl", __dir__)
    PBM = File.expand_path("../tmp/fixtures/python3-oslo.vmware-4.0.1-3/usr/lib/python3/dist-packages/oslo_vmware/wsdl/7.0/pbmService.wsdl", __dir__)
    PYTHON3 = "/usr/bin/python3"
    LIB = File.expand_path("../lib", __dir__)
    # One CPU time per run: seconds, and the garbage collector's collections and milliseconds inside it.
    Run = Struct.new(:cpu, :gc_count, :gc_ms)

    module_function

    # Requires the generated entry file in a new Ruby (wirebind and its SOAP
    # layer loaded first, untimed); prints the require's CPU seconds and GC,
    # the SOAP layer's load, the classes and the operation methods.
    LOADER = <<~RUBY
      require "wirebind"
      cpu = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID)
      Wirebind::SOAP::Client
      Wirebind::WSDL::FaultDetails
      soap = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) - cpu
      entry, module_name = ARGV
      gc_count = GC.count
      gc_ns = GC.total_time
      cpu = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID)
      require entry
      cpu = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) - cpu
      mod = Object.const_get(module_name)
      classes = mod.constants.map { |name| mod.const_get(name) }.select { |c| c.is_a?(Class) }.uniq
      clients = classes.select { |c| c < Wirebind::SOAP::Client }
      methods = clients.sum { |c| c.instance_methods(false).count { |m| !m.start_with?("each_") } }
      print [cpu, GC.count - gc_count, (GC.total_time - gc_ns) / 1e6, soap, classes.size, methods].join(" ")
    RUBY

    # [Run, SOAP layer seconds, classes, methods]
    def load_generated(entry, module_name, lib = LIB)
      output = IO.popen([RbConfig.ruby, "-I#{lib}", "-e", LOADER, entry, module_name], &:read)
      abort "bench/wsdl.rb: the generated code did not load" unless $?.success?
      cpu, gc_count, gc_ms, soap, classes, methods = output.split
      [Run.new(Float(cpu), Integer(gc_count), Float(gc_ms)), Float(soap), Integer(classes), Integer(methods)]
    end

    # Generation in a new Ruby with the lib/ given (this one's, or with
    # BENCH_BEFORE=REF that commit's, from a temporary worktree:
    # bench/other_commit.rb): once to warm up, once timed; with a third
    # argument, the generated files are written to that directory first.
    GENERATE = <<~RUBY
      require "wirebind/wsdl"
      require "fileutils"
      path, module_name, dir = ARGV
      if dir
        Wirebind::WSDL.load(path).generate(module_name).each do |name, source|
          FileUtils.mkdir_p(File.dirname(File.join(dir, name)))
          File.write(File.join(dir, name), source)
        end
      end
      Wirebind::WSDL.load(path).generate(module_name)
      GC.start
      gc_count = GC.count
      gc_ns = GC.total_time
      cpu = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID)
      Wirebind::WSDL.load(path).generate(module_name)
      cpu = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) - cpu
      print [cpu, GC.count - gc_count, (GC.total_time - gc_ns) / 1e6].join(" ")
    RUBY

    def generate_with(lib, path, module_name, dir = nil)
      output = IO.popen([RbConfig.ruby, "-I#{lib}", "-e", GENERATE, path, module_name, *dir], &:read)
      abort "bench/wsdl.rb: #{lib} did not generate" unless $?.success?
      cpu, gc_count, gc_ms = output.split
      Run.new(Float(cpu), Integer(gc_count), Float(gc_ms))
    end

    # zeep's Document of the file, once per line read, in one Python process;
    # each answer is the parse's CPU seconds and the operations it found.
    ZEEP = <<~PYTHON
      import sys, time
      from zeep.wsdl import Document
      from zeep.transports import Transport
      for _ in sys.stdin:
          cpu = time.process_time()
          document = Document(sys.argv[1], Transport())
          cpu = time.process_time() - cpu
          print(cpu, sum(len(binding._operations) for binding in document.bindings.values()), flush=True)
    PYTHON

    def zeep_process(path)
      return nil unless File.executable?(PYTHON3) && system(PYTHON3, "-c", "import zeep", err: File::NULL)

      IO.popen([PYTHON3, "-c", ZEEP, path], "r+", err: File::NULL)
    end

    def zeep_parse(zeep)
      zeep.puts("parse")
      line = zeep.gets or abort "bench/wsdl.rb: zeep stopped"
      cpu, operations = line.split
      [Run.new(Float(cpu), nil, nil), Integer(operations)]
    end

    def in_process
      gc_count = GC.count
      gc_ns = GC.total_time
      cpu = Clock.cpu_ns
      yield
      Run.new((Clock.cpu_ns - cpu) / 1e9, GC.count - gc_count, (GC.total_time - gc_ns) / 1e6)
    end

    def wasabi
      verbose = $VERBOSE
      $VERBOSE = nil # Wasabi's dependencies warn while loading
      require "wasabi"
      Wasabi
    rescue LoadError
      nil
    ensure
      $VERBOSE = verbose
    end

    # +imports+: the WSDL imports the files beside it (pbm's), whose size is
    # printed too, and Wasabi, which does not follow imports, is not run.
    def run(path, module_name, label, before_lib = nil, imports: false)
      others = imports ? Dir.glob(File.join(File.dirname(path), "*.{xsd,wsdl}")) - [path] : []
      beside = others.empty? ? "" : format(", %.1f MB with the %d files it imports", (File.size(path) + others.sum { |file| File.size(file) }) / 1e6, others.size)
      puts "\n#{label}: #{File.basename(path)} (#{format('%.1f', File.size(path) / 1e6)} MB#{beside})"
      description = Wirebind::WSDL.load(path)
      files = description.generate(module_name)
      operations = description.ports.sum { |port| port.binding.operations.size }
      fields = description.types.sum { |type| type.all_fields.size }
      puts format("  %d types, %d fields (inherited ones counted in each type), %d operations; %d generated files, %.1f MB of source",
                  description.types.size, fields, operations, files.size, files.values.sum(&:bytesize) / 1e6)
      Dir.mktmpdir("wirebind-bench-wsdl") do |dir|
        files.each do |name, source|
          FileUtils.mkdir_p(File.dirname(File.join(dir, name)))
          File.write(File.join(dir, name), source)
        end
        entry = File.join(dir, files.keys.first)
        _, soap, classes, methods = load_generated(entry, module_name)
        expected = description.types.size + description.ports.size
        abort "bench/wsdl.rb: #{classes} classes loaded, #{expected} expected" unless classes == expected
        abort "bench/wsdl.rb: #{methods} operation methods, #{operations} expected" unless methods == operations

        zeep = zeep_process(path)
        wasabi_module = wasabi unless imports
        contenders = { "wirebind generation (load + generate)" => -> { generate_with(LIB, path, module_name) },
                       "wirebind require of the generated code" => -> { load_generated(entry, module_name).first } }
        if before_lib
          before_dir = File.join(dir, "before")
          generate_with(before_lib, path, module_name, before_dir)
          before_entry = File.join(before_dir, files.keys.first)
          contenders["before: generation (#{BEFORE})"] = -> { generate_with(before_lib, path, module_name) }
          contenders["before: require (#{BEFORE})"] = -> { load_generated(before_entry, module_name, before_lib).first }
        end
        contenders["zeep parse (the whole model)"] = -> { zeep_parse(zeep).first } if zeep
        contenders["Wasabi parse (operations only)"] = -> { in_process { wasabi_module::Document.new(File.read(path)).operations } } if wasabi_module
        report(contenders)
        puts format("  (wirebind's SOAP layer, loaded before the require and not in it: %.2f s CPU)", soap)
        puts "  zeep is not installed (apt-get install python3-zeep)" unless zeep
        if imports
          puts "  Wasabi not run: it does not follow wsdl:import (it finds no operation here)"
        elsif !wasabi_module
          puts "  Wasabi is not installed (bundle install --with bench)"
        end
      ensure
        zeep&.close
      end
    end

    # Every contender once per round, the order rotating, after a warm-up round.
    def report(contenders)
      contenders.each_value(&:call)
      runs = contenders.transform_values { [] }
      names = contenders.keys
      RUNS.times do |round|
        names.rotate(round % names.size).each do |name|
          GC.start
          runs[name] << contenders[name].call
        end
      end
      zeep = runs["zeep parse (the whole model)"]
      zeep_mean = zeep && zeep.sum(&:cpu) / zeep.size
      puts "  CPU seconds: mean of #{RUNS} interleaved rounds, best beside it; GC inside the timed window"
      runs.each do |name, samples|
        mean = samples.sum(&:cpu) / samples.size
        gc = samples.first.gc_count ? format("GC %4.1f/run %6.1f ms", samples.sum(&:gc_count).fdiv(samples.size), samples.sum(&:gc_ms) / samples.size) : "GC counted by its process"
        ratio = zeep_mean && !name.start_with?("zeep") ? format("  %.2fx zeep's parse", mean / zeep_mean) : ""
        puts format("  %-42s %6.2f s mean %6.2f s best  %s%s", name, mean, samples.map(&:cpu).min, gc, ratio)
      end
    end

    # A WSDL of vSphere vim25's shape (SYNTHETIC, not a real service): one
    # schema in urn:vim25, document/literal wrapped. DynamicData at the root
    # of data objects and MethodFault of faults, reached through
    # complexContent/extension chains up to 8 deep; mostly optional fields
    # (camelCase, 0 to 9 a type) of scalars, enumerations (named simple
    # types), ManagedObjectReference (simple content with a +type+
    # attribute), xsd:anyType, other types and lists; an ArrayOfX wrapper for
    # a quarter of the types; a request type per operation (+_this+ first)
    # and a response element with +returnval+; faults declared per operation.
    def synthetic_vim25(data: 2060, faults: 280, enums: 480, operations: 560, seed: 20_261_127)
      random = Random.new(seed)
      words = %w[Host Virtual Machine Config Info Spec Storage Network Datastore Cluster Resource Pool Device Backing
                 Port Group Switch Profile Policy Event Alarm Task License Option Runtime Summary Capability Disk
                 File Folder Snapshot Vm Nic Vmk Dvs Vsan Iscsi Nfs Scsi Pci Usb Cpu Memory Boot Fault Key Value]
      name = ->(i, suffix) { "#{words[i % words.size]}#{words[(i / words.size) % words.size]}#{suffix}#{i}" }
      field = ->(i) { "#{words[i % words.size].downcase}#{words[(i * 7 + 3) % words.size]}" }
      scalars = %w[xsd:string xsd:string xsd:string xsd:int xsd:long xsd:boolean xsd:boolean xsd:dateTime xsd:short
                   xsd:double xsd:base64Binary xsd:anyType]
      out = +<<~XML
        <?xml version="1.0" encoding="UTF-8"?>
        <!-- SYNTHETIC: generated by bench/wsdl.rb in vSphere vim25's shape and size; not a real service. -->
        <definitions targetNamespace="urn:vim25" xmlns="http://schemas.xmlsoap.org/wsdl/"
            xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/" xmlns:vim25="urn:vim25" xmlns:xsd="http://www.w3.org/2001/XMLSchema">
          <types>
            <schema targetNamespace="urn:vim25" xmlns="http://www.w3.org/2001/XMLSchema" xmlns:vim25="urn:vim25"
                xmlns:xsd="http://www.w3.org/2001/XMLSchema" elementFormDefault="qualified">
              <complexType name="DynamicData"><sequence><element name="dynamicType" type="xsd:string" minOccurs="0"/>
                <element name="dynamicProperty" type="vim25:DynamicProperty" minOccurs="0" maxOccurs="unbounded"/></sequence></complexType>
              <complexType name="DynamicProperty"><sequence><element name="name" type="xsd:string"/>
                <element name="val" type="xsd:anyType"/></sequence></complexType>
              <complexType name="ManagedObjectReference"><simpleContent><extension base="xsd:string">
                <attribute name="type" type="xsd:string"/></extension></simpleContent></complexType>
              <complexType name="ArrayOfManagedObjectReference"><sequence>
                <element name="ManagedObjectReference" type="vim25:ManagedObjectReference" minOccurs="0" maxOccurs="unbounded"/></sequence></complexType>
              <complexType name="LocalizableMessage"><complexContent><extension base="vim25:DynamicData"><sequence>
                <element name="key" type="xsd:string"/><element name="message" type="xsd:string" minOccurs="0"/></sequence></extension></complexContent></complexType>
              <complexType name="MethodFault"><sequence><element name="faultCause" type="vim25:LocalizedMethodFault" minOccurs="0"/>
                <element name="faultMessage" type="vim25:LocalizableMessage" minOccurs="0" maxOccurs="unbounded"/></sequence></complexType>
              <complexType name="LocalizedMethodFault"><complexContent><extension base="vim25:DynamicData"><sequence>
                <element name="fault" type="vim25:MethodFault"/><element name="localizedMessage" type="xsd:string" minOccurs="0"/></sequence></extension></complexContent></complexType>
      XML
      enum_names = Array.new(enums) { |i| name.call(i * 3 + 1, "Enum") }
      enum_names.each_with_index do |enum, i|
        values = Array.new(random.rand(3..16)) { |v| "#{field.call(i + v)}#{v}" }
        out << %(      <simpleType name="#{enum}"><restriction base="xsd:string">) <<
          values.map { |v| %(<enumeration value="#{v}"/>) }.join << "</restriction></simpleType>\n"
      end
      # Data objects and faults: each extends DynamicData (or MethodFault), or an earlier one.
      types = [] # [name, depth, fault?]
      arrays = []
      (data + faults).times do |i|
        fault = i >= data
        type = name.call(i, fault ? "Fault" : "")
        candidates = types.select { |_, depth, kind| kind == fault && depth < 8 }
        base, depth = if candidates.empty? || random.rand(4).zero? then [fault ? "MethodFault" : "DynamicData", 1]
                      else
                        parent = candidates[random.rand(candidates.size)]
                        [parent[0], parent[1] + 1]
                      end
        out << %(      <complexType name="#{type}"><complexContent><extension base="vim25:#{base}"><sequence>\n)
        random.rand(0..9).times do |f|
          kind = random.rand(20)
          ref = if kind < 10 then scalars[random.rand(scalars.size)]
                elsif kind < 13 then "vim25:#{enum_names[random.rand(enum_names.size)]}"
                elsif kind < 15 then "vim25:ManagedObjectReference"
                elsif kind < 17 && !types.empty? then "vim25:#{types[random.rand(types.size)][0]}"
                elsif kind < 18 then "vim25:LocalizableMessage"
                else "xsd:string"
                end
          occurs = random.rand(6).zero? ? ' maxOccurs="unbounded"' : ""
          optional = random.rand(5).zero? ? "" : ' minOccurs="0"'
          out << %(        <element name="#{field.call(i * 10 + f)}#{f}" type="#{ref}"#{optional}#{occurs}/>\n)
        end
        out << "      </sequence></extension></complexContent></complexType>\n"
        types << [type, depth, fault]
        arrays << type if random.rand(4).zero?
      end
      arrays.each do |item|
        out << %(      <complexType name="ArrayOf#{item}"><sequence><element name="#{item}" type="vim25:#{item}" ) <<
          %(minOccurs="0" maxOccurs="unbounded"/></sequence></complexType>\n)
      end
      fault_types = types.select { |_, _, fault| fault }.map(&:first)
      fault_types.first(60).each { |fault| out << %(      <element name="#{fault}Fault" type="vim25:#{fault}"/>\n) }
      operations.times do |j|
        op = name.call(j * 5 + 2, "Op")
        out << %(      <complexType name="#{op}RequestType"><sequence>\n) <<
          %(        <element name="_this" type="vim25:ManagedObjectReference"/>\n)
        random.rand(0..4).times do |a|
          ref = random.rand(2).zero? ? scalars[random.rand(scalars.size - 1)] : "vim25:#{types[random.rand(types.size)][0]}"
          out << %(        <element name="#{field.call(j + a)}Arg#{a}" type="#{ref}"#{' minOccurs="0"' if random.rand(2).zero?}/>\n)
        end
        out << "      </sequence></complexType>\n"
        out << %(      <element name="#{op}" type="vim25:#{op}RequestType"/>\n)
        returned = random.rand(3).zero? ? nil : types[random.rand(types.size)][0]
        out << %(      <element name="#{op}Response"><complexType><sequence>)
        out << %(<element name="returnval" type="vim25:#{returned}"#{' minOccurs="0" maxOccurs="unbounded"' if random.rand(3).zero?}/>) if returned
        out << "</sequence></complexType></element>\n"
      end
      out << "    </schema>\n  </types>\n"
      fault_types.first(60).each do |fault|
        out << %(  <message name="#{fault}FaultMsg"><part name="fault" element="vim25:#{fault}Fault"/></message>\n)
      end
      operations.times do |j|
        op = name.call(j * 5 + 2, "Op")
        out << %(  <message name="#{op}RequestMsg"><part name="parameters" element="vim25:#{op}"/></message>\n) <<
          %(  <message name="#{op}ResponseMsg"><part name="parameters" element="vim25:#{op}Response"/></message>\n)
      end
      out << %(  <portType name="VimPortType">\n)
      operation_faults = Array.new(operations) { Array.new(random.rand(0..3)) { fault_types[random.rand(60)] }.uniq }
      operations.times do |j|
        op = name.call(j * 5 + 2, "Op")
        out << %(    <operation name="#{op}"><input message="vim25:#{op}RequestMsg"/><output message="vim25:#{op}ResponseMsg"/>)
        operation_faults[j].each { |fault| out << %(<fault name="#{fault}Fault" message="vim25:#{fault}FaultMsg"/>) }
        out << "</operation>\n"
      end
      out << %(  </portType>\n  <binding name="VimBinding" type="vim25:VimPortType">\n) <<
        %(    <soap:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>\n)
      operations.times do |j|
        op = name.call(j * 5 + 2, "Op")
        out << %(    <operation name="#{op}"><soap:operation soapAction="urn:vim25/8.0"/>) <<
          %(<input><soap:body use="literal"/></input><output><soap:body use="literal"/></output>)
        operation_faults[j].each { |fault| out << %(<fault name="#{fault}Fault"><soap:fault name="#{fault}Fault" use="literal"/></fault>) }
        out << "</operation>\n"
      end
      out << %(  </binding>\n  <service name="VimService">\n) <<
        %(    <port name="VimPort" binding="vim25:VimBinding"><soap:address location="https://localhost/sdk/vimService"/></port>\n) <<
        "  </service>\n</definitions>\n"
    end
  end
end

if $PROGRAM_NAME == __FILE__
  abort "bench/wsdl.rb: #{Bench::WSDL::ECONOMIC} is absent (run `bundle exec rake fixtures`)" unless File.exist?(Bench::WSDL::ECONOMIC)
  puts "wirebind #{Wirebind::VERSION} (#{Wirebind.backend} backend), Ruby #{RUBY_VERSION}; #{Bench::WSDL::RUNS} interleaved rounds"
  puts "Issue 19's goals (vSphere vim25): generation < 1 s CPU, require of the generated code < 0.5 s CPU"
  FileUtils.mkdir_p(File.dirname(Bench::WSDL::SYNTHETIC))
  File.write(Bench::WSDL::SYNTHETIC, Bench::WSDL.synthetic_vim25)
  files = ENV.fetch("BENCH_WSDL", "economic,vim25,pbm").split(",")
  both = lambda do |before_lib|
    Bench::WSDL.run(Bench::WSDL::ECONOMIC, "Economic", "The largest real WSDL at hand", before_lib) if files.include?("economic")
    if files.include?("vim25")
      Bench::WSDL.run(Bench::WSDL::SYNTHETIC, "SyntheticVim25",
                      "SYNTHETIC, vSphere vim25-shaped (generated by this script, not a real service)", before_lib)
    end
    if files.include?("pbm")
      if File.exist?(Bench::WSDL::PBM)
        Bench::WSDL.run(Bench::WSDL::PBM, "VspherePbm", "vSphere pbm 7.0, real vim25 types", before_lib, imports: true)
      else
        puts "\nvSphere pbm 7.0, real vim25 types: skipped, #{Bench::WSDL::PBM} is absent (run `bundle exec rake fixtures`)"
      end
    end
  end
  if Bench::WSDL::BEFORE
    require_relative "other_commit"
    Bench::OtherCommit.with_lib(Bench::WSDL::BEFORE, &both)
  else
    both.call(nil)
  end
end

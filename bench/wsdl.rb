# frozen_string_literal: true

# Times Wirebind::WSDL on a large real WSDL beside the Wasabi gem's parse of the
# same file. No Workday-sized WSDL (4 MB, 3,600 types) is published in the
# Savon or Wasabi gems (savon 1.2.0, 2.2.0, 2.3.0 and wasabi 3.5.0 were looked
# at), so the largest published one stands in: wasabi's economic.wsdl
# (e-conomic, 3,257 types, 3,022 operations over two ports).
# Run: bundle exec rake bench:wsdl
$LOAD_PATH.unshift File.expand_path("../lib", __dir__)
require "wirebind/wsdl"
require "tmpdir"

path = File.expand_path("../tmp/fixtures/wasabi-3.5.0/spec/fixtures/economic.wsdl", __dir__)
abort "bench/wsdl.rb: #{path} is absent (run `bundle exec rake fixtures`)" unless File.exist?(path)

def clock
  started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  yield
  Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
end

puts "WSDL: #{File.basename(path)} (#{(File.size(path) / 1e6).round(1)} MB)"
description = nil
files = nil
generate = clock do
  description = Wirebind::WSDL.load(path)
  files = description.generate("Economic")
end
operations = description.ports.sum { |port| port.binding.operations.size }
puts format("wirebind load + generate: %.2f s (%d types, %d operations, %d files; goal < 2 s)",
            generate, description.types.size, operations, files.size)

Dir.mktmpdir do |dir|
  files.each do |name, source|
    FileUtils.mkdir_p(File.dirname(File.join(dir, name)))
    File.write(File.join(dir, name), source)
  end
  script = "t = Process.clock_gettime(Process::CLOCK_MONOTONIC); require #{File.join(dir, 'economic.rb').dump}; " \
           "t = Process.clock_gettime(Process::CLOCK_MONOTONIC) - t; " \
           "n = Economic.constants.count { |c| Economic.const_get(c).is_a?(Class) }; print t, ' ', n"
  seconds, classes = IO.popen([RbConfig.ruby, "-I#{File.expand_path('../lib', __dir__)}", "-e", script], &:read).split
  abort "bench/wsdl.rb: the generated code did not load" unless classes.to_i == description.types.size + description.ports.size + 1
  puts format("load the generated code: %.2f s (%d classes; goal < 1 s)", seconds.to_f, classes.to_i)
end

begin
  require "wasabi"
  wasabi_operations = nil
  wasabi = clock { wasabi_operations = Wasabi::Document.new(File.read(path)).operations.size }
  puts format("Wasabi %s parse (operation names only): %.2f s (%d operations); wirebind/Wasabi: %.2fx",
              Wasabi::VERSION, wasabi, wasabi_operations, generate / wasabi)
rescue LoadError
  puts "Wasabi is not installed (bundle install --with bench)"
end

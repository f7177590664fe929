# frozen_string_literal: true

# rake yard:undocumented: YARD reads no C, so the methods ext/wirebind defines are
# described by @!method directives in Ruby (ext/wirebind/README.md). Every one of
# them, as the loaded extension has them, must be a documented YARD object.
ENV["WIREBIND_BACKEND"] = "native"
require "wirebind"
require "wirebind/http2"
require_relative "yard_load"
require "yard"

YARD::Registry.clear
YARD.parse(Dir["lib/**/*.rb"])
# Everything the extension defines is under a Native module; the config Structs
# it makes (DecodeConfig, EncodeConfig) have no methods of their own to document.
natives = ObjectSpace.each_object(Module).select do |mod|
  mod.name&.match?(/\AWirebind::.*::Native(::|\z)/) && !(mod < Struct)
end
methods = natives.flat_map do |mod|
  mod.singleton_methods(false).filter_map { |name| "#{mod.name}.#{name}" unless mod.method(name).source_location } +
    mod.public_instance_methods(false).filter_map { |name| "#{mod.name}##{name}" unless mod.instance_method(name).source_location }
end
abort "yard:undocumented: no method defined in C found: is the native backend loaded?" if methods.empty?
missing = methods.reject { |path| (object = YARD::Registry.at(path)) && !object.docstring.blank? }
unless missing.empty?
  abort "yard:undocumented: methods defined in C without documentation (#{missing.size}; " \
        "add @!method directives, ext/wirebind/README.md):\n#{missing.sort.join("\n")}"
end
puts "yard:undocumented: the #{methods.size} methods defined in C are documented"

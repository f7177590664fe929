# frozen_string_literal: true

require "rake/extensiontask"

# Builds ext/wirebind into lib/wirebind/wirebind_ext.so (`rake compile`,
# `rake clobber`; tmp/<platform>/wirebind_ext/ holds the build).
Rake::ExtensionTask.new("wirebind_ext") do |ext|
  ext.ext_dir = "ext/wirebind"
  ext.lib_dir = "lib/wirebind"
end

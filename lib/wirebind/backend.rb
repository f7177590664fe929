# frozen_string_literal: true

module Wirebind
  # The one place the backend is chosen. The native extension is used when it is
  # built and loads, unless WIREBIND_BACKEND=pure; WIREBIND_BACKEND=native makes
  # a missing extension an error instead of a silent fallback (CI uses it). When
  # the extension's source is beside this file (a gem installed without a
  # compiler, a +path:+ gem never compiled) but it did not load, one warning
  # says so; WIREBIND_BACKEND=pure, the explicit choice, silences it.
  requested = ENV.fetch("WIREBIND_BACKEND", "auto")
  unless %w[auto pure native].include?(requested)
    raise ArgumentError, "WIREBIND_BACKEND must be auto, pure or native, not #{requested.inspect}"
  end

  native =
    if requested == "pure"
      false
    else
      begin
        require_relative "native_hooks" # what the extension's Init reads
        require "wirebind/wirebind_ext"
        true
      rescue LoadError => e
        raise if requested == "native"

        if File.exist?(File.expand_path("../../ext/wirebind/extconf.rb", __dir__))
          warn("wirebind: the native extension is not compiled (#{e.message}); using the slower pure-Ruby backend. " \
               "Compile it (bundle exec rake compile, or gem pristine wirebind) or set WIREBIND_BACKEND=pure to silence this.")
        end
        false
      end
    end

  # @api private
  BACKEND = native ? :native : :pure

  # @return [Symbol] +:native+ when the C extension is in use, +:pure+ otherwise
  def self.backend
    BACKEND
  end
end

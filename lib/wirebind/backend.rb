# frozen_string_literal: true

module Wirebind
  # The one place the backend is chosen. The native extension is used when it is
  # built and loads, unless WIREBIND_BACKEND=pure; WIREBIND_BACKEND=native makes
  # a missing extension an error instead of a silent fallback (CI uses it).
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
      rescue LoadError
        raise if requested == "native"

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

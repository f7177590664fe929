# frozen_string_literal: true

module Wirebind
  # The lines of a method's source as the generators of the XML and JSON pure
  # encoders write it: appended one by one, literals quoted with +inspect+ so
  # no name from a schema is ever read as code.
  #
  # @api private
  module SourceWriter
    private

    def emit(line)
      @lines << line
    end

    def q(string)
      string.inspect
    end
  end
end

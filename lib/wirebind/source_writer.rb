# frozen_string_literal: true

module Wirebind
  # The lines of a method's source as the pure encoders' generators write it
  # (XML::Pure::Encoder::Generator, JSON::Pure::Encoder::Generator): appended
  # one by one, literals quoted with +inspect+ so no name from a schema is
  # ever read as code.
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

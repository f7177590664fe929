# frozen_string_literal: true

module Wirebind
  module WSDL
    # Ruby names for XML names, deterministic and always valid: a character that
    # cannot be in a Ruby name becomes "_" (ASCII) or "u" and its code point
    # (anything else), so +"é"+ is always +u00e9+; a name that would collide
    # with one already given gets "_2", "_3", ...
    #
    # @api private
    module Naming
      CONSTANT = /\A[A-Z][A-Za-z0-9_]*\z/
      METHOD = /\A[a-z_][a-z0-9_]*\z/
      RUBY_KEYWORDS = Model::Generator::KEYWORDS.map(&:to_s).freeze

      module_function

      # @return [String] ASCII letters, digits and "_" only
      def ascii(name)
        name.to_s.gsub(/[^A-Za-z0-9_]/) { |char| char.ord < 128 ? "_" : "u#{char.ord.to_s(16).rjust(4, '0')}" }
      end

      # +"remote-issue"+ → +"RemoteIssue"+; +"getIssue"+ → +"GetIssue"+.
      # @return [String] matches {CONSTANT}
      def constant(name)
        words = ascii(name).split("_").reject(&:empty?)
        camel = words.map { |word| word[0].upcase + word[1..] }.join
        camel = "Type#{camel}" if camel.empty? || !camel.match?(/\A[A-Z]/)
        camel
      end

      # +"sessionId"+ → +"session_id"+; +"HTTPServer"+ → +"http_server"+.
      # @return [String] matches {METHOD}
      def snake(name)
        text = ascii(name)
        text = text.gsub(/([A-Z]+)([A-Z][a-z])/, '\1_\2').gsub(/([a-z\d])([A-Z])/, '\1_\2').downcase
        text = text.squeeze("_").sub(/\A_+(?=.)/, "").sub(/(?<=.)_+\z/, "")
        text = "value" if text.empty? || text == "_"
        text = "_#{text}" if text.match?(/\A\d/)
        text
      end

      # +name+, or +name_2+, +name_3+... the first not in +taken+ (which it joins).
      # @param taken [Hash{String => true}]
      def unique(name, taken, separator = "_")
        candidate = name
        counter = 1
        candidate = "#{name}#{separator}#{counter += 1}" while taken.key?(candidate.downcase)
        taken[candidate.downcase] = true
        candidate
      end
    end
  end
end

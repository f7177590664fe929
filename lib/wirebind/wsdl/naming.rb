# frozen_string_literal: true

module Wirebind
  module WSDL
    # Ruby names for XML names, deterministic and always valid. Constants and
    # method names (attributes, operations, keywords) keep non-ASCII letters,
    # marks and digits (+КонтактнаяИнформация+, +контактная_информация+); a
    # constant that cannot start with its first one, such as +中文+, gets "Type"
    # before it, a method name "_". Any other character becomes "_" (ASCII) or
    # "u" and its code point (+"·"+ is always +u00b7+). File names ({.file}) are
    # ASCII, with +"é"+ as +u00e9+. A constant that is a keyword (+END+,
    # +BEGIN+) gets a "_" after it; a name that would collide with one already
    # given gets "_2", "_3", ...
    #
    # @api private
    module Naming
      CONSTANT = /\A\p{Lu}[_\p{L}\p{M}\p{N}]*\z/
      METHOD = Model::Attribute::NAME_PATTERN
      METHOD_START = /\A[_\p{Ll}\p{Lo}]/
      RUBY_KEYWORDS = Shareable.make(Model::Generator::KEYWORDS.map(&:to_s) + %w[BEGIN END])

      module_function

      # @return [String] ASCII letters, digits and "_" only
      def ascii(name)
        name.to_s.gsub(/[^A-Za-z0-9_]/) { |char| char.ord < 128 ? "_" : "u#{char.ord.to_s(16).rjust(4, '0')}" }
      end

      # @return [String] letters, marks and digits (any script), ASCII "_"
      def unicode(name)
        name.to_s.gsub(/[^_\p{L}\p{M}\p{N}]/) { |char| char.ord < 128 ? "_" : "u#{char.ord.to_s(16).rjust(4, '0')}" }
      end

      # +"remote-issue"+ → +"RemoteIssue"+; +"getIssue"+ → +"GetIssue"+.
      # @return [String] matches {CONSTANT}
      def constant(name)
        words = unicode(name).split("_").reject(&:empty?)
        camel = words.map { |word| word[0].upcase + word[1..] }.join
        camel = "Type#{camel}" if camel.empty? || !camel.match?(/\A\p{Lu}/)
        camel = "#{camel}_" if RUBY_KEYWORDS.include?(camel)
        camel
      end

      # +"sessionId"+ → +"session_id"+; +"HTTPServer"+ → +"http_server"+;
      # +"ДатаДокумента"+ → +"дата_документа"+.
      # @return [String] matches {METHOD}
      def snake(name)
        words(unicode(name), /(\p{Lu}+)(\p{Lu}\p{Ll})/, /([\p{Ll}\p{Lo}\p{N}])(\p{Lu})/, METHOD_START)
      end

      # {.snake} in ASCII, for file and directory names.
      # @return [String]
      def file(name)
        words(ascii(name), /([A-Z]+)([A-Z][a-z])/, /([a-z\d])([A-Z])/, /\A[_a-z]/)
      end

      def words(text, acronym, word, start)
        text = text.gsub(acronym, '\1_\2').gsub(word, '\1_\2').downcase
        text = text.squeeze("_").sub(/\A_+(?=.)/, "").sub(/(?<=.)_+\z/, "")
        text = "value" if text.empty? || text == "_"
        text = "_#{text}" unless text.match?(start)
        text
      end
      private_class_method :words

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

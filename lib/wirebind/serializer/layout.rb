# frozen_string_literal: true

module Wirebind
  class Serializer
    # How a document lays out its records, the same for both backends: the
    # text around a list, the head each record opens with, whether a list's
    # nil items are left out, and for a JSON:API compound document its
    # top-level object and the options that choose what is written. Built by
    # the format module's +layout+ once per serializer (the defaults once
    # per format, as constants), frozen and Ractor-shareable; the native
    # engine reads its members once per document.
    #
    # @api private
    Layout = Struct.new(
      # @return [String] written before a list's records
      :list_opening,
      # @return [String] written after them
      :list_closing,
      # @return [String, nil] the head a listed record opens with (Siren's
      #   +{"rel":["item"],+), nil for the program's own
      :list_head,
      # @return [String, nil] the head a lone record opens with
      :single_head,
      # @return [Boolean] a list's nil items are left out (else +null+)
      :skip_nil,
      # @return [String, nil] JSON:API: the top-level object up to +"data":+
      #   (with +meta+ and +links+), written before the primary data and
      #   followed by +included+ and +}+; nil for a document that is not compound
      :opening,
      # @return [Hash{String => Hash{String => true}}, nil] JSON:API: the
      #   sparse fieldsets (Serializer#fields)
      :fields,
      # @return [Hash, nil] JSON:API: the include paths as a tree
      #   (Serializer#include_tree), nil for every related record
      :include_tree,
      keyword_init: true
    ) do
      # @param members [Hash] the members (+list_opening+ and +list_closing+
      #   at least); those not given are nil, +skip_nil+ false
      # @return [Layout] a frozen, shareable layout
      def self.build(**members)
        Shareable.make(new(skip_nil: false, **members))
      end
    end

    class Layout
      # The +layout+ of a format that lays a list out by the document's +rel+
      # (HAL, Siren): the format's +LAYOUT+, made once, for the default
      # "item"; its +list_layout(rel)+ for any other.
      #
      # @api private
      module ByRel
        # @return [Layout]
        def layout(document)
          document.rel == "item" ? self::LAYOUT : list_layout(document.rel)
        end
      end
    end
  end
end

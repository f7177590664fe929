# frozen_string_literal: true

module Wirebind
  # Deep-freezes what wirebind shares between threads and Ractors: plans, tables,
  # constants. With Ractors (MRI 3.x) it is +Ractor.make_shareable+; Rubies without
  # them (JRuby, TruffleRuby) get the same deep freeze, walked iteratively.
  #
  # @api private
  module Shareable
    if defined?(Ractor)
      # @param object [Object]
      # @return [Object] +object+, deeply frozen
      def self.make(object)
        Ractor.make_shareable(object)
      end
    else
      def self.make(object)
        seen = {}.compare_by_identity
        pending = [object]
        until pending.empty?
          current = pending.pop
          next if current.is_a?(Module) || seen.key?(current)

          seen[current] = true
          case current
          when Array then pending.concat(current)
          when Hash then current.each { |key, value| pending << key << value }
          when Struct then pending.concat(current.to_a)
          end
          current.instance_variables.each { |ivar| pending << current.instance_variable_get(ivar) }
          current.freeze
        end
        object
      end
    end
  end
end

# frozen_string_literal: true

require "bigdecimal"
require_relative "scanner"

module Wirebind
  module JSON
    module Pure
      # Reads untyped JSON: any value, as plain Ruby values (Hash with String
      # keys, Array, String, Integer, Float, true, false, nil), or only checked
      # and passed over, which is how the typed {Decoder} skips what its schema
      # does not name.
      #
      # One loop, with the open arrays and objects on an explicit stack (Arrays,
      # not Ruby frames), so nesting costs heap and is bounded by +max_depth+.
      #
      # @api private
      class Parser < Scanner
        # Stack layout, three entries per open container: the container (nil
        # when only checking), the key of the member being read (objects) and
        # whether it is an object.
        STEP = 3

        # Reads a whole document as plain values.
        # @return [Object]
        def parse
          peek_byte || error("the input is empty (expected a JSON value)")
          value = read_any(true, 0)
          finish_input
          value
        end

        private

        # Reads one complete value at the scan position (whitespace before it
        # allowed).
        #
        # @param build [Boolean] false to check the value and pass over it
        # @param depth [Integer] arrays and objects already open around it
        # @return [Object] the value (nil unless +build+)
        def read_any(build, depth)
          s = @s
          stack = []
          max_open = @max_depth - depth
          value = nil
          while true
            # ---- one value; a container's first member is read on the next turn
            case @buf.getbyte(s.pos)
            when QUOTE
              value = read_string(build)
            when LBRACE
              depth_error if stack.size / STEP >= max_open
              s.pos += 1
              container = build ? {} : nil
              if s.skip(FIRST_KEY) && (@small || !oversized_match)
                stack.push(container, build ? s[1] : nil, true)
                next
              end
              if (key = next_key(true))
                stack.push(container, key, true)
                next
              end
              value = container
            when LBRACKET
              depth_error if stack.size / STEP >= max_open
              s.skip(ARRAY_START)
              container = build ? [] : nil
              if s.skip(ARRAY_END) || !next_item?(true)
                value = container
              else
                stack.push(container, nil, false)
                next
              end
            when 0x74 # t
              s.skip(TRUE) || read_literal("true")
              value = true
            when 0x66 # f
              s.skip(FALSE) || read_literal("false")
              value = false
            when 0x6E # n
              s.skip(NULL) || read_literal("null")
              value = nil
            when MINUS, DIGIT_0..DIGIT_9
              value = build ? number(stack) : pass_number
            when 0x20, 0x09, 0x0A, 0x0D
              peek_byte
              next
            when nil
              next if refill

              truncated(stack.empty? ? "the input ends where a value was expected" : "the input ends inside #{stack.last ? 'an object' : 'an array'}")
            else
              error("expected a JSON value, got #{describe_byte(@buf.getbyte(s.pos))}")
            end

            # ---- hand the value to the containers it completes
            while true
              return value if stack.empty?

              container = stack[-3]
              if stack[-1]
                container[stack[-2]] = value if build
                if s.skip(NEXT_KEY) && (@small || !oversized_match)
                  stack[-2] = s[1] if build
                  break
                end
                if !s.skip(OBJECT_END) && (key = next_key(false))
                  stack[-2] = key
                  break
                end
              else
                container << value if build
                break if s.skip(NEXT_ITEM)
                break if !s.skip(ARRAY_END) && next_item?(false)
              end
              value = container
              stack.pop(STEP)
            end
          end
        end

        # A key matched with what surrounds it may pass max_token_size while the key
        # itself does not: rewinds, for the exact path to decide.
        # @return [Boolean] true when the match was undone
        def oversized_match
          return false if @s.matched_size <= @max_token_size

          @s.pos -= @s.matched_size
          true
        end

        # @return [Integer, Float] the number at the scan position
        def number(stack)
          s = @s
          if @fast_numbers && (text = s.scan(INTEGER))
            text.to_i
          elsif @fast_numbers && (text = s.scan(NUMBER))
            Float(text)
          else
            text = read_number
            return text.to_i unless NOT_INTEGER.match?(text)

            value = Types::FloatType.parse(text)
            return value if value.finite?

            start = @token_start
            line, column, = position(start)
            raise DecodeError.new("the number #{number_excerpt(text)} is beyond the range of a double",
                                  path: any_path(stack), line: line, column: column)
          end
        end

        def pass_number
          s = @s
          (@fast_numbers && (s.skip(INTEGER) || s.skip(NUMBER))) || read_number
          nil
        end

        # The path of the value being read, from the containers open around it.
        def any_path(stack)
          parts = []
          (0...stack.size).step(STEP) do |i|
            parts << (stack[i + 2] ? stack[i + 1] : stack[i].size)
          end
          Decoder.format_path(parts)
        end
      end
    end
  end
end

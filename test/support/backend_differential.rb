# frozen_string_literal: true

require_relative "codec_test_helpers"

module Wirebind
  # The differential tests' footing (XML, JSON, serializers, binary records and
  # buffers): the same call on the pure backend, the reference, and on the
  # native one must give the same value, or fail with the same error class,
  # message and position. Both backends run in one process, so these tests run
  # only where the extension is loaded.
  module BackendDifferential
    include CodecTestHelpers

    # Why and where an error says it happened (ParseError#reason, the path, the
    # position): compared, where the error class has them, with its class and
    # message.
    ERROR_POSITION = %i[path line column offset reason].freeze

    # Skips the calling test unless the native backend is the one in use.
    def require_native_backend
      skip "the native backend is not in use (WIREBIND_BACKEND=native)" unless Wirebind.backend == :native
    end

    # What +call+ did on +backend+: [:ok, shape of the value] or [:error, class
    # name, message, path, line, column, offset] (nil where the class has no such
    # reader).
    # @param input the call's input, or a lambda making it afresh for each
    #   backend (an IO cannot be read twice)
    # @param shape [#call] turns a value into what is compared (see deep_shape)
    # @param errors [Array<Class>] the errors that are outcomes to compare; any
    #   other propagates and errors the test
    # @yieldparam input the input (made afresh if a lambda)
    # @yieldparam backend [Symbol] :pure or :native
    def outcome(backend, input = nil, shape: method(:deep_shape), errors: [StandardError], &call)
      [:ok, shape.call(call.call(input.respond_to?(:call) ? input.call : input, backend))]
    rescue *errors => e
      error_outcome(e)
    end

    def error_outcome(error)
      [:error, error.class.name, error.message, *ERROR_POSITION.map { |name| error.respond_to?(name) ? error.public_send(name) : nil }]
    end

    # Runs +call+ on both backends and asserts they agree; returns the pure
    # backend's outcome (so that a test can also check what happened).
    # @param label [String] says which case failed
    def agree(input, label, shape: method(:deep_shape), errors: [StandardError], &call)
      pure = outcome(:pure, input, shape: shape, errors: errors, &call)
      native = outcome(:native, input, shape: shape, errors: errors, &call)
      assert(pure == native, lambda do
        "#{label}: the backends disagree\n  pure:   #{pure.inspect}\n  native: #{native.inspect}\n  input: #{shown_input(input)}"
      end)
      pure
    end

    # Both backends, from a String and from IOs trickling it a few bytes at a
    # time; the String's outcome must also be the trickled one (the reference
    # does not depend on how the input is read).
    def agree_everywhere(text, label, seeds: [1], &call)
      expected = agree(text, label, &call)
      seeds.each do |seed|
        trickled = agree(-> { TrickleIO.new(text, seed: seed) }, "#{label} (trickled, seed #{seed})", &call)
        assert_equal expected, trickled, "#{label}: trickled reads (seed #{seed}) give another outcome than the String"
      end
      expected
    end

    # codec.decode(input, type) on both backends.
    # @param codec [Module] Wirebind::XML or Wirebind::JSON
    # @param seeds [Array<Integer>] also from trickled reads, with these seeds
    def agree_on_decode(codec, text, type, label, seeds: [], **options)
      agree_everywhere(text, label, seeds: seeds) { |input, backend| codec.decode(input, type, backend: backend, **options) }
    end

    # codec.each(input, type) on both backends: the count and the records yielded.
    def agree_on_each(codec, text, type, label, seeds: [], **options)
      agree_everywhere(text, label, seeds: seeds) do |input, backend|
        seen = []
        count = codec.each(input, type, backend: backend, **options) { |item| seen << item }
        [count, seen]
      end
    end

    private

    def shown_input(input)
      return "(made by #{input.inspect})" if input.is_a?(Proc)
      return input.inspect[0, 3000] unless input.is_a?(String)

      input.bytesize < 3000 ? input.inspect : "(#{input.bytesize} bytes)"
    end
  end
end

# frozen_string_literal: true

# Loaded by `rake rbs:test` after rbs/test/setup, which wraps every method of
# Wirebind that sig/ describes and checks each call's arguments and result
# against its signature. A call the method itself refused (it raised) is not
# checked: the suite calls the API with wrong arguments on purpose to see them
# refused, and what a signature promises is the shape of the calls that work.
# Nor is a call that returned an Enumerator (+each+ without a block): rbs
# checks an Enumerator's type by running it, which would read the test's IO
# before the test does.
module RBSSignatureCheck
  def notify(key, receiver, trace)
    call = trace.method_call
    return if call.exception? || (call.return? && call.return_value.is_a?(Enumerator))

    super
  end
end
RBS::Test::Observer.singleton_class.prepend(RBSSignatureCheck)

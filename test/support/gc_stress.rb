# frozen_string_literal: true

module Wirebind
  # The native code under a hostile GC (GC.stress: a collection at every
  # allocation; compaction), each answer checked against the pure backend's,
  # computed beforehand. Slow: only `rake test:gc_stress` (WIREBIND_GC_STRESS=1)
  # runs these tests.
  module GCStress
    def require_gc_stress
      skip "set WIREBIND_GC_STRESS=1 to run (rake test:gc_stress)" unless ENV["WIREBIND_GC_STRESS"] == "1"
      skip "the native backend is not in use" unless Wirebind.backend == :native
    end

    # Runs the block under GC.stress.
    def stressed
      GC.stress = true
      yield
    ensure
      GC.stress = false
    end

    # Runs the block under GC.stress with auto-compaction on.
    def stressed_and_compacting(&block)
      skip "GC.auto_compact is not supported here" unless GC.respond_to?(:auto_compact=)
      before = GC.auto_compact
      begin
        GC.auto_compact = true
        stressed(&block)
      ensure
        GC.auto_compact = before
      end
    end

    # Forgets the cached plans of every model in +mod+ (setting a class's root
    # name, to what it is, counts as a schema change), so that compiling happens
    # under stress too.
    def forget_plans(mod)
      mod.constants.map { |name| mod.const_get(name) }.grep(Class).each do |klass|
        klass.xml_root(klass.xml_root) if klass.include?(Wirebind::Model)
      end
    end
  end
end

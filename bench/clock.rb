# frozen_string_literal: true

module Bench
  # The clocks of every benchmark, and the one rule for choosing between them:
  #
  # Wall time (monotonic, {now}), except for in-process, single-thread work,
  # which is reported as this process's CPU time ({cpu_ns}): the JSON rows
  # (bench/json.rb: the mean over interleaved runs with the garbage
  # collector's share counted, {interleaved}), bench/binary.rb's micro-benchmarks (frame headers, framers,
  # HPACK, records, nanoseconds each) and bench/wsdl.rb's one-shot load,
  # generate and load-the-generated-code (seconds, printed beside the wall
  # time, {wall_and_cpu}). On a shared machine the wall clock of such work
  # mostly counts the time other processes held the CPU (4-8x the CPU time
  # there). Everything else is wall time: the network benchmarks (SOAP,
  # HTTP/2) spend part of each call in another process or waiting on a
  # socket, and the codec and serializer benchmarks compare every contender
  # in the same run, as ratios, so the load weighs on all of them alike.
  # README.md ("Development") states the same rule.
  module Clock
    # One contender's runs in {interleaved}: CPU nanoseconds per run (mean and
    # best), and what the garbage collector did inside the timed windows
    # (collections and their milliseconds, per run) and objects allocated per run.
    Sample = Struct.new(:mean_ns, :best_ns, :gc_count, :gc_ms, :allocations, keyword_init: true)

    module_function

    # Runs every contender once per round, in an order that rotates from round
    # to round, for +runs+ rounds after one untimed warm-up of each; the CPU
    # time of each run with the garbage collector enabled and counted. The
    # mean is the figure to compare (ratios and README claims come from it);
    # the best run is printed beside it. Interleaving makes the machine's load
    # and the heap's state weigh on every contender alike.
    #
    # @param contenders [Hash{String => #call}]
    # @return [Hash{String => Sample}]
    def interleaved(contenders, runs:)
      contenders.each_value(&:call)
      GC.start
      totals = contenders.transform_values { [0, Float::INFINITY, 0, 0, 0] }
      names = contenders.keys
      runs.times do |round|
        names.rotate(round % names.size).each do |name|
          gc_count = GC.count
          gc_ns = GC.total_time
          allocated = GC.stat(:total_allocated_objects)
          cpu = cpu_ns
          contenders[name].call
          elapsed = cpu_ns - cpu
          total = totals[name]
          total[0] += elapsed
          total[1] = elapsed if elapsed < total[1]
          total[2] += GC.count - gc_count
          total[3] += GC.total_time - gc_ns
          total[4] += GC.stat(:total_allocated_objects) - allocated
        end
      end
      totals.transform_values do |sum, best, gcs, gc_ns, allocations|
        Sample.new(mean_ns: sum.fdiv(runs), best_ns: best, gc_count: gcs.fdiv(runs), gc_ms: gc_ns.fdiv(runs) / 1e6,
                   allocations: allocations.fdiv(runs))
      end
    end

    # Runs +contenders+ {interleaved} and prints a line per contender: the
    # mean and best CPU milliseconds per run, the collections inside the
    # timed windows, allocations per record (+count+ records per run) and the
    # time as a multiple of the first contender's (from the means). The one
    # table every in-process row of `rake bench` prints.
    #
    # @param title [String] the section's heading
    # @param contenders [Hash{String => #call}] the first is the base of the ratios
    # @param count [Integer] records per run
    # @param unit [String] what a record is ("issue", "record")
    # @return [Hash{String => Sample}]
    def report(title, contenders, runs:, count:, unit: "record")
      puts "\n== #{title} (CPU ms per run: mean of #{runs} interleaved runs, GC counted; best run beside it)"
      samples = interleaved(contenders, runs: runs)
      base_name, base = samples.first
      width = [samples.keys.map(&:size).max, 24].max
      samples.each do |name, sample|
        puts format("  %-#{width}s %8.2f ms mean %8.2f best  GC %4.1f/run %6.2f ms  %6.1f allocations/#{unit}  %5.2fx the time of %s",
                    name, sample.mean_ns / 1e6, sample.best_ns / 1e6, sample.gc_count, sample.gc_ms,
                    sample.allocations / count, sample.mean_ns / base.mean_ns, base_name)
      end
      samples
    end

    # @return [Float] seconds on the monotonic clock
    def now
      Process.clock_gettime(Process::CLOCK_MONOTONIC)
    end

    # CPU nanoseconds of this process (the exception above).
    #
    # @return [Integer]
    def cpu_ns
      Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID, :nanosecond)
    end

    # Runs the block; the wall and CPU seconds it took (the exception above,
    # with the wall time beside it).
    #
    # @return [Array(Float, Float)]
    def wall_and_cpu
      wall = now
      cpu = cpu_ns
      yield
      [now - wall, (cpu_ns - cpu) / 1e9]
    end
  end
end

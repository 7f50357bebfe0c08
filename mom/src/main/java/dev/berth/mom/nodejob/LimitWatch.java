package dev.berth.mom.nodejob;

import dev.berth.mom.job.UsageLimits;
import dev.berth.mom.os.ProcessUsage;
import dev.berth.mom.os.ProcessUsage.Sample;
import dev.berth.proto.ResourcesUsed;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * Polls what a job's processes on this node use, at every heartbeat, as Torque's mom polls the
 * job-wide limits (cput, mem, vmem): a sister sends its node's usage to the mother superior, and
 * the mother superior adds the latest of each sister to its own and tells the job when the sum is
 * over a limit. It runs on the blocking dispatcher, since it reads /proc.
 */
public final class LimitWatch {
  public sealed interface Command {}

  private enum Tick implements Command {
    INSTANCE
  }

  /** A sister's latest usage of the job's processes there. */
  public record SisterSample(String node, Sample sample) implements Command {}

  private LimitWatch() {}

  /**
   * On the mother superior: each tick this node's usage plus the latest of each sister is checked
   * against {@code limits}; the first limit over goes to {@code over} with the usage, and the watch
   * ends.
   */
  public static Behavior<Command> motherSuperior(
      UsageLimits limits,
      ProcessUsage usage,
      JobProcesses here,
      Duration every,
      BiConsumer<UsageLimits.Over, Sample> over) {
    return Behaviors.withTimers(
        timers -> {
          timers.startTimerWithFixedDelay(Tick.INSTANCE, every);
          Map<String, Sample> sisters = new HashMap<>();
          return Behaviors.receive(Command.class)
              .onMessage(
                  SisterSample.class,
                  s -> {
                    sisters.put(s.node(), s.sample());
                    return Behaviors.same();
                  })
              .onMessageEquals(
                  Tick.INSTANCE,
                  () -> {
                    Sample total = here.usage(usage);
                    for (Sample s : sisters.values()) {
                      total = total.plus(s);
                    }
                    var found = limits.over(total);
                    if (found.isEmpty()) {
                      return Behaviors.same();
                    }
                    over.accept(found.get(), total);
                    return Behaviors.stopped();
                  })
              .build();
        });
  }

  /** On a sister: each tick this node's usage goes to the mother superior by {@code report}. */
  public static Behavior<Command> sister(
      ProcessUsage usage, JobProcesses here, Duration every, Consumer<Sample> report) {
    return Behaviors.withTimers(
        timers -> {
          timers.startTimerWithFixedDelay(Tick.INSTANCE, every);
          return Behaviors.receive(Command.class)
              .onMessageEquals(
                  Tick.INSTANCE,
                  () -> {
                    report.accept(here.usage(usage));
                    return Behaviors.same();
                  })
              .build();
        });
  }

  /** A sister's report as a sample: cput in seconds, mem and vmem in bytes. */
  public static Sample sample(ResourcesUsed used) {
    return new Sample(used.getCput(), used.getMem(), used.getVmem());
  }

  /** A sample as a sister reports it. */
  public static ResourcesUsed used(Sample sample) {
    return ResourcesUsed.newBuilder()
        .setCput(sample.cpuSeconds())
        .setMem(sample.residentBytes())
        .setVmem(sample.virtualBytes())
        .build();
  }

  /**
   * The job's usage at its end, at least what the polling saw when it went over a limit: qstat then
   * shows a cput or vmem over the limit it was killed for.
   */
  public static ResourcesUsed atLeast(ResourcesUsed used, Sample seen) {
    return used.toBuilder()
        .setCput(Math.max(used.getCput(), seen.cpuSeconds()))
        .setMem(Math.max(used.getMem(), seen.residentBytes()))
        .setVmem(Math.max(used.getVmem(), seen.virtualBytes()))
        .build();
  }
}

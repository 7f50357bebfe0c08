package dev.berth.mom.lifecycle;

import dev.berth.mom.job.UsageLimits;
import dev.berth.mom.nodejob.JobProcesses;
import dev.berth.mom.nodejob.LimitWatch;
import dev.berth.mom.os.JobProcess;
import dev.berth.mom.os.ProcessUsage;
import dev.berth.mom.os.ProcessUsage.Sample;
import dev.berth.proto.Job;
import dev.berth.proto.JobObitReport;
import dev.berth.proto.SisterUsage;
import java.time.Duration;
import java.util.function.BiFunction;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.javadsl.ActorContext;

/**
 * The job-wide limits (cput, mem, vmem) over the job's processes on all its nodes, as Torque's mom
 * enforces them: polled at every heartbeat while the script runs, over this node's processes and
 * what the sisters report (the mem limit only where no cgroup holds the job's memory). The first
 * limit passed is told to the job's owner and kills the job; its exit status and reason are the
 * limit's, and the obit's usage is at least what was seen then.
 */
final class LimitsHook implements JobHook {
  private final Job job;
  private final ActorContext<JobActor.Command> context;
  private final JobProcesses processes;
  private final Duration every;
  private final CgroupHook cgroup;
  private final BiFunction<UsageLimits.Over, Sample, JobActor.Command> overMessage;

  /** Polls the limits while the script runs; null without limits, before and after. */
  private ActorRef<LimitWatch.Command> watch;

  /** The limit the job went over, and what it used then; null while it has not. */
  private UsageLimits.Over over;

  private Sample used;

  /**
   * @param overMessage the message the job's actor gets when the job went over a limit
   */
  LimitsHook(
      Job job,
      ActorContext<JobActor.Command> context,
      JobProcesses processes,
      Duration every,
      CgroupHook cgroup,
      BiFunction<UsageLimits.Over, Sample, JobActor.Command> overMessage) {
    this.job = job;
    this.context = context;
    this.processes = processes;
    this.every = every;
    this.cgroup = cgroup;
    this.overMessage = overMessage;
  }

  @Override
  public void poststart(JobProcess session) {
    UsageLimits limits = UsageLimits.of(job.getResources(), cgroup.holdsTheJob());
    if (!limits.any() || watch != null) {
      return;
    }
    ActorRef<JobActor.Command> self = context.getSelf();
    watch =
        context.spawn(
            LimitWatch.motherSuperior(
                limits,
                new ProcessUsage(),
                processes,
                every,
                (o, u) -> self.tell(overMessage.apply(o, u))),
            "limits",
            DispatcherSelector.blocking());
  }

  /** What a sister's processes of the job use now. */
  void sisterUsed(SisterUsage usage) {
    if (watch != null) {
      watch.tell(
          new LimitWatch.SisterSample(
              usage.getNode(), LimitWatch.sample(usage.getResourcesUsed())));
    }
  }

  /**
   * The job went over {@code limit} (the watch has stopped); the kill's reason, or null when the
   * job is already being killed and this changes nothing.
   */
  String passed(UsageLimits.Over limit, Sample seen, boolean killing) {
    if (killing) {
      return null;
    }
    over = limit;
    used = seen;
    watch = null;
    return "job killed: " + limit.message();
  }

  /** The limit the job went over, or null. */
  UsageLimits.Over over() {
    return over;
  }

  /** What the job uses while it ends is no longer polled. */
  @Override
  public void exited() {
    if (watch != null) {
      context.stop(watch);
      watch = null;
    }
  }

  @Override
  public void finish(JobObitReport.Builder obit) {
    if (over != null) {
      obit.setResourcesUsed(LimitWatch.atLeast(obit.getResourcesUsed(), used));
    }
  }
}

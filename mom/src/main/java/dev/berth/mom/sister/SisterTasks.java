package dev.berth.mom.sister;

import dev.berth.mom.JobServices;
import dev.berth.mom.MomActor;
import dev.berth.mom.MomConfig;
import dev.berth.mom.job.UsageLimits;
import dev.berth.mom.nodejob.JobProcesses;
import dev.berth.mom.nodejob.LimitWatch;
import dev.berth.mom.nodejob.NodeJob;
import dev.berth.mom.os.ProcessUsage;
import dev.berth.mom.tm.JobTasks;
import dev.berth.mom.tm.TaskHost;
import dev.berth.proto.Job;
import dev.berth.proto.MomInbound;
import dev.berth.proto.SisterUsage;
import dev.berth.proto.TaskStarted;
import java.nio.file.Path;
import java.util.List;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.javadsl.ActorContext;

/**
 * A sister's part of the job's tasks: the task host for the tasks the mother superior spawns here,
 * and, where the job has job-wide limits, a watch that reports what the job's processes here use to
 * the mother superior, which adds it to the rest. A sister whose job owner is unknown here (after a
 * mom restart) hosts no tasks, and a spawn is answered with why.
 */
final class SisterTasks {
  private final ActorContext<SisterJobActor.Command> context;
  private final JobServices services;
  private final Job job;
  private final String motherSuperior;

  /** The task host; null before the job's account here is known, or when it is not. */
  private ActorRef<TaskHost.Command> host;

  SisterTasks(
      ActorContext<SisterJobActor.Command> context,
      JobServices services,
      Job job,
      String motherSuperior) {
    this.context = context;
    this.services = services;
    this.job = job;
    this.motherSuperior = motherSuperior;
  }

  /** Opens the task host for {@code nodeJob}, whose processes join {@code procs}, and the watch. */
  void open(NodeJob nodeJob, List<Path> procs) {
    MomConfig config = services.config();
    ActorRef<MomActor.Command> mom = services.mom();
    String to = motherSuperior;
    JobProcesses processes = new JobProcesses();
    processes.cgroups(procs);
    if (UsageLimits.of(job.getResources(), !procs.isEmpty()).any()) {
      // the mother superior adds what the job uses here to the rest for its job-wide limits
      String jobId = job.getId();
      String node = config.name();
      context.spawn(
          LimitWatch.sister(
              new ProcessUsage(),
              processes,
              config.heartbeat(),
              used ->
                  mom.tell(
                      new MomActor.ToPeer(
                          to,
                          MomInbound.newBuilder()
                              .setSisterUsage(
                                  SisterUsage.newBuilder()
                                      .setJobId(jobId)
                                      .setNode(node)
                                      .setResourcesUsed(LimitWatch.used(used)))
                              .build()))),
          "limits",
          DispatcherSelector.blocking());
    }
    host =
        context.spawn(
            TaskHost.create(
                JobTasks.context(nodeJob, config, false, procs, processes),
                services.launcher(),
                services.records(),
                config.resend(),
                m -> mom.tell(new MomActor.ToPeer(to, m))),
            "tasks",
            DispatcherSelector.sameAsParent());
  }

  /** A task message from the mother superior, for the task host. */
  void fromMotherSuperior(MomInbound message) {
    if (host != null) {
      host.tell(new TaskHost.FromMotherSuperior(message));
    } else if (message.hasSpawn()) {
      String node = services.config().name();
      services
          .mom()
          .tell(
              new MomActor.ToPeer(
                  motherSuperior,
                  MomInbound.newBuilder()
                      .setTaskStarted(
                          TaskStarted.newBuilder()
                              .setJobId(job.getId())
                              .setTaskId(message.getSpawn().getTaskId())
                              .setNode(node)
                              .setError("the job's owner is unknown on " + node))
                      .build()));
    }
  }

  /** A signal for every task here (everything of the job that signals reach on a sister). */
  void signal(int signal) {
    if (host != null) {
      host.tell(new TaskHost.SignalAll(signal));
    }
  }

  /**
   * The tasks here end; returns whether there are any to wait for, which answer {@code replyTo}
   * once ended.
   */
  boolean endAll(ActorRef<TaskHost.Ended> replyTo) {
    if (host == null) {
      return false;
    }
    host.tell(new TaskHost.EndAll(replyTo));
    return true;
  }
}

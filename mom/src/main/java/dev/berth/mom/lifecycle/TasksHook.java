package dev.berth.mom.lifecycle;

import dev.berth.mom.JobServices;
import dev.berth.mom.MomActor;
import dev.berth.mom.MomConfig;
import dev.berth.mom.nodejob.JobProcesses;
import dev.berth.mom.nodejob.NodeJob;
import dev.berth.mom.os.Launcher;
import dev.berth.mom.os.StartSpec;
import dev.berth.mom.output.JobOutput;
import dev.berth.mom.output.Outlet;
import dev.berth.mom.store.JobRecords;
import dev.berth.mom.tm.JobTasks;
import dev.berth.mom.tm.TaskHost;
import dev.berth.mom.tm.TaskManager;
import dev.berth.mom.tm.TmEndpoint;
import dev.berth.proto.Job;
import dev.berth.proto.JobObitReport;
import dev.berth.proto.ResourcesUsed;
import dev.berth.proto.TmRequest;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.BehaviorBuilder;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * The job's tasks (pbsdsh, MPI daemons): the task host for this node and the task manager with its
 * socket, opened just before the script (its socket must answer as soon as the script runs) or
 * found again after a restart, which ends the tasks an earlier mom process left. Requests and the
 * nodes' task reports reach the task manager wherever the job's tasks may still be heard of; when
 * the script has ended, no more requests are taken and the tasks here are ended, and what they used
 * joins the obit. Without a socket (no JNI library to check peers with) tasks cannot be asked for,
 * and the script runs anyway.
 */
final class TasksHook implements JobHook {
  private final Job job;
  private final ActorContext<JobActor.Command> context;
  private final JobServices services;
  private final JobProcesses processes;
  private TaskManager manager;
  private ActorRef<TaskHost.Command> host;
  private ResourcesUsed used = ResourcesUsed.getDefaultInstance();

  TasksHook(
      Job job,
      ActorContext<JobActor.Command> context,
      JobServices services,
      JobProcesses processes) {
    this.job = job;
    this.context = context;
    this.services = services;
    this.processes = processes;
  }

  /** The node's task-manager socket's path, for the job's environment; null without one. */
  Path socket() {
    return services.tm() == null ? null : services.tm().path();
  }

  /**
   * Opens the task host and the task manager, once: for {@code nodeJob} (null when its account is
   * gone after a restart: then nothing opens), whose processes join {@code cgroupProcs} and start
   * as {@code spec} says; {@code terminal} is the user's screen of an interactive job, else null.
   */
  void open(NodeJob nodeJob, StartSpec spec, List<Path> cgroupProcs, Outlet.Destination terminal) {
    if (nodeJob == null || host != null) {
      return;
    }
    MomConfig config = services.config();
    Launcher launcher = services.launcher();
    JobRecords records = services.records();
    ActorRef<JobActor.Command> self = context.getSelf();
    ActorRef<TaskHost.Command> local =
        context.spawn(
            TaskHost.create(
                JobTasks.context(nodeJob, config, true, cgroupProcs, processes),
                launcher,
                records,
                config.resend(),
                m -> self.tell(new JobActor.FromTaskHost(m))),
            "tasks",
            DispatcherSelector.sameAsParent());
    host = local;
    TmEndpoint endpoint =
        services.tm() == null
            ? null
            : services
                .tm()
                .serve(
                    job.getId(),
                    JobTasks.admit(nodeJob, processes.sessions(), cgroupProcs),
                    new TmEndpoint.Handler() {
                      @Override
                      public void request(long connection, TmRequest request, Runnable done) {
                        self.tell(new JobActor.TmCall(connection, request, done));
                      }

                      @Override
                      public void closed(long connection) {
                        self.tell(new JobActor.TmClosed(connection));
                      }
                    });
    String here = config.name();
    manager =
        new TaskManager(
            job,
            here,
            spec.environment(),
            () -> records.nextTaskId(job.getId()),
            (node, m) -> {
              if (node.equals(here)) {
                local.tell(new TaskHost.FromMotherSuperior(m));
              } else {
                services.mom().tell(new MomActor.ToPeer(node, m));
              }
            },
            endpoint,
            new JobOutput(
                spec,
                stream -> records.file(job.getId(), "output-" + stream + ".status"),
                launcher,
                context.getLog(),
                terminal),
            processes.sessions(),
            context.getLog());
  }

  /** Task-manager requests and task reports, in a phase where the job's tasks may be heard of. */
  BehaviorBuilder<JobActor.Command> heard(BehaviorBuilder<JobActor.Command> behavior) {
    return behavior
        .onMessage(JobActor.TmCall.class, this::request)
        .onMessage(JobActor.TmClosed.class, c -> deliver(m -> m.closed(c.connection())))
        .onMessage(JobActor.FromTaskHost.class, f -> deliver(m -> m.fromNode(f.message())))
        // the actor stops while tasks may still be asked for (it failed): the connections close
        // rather than hold their threads and budget for good
        .onSignal(PostStop.class, s -> deliver(TaskManager::close));
  }

  private Behavior<JobActor.Command> request(JobActor.TmCall c) {
    if (manager != null) {
      manager.request(c.connection(), c.request(), c.done());
    } else {
      c.done().run();
    }
    return Behaviors.same();
  }

  private Behavior<JobActor.Command> deliver(Consumer<TaskManager> delivery) {
    if (manager != null) {
      delivery.accept(manager);
    }
    return Behaviors.same();
  }

  /** A signal for the tasks on this node. */
  void signal(int signal) {
    if (host != null) {
      host.tell(new TaskHost.SignalAll(signal));
    }
  }

  /** At every resend while the job runs: the task manager's reports not yet acknowledged. */
  void resend() {
    deliver(TaskManager::resend);
  }

  /** No more task requests: the socket closes (also for a script that did not start). */
  void close() {
    deliver(TaskManager::close);
  }

  /**
   * The script has ended: no more task requests, and the tasks here are ended; returns whether
   * there are tasks here to wait for, which answer {@code replyTo} once ended.
   */
  boolean endAll(ActorRef<TaskHost.Ended> replyTo) {
    close();
    if (host == null) {
      return false;
    }
    host.tell(new TaskHost.EndAll(replyTo));
    return true;
  }

  /** What the tasks here used, once they have ended. */
  void ended(ResourcesUsed usage) {
    used = usage;
  }

  /** The tasks' CPU time and memory join the script's. */
  @Override
  public void finish(JobObitReport.Builder obit) {
    ResourcesUsed script = obit.getResourcesUsed();
    obit.setResourcesUsed(
        script.toBuilder()
            .setCput(script.getCput() + used.getCput())
            .setMem(script.getMem() + used.getMem())
            .build());
  }

  /** The job has ended: what its tasks wrote and is still buffered goes out. */
  void closeOutput() {
    deliver(TaskManager::closeOutput);
  }
}

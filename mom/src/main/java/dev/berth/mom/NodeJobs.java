package dev.berth.mom;

import dev.berth.core.pbs.ExitStatus;
import dev.berth.mom.lifecycle.JobActor;
import dev.berth.mom.sister.SisterAnswers;
import dev.berth.mom.sister.SisterJobActor;
import dev.berth.mom.store.JobRecords;
import dev.berth.mom.terminal.Attachment;
import dev.berth.proto.JobObitReport;
import dev.berth.proto.JoinJob;
import dev.berth.proto.KillJob;
import dev.berth.proto.MomInbound;
import dev.berth.proto.NodeAllocation;
import dev.berth.proto.RunJob;
import dev.berth.proto.ServerInbound;
import dev.berth.proto.SuspendJob;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.javadsl.ActorContext;

/**
 * This node's jobs, for its mom: the actor of each job it is the mother superior of and of each it
 * is a sister of, with who may speak of them (a job's nodes; a sister job's mother superior). Each
 * order and report of the job protocol reaches the actor of the job it names, and one for a job the
 * node does not have is answered as such; a job the node cannot account for (its record could not
 * be read) is left alone, and each kind of order about it logged once. The jobs are found again in
 * the node's records when the mom starts.
 */
final class NodeJobs {
  private final ActorContext<MomActor.Command> context;
  private final JobServices services;
  private final MomConfig config;
  private final Consumer<MomActor.ToPeer> toPeer;
  private final Consumer<ServerInbound> toServer;

  // concurrent only so that a metrics scrape may count them on its own thread
  private final Map<String, ActorRef<JobActor.Command>> jobs = new ConcurrentHashMap<>();
  private final Map<String, ActorRef<SisterJobActor.Command>> sisterJobs =
      new ConcurrentHashMap<>();

  /** The nodes of each job this node is mother superior of: who may report on it. */
  private final Map<String, Set<String>> jobNodes = new HashMap<>();

  /** The mother superior of each job this node is a sister of: who may ask for tasks. */
  private final Map<String, String> motherSuperiors = new HashMap<>();

  /** Jobs whose records this mom could not read at its start: it leaves them alone. */
  private Unaccounted unaccounted = Unaccounted.records(Map.of());

  /**
   * @param toPeer delivers a message to another node's mom
   * @param toServer delivers a report to the server
   */
  NodeJobs(
      ActorContext<MomActor.Command> context,
      JobServices services,
      Consumer<MomActor.ToPeer> toPeer,
      Consumer<ServerInbound> toServer) {
    this.context = context;
    this.services = services;
    this.config = services.config();
    this.toPeer = toPeer;
    this.toServer = toServer;
  }

  /**
   * Finds this node's jobs again in its records, as mother superior or sister; the jobs it cannot
   * find again because their records cannot be read are returned, to be left alone.
   */
  Unaccounted recover() {
    JobRecords.Scan scan;
    try {
      scan = services.records().scan();
    } catch (IOException e) {
      context
          .getLog()
          .error(
              "node {} cannot read its job records in {} ({}); it leaves every job's processes"
                  + " and cgroups as they are and starts no job",
              config.name(),
              services.records().root(),
              JobRecords.describe(e));
      unaccounted = Unaccounted.everything(JobRecords.describe(e));
      return unaccounted;
    }
    for (JobRecords.Record r : scan.records()) {
      if (r.sister()) {
        motherSuperiors.put(r.jobId(), r.motherSuperior().orElseThrow());
        sisterJobs.put(
            r.jobId(),
            context.spawn(
                SisterJobActor.recover(services, r),
                "sister-" + actorName(r.jobId()),
                DispatcherSelector.blocking()));
      } else {
        jobNodes.put(r.jobId(), nodesOf(r.run()));
        jobs.put(
            r.jobId(),
            context.spawn(
                JobActor.recover(services, r),
                actorName(r.jobId()),
                DispatcherSelector.blocking()));
      }
    }
    scan.unreadable()
        .forEach(
            (id, why) ->
                context
                    .getLog()
                    .error(
                        "job {}: cannot read its record in {} ({}); its processes and cgroup are"
                            + " left as they are until an administrator acts",
                        id,
                        services.records().root().resolve(id),
                        why));
    unaccounted = Unaccounted.records(scan.unreadable());
    return unaccounted;
  }

  /**
   * Idempotent: a RunJob for a job this mom already has changes nothing. A job it cannot account
   * for may be running already, so it is not started (again); the server keeps it as it is.
   */
  void run(RunJob run) {
    String id = run.getJob().getId();
    if (jobs.containsKey(id)) {
      return;
    }
    if (unaccounted.covers(id)) {
      leftAlone(id, "not starting");
      return;
    }
    jobNodes.put(id, nodesOf(run));
    jobs.put(
        id,
        context.spawn(JobActor.start(services, run), actorName(id), DispatcherSelector.blocking()));
  }

  /**
   * JOIN_JOB from a mother superior, its grant checked: this node becomes a sister of the job
   * (idempotent).
   */
  void join(JoinJob join) {
    String id = join.getJob().getId();
    ActorRef<SisterJobActor.Command> sister = sisterJobs.get(id);
    if (sister != null) {
      sister.tell(new SisterJobActor.Join(join));
      return;
    }
    if (unaccounted.covers(id)) {
      leftAlone(id, "refusing to join");
      SisterAnswers.refuse(
          context.getSelf(), join, config.name(), unaccounted.why(config.name(), id), false);
      return;
    }
    motherSuperiors.put(id, join.getMotherSuperior());
    sisterJobs.put(
        id,
        context.spawn(
            SisterJobActor.join(services, join),
            "sister-" + actorName(id),
            DispatcherSelector.blocking()));
  }

  void kill(KillJob kill) {
    ActorRef<JobActor.Command> job = jobs.get(kill.getJobId());
    if (job != null) {
      job.tell(new JobActor.Kill(kill.getReason(), kill.getKillDelay()));
      return;
    }
    ActorRef<SisterJobActor.Command> sister = sisterJobs.get(kill.getJobId());
    if (sister != null) {
      sister.tell(new SisterJobActor.Kill(kill));
      return;
    }
    if (unaccounted.covers(kill.getJobId())) {
      // Neither killed nor reported gone: what is left of it here cannot be told.
      leftAlone(kill.getJobId(), "not killing");
      return;
    }
    if (!kill.getFrom().isEmpty()) {
      // A mother superior asks about a job this sister does not have (any more): nothing is left.
      SisterAnswers.done(
          context.getSelf(),
          kill.getFrom(),
          kill.getJobId(),
          config.name(),
          dev.berth.proto.ResourcesUsed.getDefaultInstance());
      return;
    }
    // Not here (never started, or long gone): answer with an obit so the server can move on.
    toServer.accept(
        ServerInbound.newBuilder()
            .setObit(
                JobObitReport.newBuilder()
                    .setNode(config.name())
                    .setJobId(kill.getJobId())
                    .setExitStatus(ExitStatus.EXEC_FAILED.code())
                    .setEndTime(System.currentTimeMillis() / 1000)
                    .setReason("killed before it started on " + config.name()))
            .build());
  }

  /**
   * SuspendJob to whichever part of the job this node has. A job it does not have gets no answer:
   * the server learns of lost jobs from the node's hello and heartbeats, not from here.
   */
  void suspend(SuspendJob suspend) {
    String id = suspend.getJobId();
    ActorRef<JobActor.Command> job = jobs.get(id);
    ActorRef<SisterJobActor.Command> sister = sisterJobs.get(id);
    if (job != null) {
      job.tell(new JobActor.Suspend(suspend.getSuspend()));
    } else if (sister != null) {
      sister.tell(new SisterJobActor.Suspend(suspend.getSuspend()));
    } else if (unaccounted.covers(id)) {
      leftAlone(id, suspend.getSuspend() ? "not suspending" : "not resuming");
    }
  }

  /** A task message for a job this node is a sister of; a spawn for a job it lacks is refused. */
  void toSister(String jobId, MomInbound m) {
    ActorRef<SisterJobActor.Command> sister = sisterJobs.get(jobId);
    if (sister != null) {
      sister.tell(new SisterJobActor.Tasks(m));
    } else if (m.hasSpawn()) {
      toPeer.accept(
          new MomActor.ToPeer(
              m.getSpawn().getFrom(),
              MomInbound.newBuilder()
                  .setTaskStarted(
                      dev.berth.proto.TaskStarted.newBuilder()
                          .setJobId(jobId)
                          .setTaskId(m.getSpawn().getTaskId())
                          .setNode(config.name())
                          .setError("job " + jobId + " is not on node " + config.name()))
                  .build()));
    }
  }

  /**
   * Logs, once per job, that an order about a job this mom cannot account for is not carried out.
   */
  private void leftAlone(String jobId, String what) {
    if (unaccounted.firstMention(what + " " + jobId)) {
      context
          .getLog()
          .warn(
              "{} job {}: {}; an administrator must fix the records or purge the job (qdel -p)",
              what,
              jobId,
              unaccounted.why(config.name(), jobId));
    }
  }

  void forward(String jobId, JobActor.Command command) {
    ActorRef<JobActor.Command> job = jobs.get(jobId);
    if (job != null) {
      job.tell(command);
    }
  }

  /** A session for one of this node's jobs goes to that job, which decides. */
  void attach(MomActor.AttachTerminal a) {
    ActorRef<JobActor.Command> job = jobs.get(a.permit().getJobId());
    if (job == null) {
      a.reply()
          .complete(
              Attachment.refused(
                  "job "
                      + a.permit().getJobId()
                      + " does not run on "
                      + config.name()
                      + " as its mother superior"));
    } else {
      job.tell(new JobActor.Attach(a.permit().getUser(), a.attach(), a.screen(), a.reply()));
    }
  }

  /** A job this node was mother superior of is gone (its obit acknowledged, or never started). */
  void gone(String jobId) {
    jobs.remove(jobId);
    jobNodes.remove(jobId);
  }

  /** A job this node was a sister of is gone from it. */
  void sisterGone(String jobId) {
    sisterJobs.remove(jobId);
    motherSuperiors.remove(jobId);
  }

  /** How many jobs have a part here, for the metrics (on the scrape's thread). */
  int count() {
    return jobs.size() + sisterJobs.size();
  }

  /**
   * Every job this node has a part of, as mother superior or sister: the server tells it to kill
   * any the server no longer runs (a sister that was away when its job ended learns it here).
   */
  List<String> running() {
    List<String> all = new ArrayList<>(jobs.keySet());
    all.addAll(sisterJobs.keySet());
    return all;
  }

  /** Every job this node knows of, those it cannot account for included. */
  Set<String> known() {
    Set<String> known = new HashSet<>(jobs.keySet());
    known.addAll(sisterJobs.keySet());
    known.addAll(unaccounted.jobIds());
    return known;
  }

  Optional<String> motherSuperiorOf(String jobId) {
    return Optional.ofNullable(motherSuperiors.get(jobId));
  }

  Set<String> nodesOf(String jobId) {
    return jobNodes.getOrDefault(jobId, Set.of());
  }

  private static Set<String> nodesOf(RunJob run) {
    return run.getJob().getExecNodesList().stream()
        .map(NodeAllocation::getNode)
        .collect(Collectors.toUnmodifiableSet());
  }

  /** Actor names allow only a few characters; job ids have brackets and dots. */
  private static String actorName(String jobId) {
    return "job-" + java.net.URLEncoder.encode(jobId, java.nio.charset.StandardCharsets.UTF_8);
  }
}

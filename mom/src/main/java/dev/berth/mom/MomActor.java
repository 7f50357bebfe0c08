package dev.berth.mom;

import dev.berth.core.Services;
import dev.berth.mom.os.Launcher;
import dev.berth.mom.os.NodeFacts;
import dev.berth.mom.os.Users;
import dev.berth.mom.store.JobRecords;
import dev.berth.proto.JobObitReport;
import dev.berth.proto.KillJob;
import dev.berth.proto.MomInbound;
import dev.berth.proto.Node;
import dev.berth.proto.NodeHello;
import dev.berth.proto.NodeStatusReport;
import dev.berth.proto.RunJob;
import dev.berth.proto.ServerInbound;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.apache.pekko.actor.typed.receptionist.ServiceKey;

/**
 * The node agent: finds the server through the receptionist, announces its node and the jobs it
 * still runs, sends heartbeats, and keeps one {@link JobActor} per job. Job actors run on the
 * blocking-I/O dispatcher, since starting a job touches files and processes.
 */
public final class MomActor extends AbstractBehavior<MomActor.Command> {
  public sealed interface Command {}

  /** A message from the server, through the adapter registered in NodeHello. */
  public record FromServer(MomInbound message) implements Command {}

  /** A report a job actor wants delivered to the server. */
  record ToServer(ServerInbound message) implements Command {}

  /** A job actor finished: its obit was acknowledged or it never started. */
  record JobGone(String jobId) implements Command {}

  private record ServersChanged(Receptionist.Listing listing) implements Command {}

  private enum Heartbeat implements Command {
    TICK
  }

  private static final ServiceKey<ServerInbound> SERVER_KEY =
      ServiceKey.create(ServerInbound.class, Services.SERVER);

  private final MomConfig config;
  private final Launcher launcher;
  private final Users users;
  private final NodeFacts facts;
  private final JobRecords records;
  private final ActorRef<MomInbound> inbox;
  private final Map<String, ActorRef<JobActor.Command>> jobs = new HashMap<>();
  private ActorRef<ServerInbound> server;

  private MomActor(
      ActorContext<Command> context,
      TimerScheduler<Command> timers,
      MomConfig config,
      Launcher launcher,
      Users users,
      NodeFacts facts,
      JobRecords records) {
    super(context);
    this.config = config;
    this.launcher = launcher;
    this.users = users;
    this.facts = facts;
    this.records = records;
    this.inbox = context.messageAdapter(MomInbound.class, FromServer::new);
    recoverJobs();
    ActorRef<Receptionist.Listing> listings =
        context.messageAdapter(Receptionist.Listing.class, ServersChanged::new);
    context.getSystem().receptionist().tell(Receptionist.subscribe(SERVER_KEY, listings));
    timers.startTimerWithFixedDelay(Heartbeat.TICK, config.heartbeat());
  }

  public static Behavior<Command> create(
      MomConfig config, Launcher launcher, Users users, NodeFacts facts, JobRecords records) {
    return Behaviors.withTimers(
        timers ->
            Behaviors.setup(
                ctx -> new MomActor(ctx, timers, config, launcher, users, facts, records)));
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(FromServer.class, m -> fromServer(m.message()))
        .onMessage(ToServer.class, m -> toServer(m.message()))
        .onMessage(
            JobGone.class,
            g -> {
              jobs.remove(g.jobId());
              return this;
            })
        .onMessage(ServersChanged.class, this::serversChanged)
        .onMessageEquals(Heartbeat.TICK, this::heartbeat)
        .build();
  }

  private void recoverJobs() {
    try {
      List<String> damaged = new ArrayList<>();
      for (JobRecords.Record r : records.all(damaged)) {
        jobs.put(
            r.jobId(),
            getContext()
                .spawn(
                    JobActor.recover(config, launcher, records, getContext().getSelf(), r),
                    actorName(r.jobId()),
                    DispatcherSelector.blocking()));
      }
      damaged.forEach(
          d -> getContext().getLog().error("damaged job record set aside (*.damaged): {}", d));
    } catch (IOException e) {
      getContext()
          .getLog()
          .error("cannot read the job records in {}: {}", config.home(), e.getMessage());
    }
  }

  private Behavior<Command> serversChanged(ServersChanged changed) {
    Optional<ActorRef<ServerInbound>> found =
        changed.listing().getServiceInstances(SERVER_KEY).stream().findFirst();
    if (found.isPresent() && !found.get().equals(server)) {
      server = found.get();
      getContext().getLog().info("node {} reports to server {}", config.name(), server.path());
      hello();
      heartbeat(); // so pbsnodes shows the node's status from the start, not a heartbeat later
    } else if (found.isEmpty()) {
      server = null;
    }
    return this;
  }

  private void hello() {
    Node node =
        Node.newBuilder()
            .setName(config.name())
            .setNp(config.cpus().size())
            .addAllCpuIds(config.cpus())
            .setPhysmem(facts.physmem())
            .addAllProperties(config.properties())
            .setNtype("cluster")
            .build();
    server.tell(
        ServerInbound.newBuilder()
            .setHello(
                NodeHello.newBuilder()
                    .setNode(node)
                    .setMomRef(
                        ActorRefResolver.get(getContext().getSystem()).toSerializationFormat(inbox))
                    .addAllRunningJobs(jobs.keySet()))
            .build());
  }

  private Behavior<Command> heartbeat() {
    if (server != null) {
      server.tell(
          ServerInbound.newBuilder()
              .setStatus(
                  NodeStatusReport.newBuilder()
                      .setNode(config.name())
                      .putAllStatus(facts.status())
                      .putStatus("jobs", String.join(" ", jobs.keySet()))
                      .addAllRunningJobs(jobs.keySet()))
              .build());
    }
    return this;
  }

  private Behavior<Command> fromServer(MomInbound m) {
    switch (m.getBodyCase()) {
      case RUN -> run(m.getRun());
      case KILL -> kill(m.getKill());
      case SIGNAL ->
          forward(m.getSignal().getJobId(), new JobActor.Signal(m.getSignal().getSignal()));
      case OBIT_ACK -> forward(m.getObitAck().getJobId(), JobActor.Ack.OBIT);
      case STARTED_ACK -> forward(m.getStartedAck().getJobId(), JobActor.Ack.STARTED);
      default -> getContext().getLog().warn("unknown message from the server: {}", m.getBodyCase());
    }
    return this;
  }

  /** Idempotent: a RunJob for a job this mom already has changes nothing. */
  private void run(RunJob run) {
    String id = run.getJob().getId();
    if (jobs.containsKey(id)) {
      return;
    }
    jobs.put(
        id,
        getContext()
            .spawn(
                JobActor.start(config, launcher, users, records, getContext().getSelf(), run),
                actorName(id),
                DispatcherSelector.blocking()));
  }

  private void kill(KillJob kill) {
    ActorRef<JobActor.Command> job = jobs.get(kill.getJobId());
    if (job != null) {
      job.tell(new JobActor.Kill(kill.getReason(), kill.getKillDelay()));
      return;
    }
    // Not here (never started, or long gone): answer with an obit so the server can move on.
    toServer(
        ServerInbound.newBuilder()
            .setObit(
                JobObitReport.newBuilder()
                    .setNode(config.name())
                    .setJobId(kill.getJobId())
                    .setExitStatus(dev.berth.mom.job.StarterStatus.EXEC_FAILED)
                    .setEndTime(System.currentTimeMillis() / 1000)
                    .setReason("killed before it started on " + config.name()))
            .build());
  }

  private void forward(String jobId, JobActor.Command command) {
    ActorRef<JobActor.Command> job = jobs.get(jobId);
    if (job != null) {
      job.tell(command);
    }
  }

  private Behavior<Command> toServer(ServerInbound message) {
    if (server != null) {
      server.tell(message);
    }
    return this;
  }

  /** Actor names allow only a few characters; job ids have brackets and dots. */
  private static String actorName(String jobId) {
    return "job-" + java.net.URLEncoder.encode(jobId, java.nio.charset.StandardCharsets.UTF_8);
  }
}

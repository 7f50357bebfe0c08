package dev.berth.mom;

import dev.berth.core.Services;
import dev.berth.mom.lifecycle.JobActor;
import dev.berth.mom.os.Launcher;
import dev.berth.mom.os.NativeLibrary;
import dev.berth.mom.os.NodeFacts;
import dev.berth.mom.os.Users;
import dev.berth.mom.store.JobRecords;
import dev.berth.mom.terminal.Attachment;
import dev.berth.mom.terminal.Screen;
import dev.berth.mom.terminal.TerminalPort;
import dev.berth.mom.terminal.TerminalSettings;
import dev.berth.mom.tm.JobTasks;
import dev.berth.mom.tm.TmSocket;
import dev.berth.mom.trust.Courier;
import dev.berth.mom.trust.Grants;
import dev.berth.mom.trust.SenderRules;
import dev.berth.proto.JoinJob;
import dev.berth.proto.KillJob;
import dev.berth.proto.MomInbound;
import dev.berth.proto.MomOrder;
import dev.berth.proto.Sealed;
import dev.berth.proto.ServerInbound;
import dev.berth.proto.TerminalAttach;
import dev.berth.proto.TerminalPermit;
import dev.berth.security.Identity;
import dev.berth.security.NotTrustedException;
import dev.berth.security.seal.Refusals;
import dev.berth.security.seal.Seal;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.apache.pekko.actor.typed.receptionist.ServiceKey;

/**
 * The node agent: finds the server through the receptionist, announces its node and the jobs it
 * still runs, sends heartbeats, and keeps one {@link JobActor} per job ({@link NodeJobs}). Job
 * actors run on the blocking-I/O dispatcher, since starting a job touches files and processes.
 * Every message between daemons is a sealed letter ({@link Courier}); what a sender may ask of this
 * node is decided from its proven identity ({@link SenderRules}, {@link Grants}).
 *
 * <p>Over 400 lines: it is the node's one actor, and what it holds is the node's, not a job's: the
 * server's and the peers' letters and who may send them, momctl's orders, the health check, the
 * terminal port and the cleanup. The jobs themselves are {@link NodeJobs}', the node's reports to
 * the server (hello, status, troubles) {@link NodeReports}'.
 */
public final class MomActor extends AbstractBehavior<MomActor.Command> {
  public sealed interface Command {}

  /** A sealed letter from the server or another node's mom, through this mom's inbox. */
  public record Received(Sealed letter) implements Command {}

  /** A report a job actor wants delivered to the server. */
  public record ToServer(ServerInbound message) implements Command {}

  /** A job actor finished: its obit was acknowledged or it never started. */
  public record JobGone(String jobId) implements Command {}

  /** A message a job actor wants delivered to the mom of another node of the job. */
  public record ToPeer(String node, MomInbound message) implements Command {}

  /** A sister job actor finished: the job is gone from this node. */
  public record SisterGone(String jobId) implements Command {}

  /** Something of a job could not be cleaned up here: the node must take no more jobs. */
  public record Trouble(String message) implements Command {}

  /** The node health check's verdict: its ERROR message, or "" for a well node. */
  public record Health(String error) implements Command {}

  /** The verdict of a check this actor ran. */
  private record HealthChecked(Health health) implements Command {}

  /** What the node's cleanup could not remove changed ({@link Cleanup#summary()}). */
  private record CleanupChanged(String summary) implements Command {}

  /** Run the node health check now (a job ended, and the site checks at job end). */
  public enum CheckHealth implements Command {
    NOW
  }

  private record Listed(Receptionist.Listing listing) implements Command {}

  private enum Heartbeat implements Command {
    TICK
  }

  private static final ServiceKey<Sealed> SERVER_KEY =
      ServiceKey.create(Sealed.class, Services.SERVER);

  private final MomConfig config;
  private final Launcher launcher;
  private final Users users;
  private final JobRecords records;
  private final Isolation isolation;
  private final Courier courier;
  private final Grants grants;
  private final Refusals refusals;
  private final Runnable stop;

  /** This node's jobs, as mother superior and as sister. */
  private final NodeJobs nodeJobs;

  private final ActorRef<Receptionist.Listing> listings;

  /** The site's health check, or null; run off the actor, one at a time. */
  private final dev.berth.mom.os.HealthCheck healthCheck;

  private final java.util.concurrent.ExecutorService healthRunner;
  private boolean checkingHealth;
  private long heartbeats;
  private final SenderRules.Knowledge knowledge;

  /** What the node tells the server of itself. */
  private final NodeReports reports;

  /** Jobs whose records this mom could not read at its start: it leaves them alone. */
  private final Unaccounted unaccounted;

  /** The node's task-manager socket, or null when this mom cannot serve one. */
  private final TmSocket tm;

  /** What the node's job actors use, built once the task-manager socket is open. */
  private final JobServices jobServices;

  /** The port interactive sessions attach at, or null when this mom takes none. */
  private final TerminalPort terminals;

  /** Empties the trash that jobs' TMPDIRs, spools and evicted images go to, off the actors. */
  private final Cleanup cleanup;

  /** A client showed the terminal port a permit for job {@code permit.job_id}. */
  record AttachTerminal(
      TerminalPermit permit,
      TerminalAttach attach,
      Screen screen,
      CompletableFuture<Attachment> reply)
      implements Command {}

  private MomActor(
      ActorContext<Command> context,
      TimerScheduler<Command> timers,
      MomConfig config,
      Launcher launcher,
      Users users,
      NodeFacts facts,
      JobRecords records,
      Isolation isolation,
      Seal seal,
      Runnable stop) {
    super(context);
    this.config = config;
    this.stop = stop;
    this.launcher = launcher;
    this.users = users;
    this.records = records;
    this.isolation = isolation;
    // The inbox is a child of its own: an actor's message adapters share one reference, and
    // the receptionist cannot watch one reference both as a service and as a subscriber.
    ActorRef<Command> self = context.getSelf();
    ActorRef<Sealed> inbox =
        context.spawn(
            Behaviors.receiveMessage(
                (Sealed m) -> {
                  self.tell(new Received(m));
                  return Behaviors.same();
                }),
            "inbox");
    this.refusals = new Refusals(context.getLog(), java.time.Clock.systemUTC());
    this.courier =
        new Courier(
            seal, inbox, ActorRefResolver.get(context.getSystem()), refusals, this::serverFound);
    this.grants = new Grants(seal, config.name(), java.time.Clock.systemUTC());
    this.knowledge =
        new SenderRules.Knowledge() {
          @Override
          public Optional<Identity> server() {
            return courier.server();
          }

          @Override
          public Optional<String> motherSuperiorOf(String jobId) {
            return nodeJobs.motherSuperiorOf(jobId);
          }

          @Override
          public Set<String> nodesOf(String jobId) {
            return nodeJobs.nodesOf(jobId);
          }
        };
    this.listings = context.messageAdapter(Receptionist.Listing.class, Listed::new);
    context.getSystem().receptionist().tell(Receptionist.register(momKey(config.name()), inbox));
    this.tm = openTaskManager();
    this.jobServices =
        new JobServices(
            config,
            launcher,
            users,
            records,
            isolation,
            context.getSelf(),
            tm,
            java.time.Clock.systemUTC());
    this.terminals = openTerminalPort(seal);
    this.nodeJobs = new NodeJobs(context, jobServices, this::toPeer, this::toServer);
    this.unaccounted = nodeJobs.recover();
    context.getLog().info("node {}: {}", config.name(), isolation.describe());
    config.metrics().counting(nodeJobs::count);
    removeOrphanCgroups();
    this.cleanup =
        new Cleanup(
            Cleanup.bins(config),
            config.containers(),
            summary -> self.tell(new CleanupChanged(summary)),
            java.time.Clock.systemUTC());
    cleanup.start();
    this.reports =
        new NodeReports(
            config,
            facts,
            isolation,
            courier,
            nodeJobs::running,
            cleanup::summary,
            this::terminalAddress,
            unaccounted,
            stop != null,
            context.getLog());
    context.getSystem().receptionist().tell(Receptionist.subscribe(SERVER_KEY, listings));
    timers.startTimerWithFixedDelay(Heartbeat.TICK, config.heartbeat());
    this.healthCheck = config.site().check();
    this.healthRunner =
        healthCheck == null
            ? null
            : java.util.concurrent.Executors.newSingleThreadExecutor(
                r -> {
                  Thread t = new Thread(r, "berth-health-check");
                  t.setDaemon(true);
                  return t;
                });
    checkHealth(); // the first report already says how the node is
  }

  /** Runs the health check off the actor, unless it is running already. */
  private void checkHealth() {
    if (healthCheck == null || checkingHealth) {
      return;
    }
    checkingHealth = true;
    getContext()
        .pipeToSelf(
            java.util.concurrent.CompletableFuture.supplyAsync(healthCheck::run, healthRunner),
            (error, failure) ->
                new HealthChecked(
                    new Health(
                        error != null ? error : "ERROR: the health check failed: " + failure)));
  }

  /** A verdict of the health check: the server hears of a change at once. */
  private Behavior<Command> health(Health h, boolean fromCheck) {
    if (fromCheck) {
      checkingHealth = false;
    }
    reports.health(h.error());
    return this;
  }

  /** A mom that does not stop at the server's word: it runs inside the server's process. */
  public static Behavior<Command> create(
      MomConfig config,
      Launcher launcher,
      Users users,
      NodeFacts facts,
      JobRecords records,
      Isolation isolation,
      Seal seal) {
    return create(config, launcher, users, facts, records, isolation, seal, null);
  }

  /**
   * @param stop stops this mom's process when the server says so (momctl -s); null when it cannot
   *     (the server's own process runs it)
   */
  public static Behavior<Command> create(
      MomConfig config,
      Launcher launcher,
      Users users,
      NodeFacts facts,
      JobRecords records,
      Isolation isolation,
      Seal seal,
      Runnable stop) {
    return Behaviors.withTimers(
        timers ->
            Behaviors.setup(
                ctx ->
                    new MomActor(
                        ctx, timers, config, launcher, users, facts, records, isolation, seal,
                        stop)));
  }

  /**
   * The task manager of every job this node is mother superior of, on one socket. Without the JNI
   * library that checks peers (or a socket at all) jobs run without one: pbsdsh then says so.
   */
  private TmSocket openTaskManager() {
    if (!NativeLibrary.loaded()) {
      return null;
    }
    try {
      return TmSocket.open(JobTasks.socket(config), getContext().getLog());
    } catch (IOException e) {
      getContext()
          .getLog()
          .warn("node {}: no task manager socket: {}", config.name(), e.getMessage());
      return null;
    }
  }

  /** The terminal port, when this mom takes interactive sessions and its port opens. */
  private TerminalPort openTerminalPort(Seal seal) {
    TerminalSettings settings = config.terminal();
    if (settings == null) {
      return null;
    }
    ActorRef<Command> self = getContext().getSelf();
    try {
      return new TerminalPort(
          settings.bind(),
          settings.tls(),
          seal,
          (permit, attach, screen) -> {
            CompletableFuture<Attachment> reply = new CompletableFuture<>();
            self.tell(new AttachTerminal(permit, attach, screen, reply));
            return reply;
          });
    } catch (IOException e) {
      getContext()
          .getLog()
          .warn(
              "node {} takes no interactive jobs: cannot open its terminal port {}: {}",
              config.name(),
              settings.bind(),
              e.getMessage());
      return null;
    }
  }

  /** Where qsub -I reaches this mom's terminal port, host:port; empty when it has none. */
  private String terminalAddress() {
    if (terminals == null) {
      return "";
    }
    InetSocketAddress bound = terminals.address();
    String host = config.terminal().bind().getHostString();
    return (host.contains(":") ? "[" + host + "]" : host) + ":" + bound.getPort();
  }

  /**
   * Cgroups of jobs this mom has no record of were left by a crash: nothing may stay in them. A job
   * whose record exists but cannot be read is not one of them, and when no record can be read at
   * all, no cgroup can be told for a leftover.
   */
  private void removeOrphanCgroups() {
    if (!unaccounted.allowsOrphanRemoval()) {
      getContext()
          .getLog()
          .warn(
              "node {} leaves every job cgroup as it is: it cannot read its job records",
              config.name());
      return;
    }
    try {
      for (String orphan : isolation.removeOrphans(nodeJobs.known())) {
        getContext()
            .getLog()
            .warn("removed the cgroup of unknown job {} and its processes", orphan);
      }
    } catch (IOException e) {
      getContext().getLog().error("cannot clean up old job cgroups: {}", e.getMessage());
    }
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Received.class, m -> received(m.letter()))
        .onMessage(ToServer.class, m -> toServer(m.message()))
        .onMessage(
            JobGone.class,
            g -> {
              nodeJobs.gone(g.jobId());
              cleanup.poke();
              return this;
            })
        .onMessage(
            SisterGone.class,
            g -> {
              nodeJobs.sisterGone(g.jobId());
              grants.ended(g.jobId());
              cleanup.poke();
              return this;
            })
        .onMessage(ToPeer.class, this::toPeer)
        .onMessage(
            AttachTerminal.class,
            a -> {
              nodeJobs.attach(a);
              return this;
            })
        .onMessage(
            Trouble.class,
            t -> {
              reports.trouble(t.message());
              return this;
            })
        .onMessage(
            Listed.class,
            l ->
                l.listing().isForKey(SERVER_KEY)
                    ? serversChanged(l.listing())
                    : peersChanged(l.listing()))
        .onMessageEquals(
            Heartbeat.TICK,
            () -> {
              heartbeats++;
              int every = config.site().healthEvery();
              if (every > 0 && heartbeats % every == 0) {
                checkHealth();
              }
              reports.status();
              return this;
            })
        .onMessage(Health.class, h -> health(h, false))
        .onMessage(HealthChecked.class, h -> health(h.health(), true))
        .onMessage(
            CleanupChanged.class,
            c -> {
              reports.status(); // pbsnodes shows it at once
              return this;
            })
        .onMessageEquals(
            CheckHealth.NOW,
            () -> {
              checkHealth();
              return this;
            })
        .onSignal(PostStop.class, s -> stopped())
        .build();
  }

  /** The mom stops (its jobs keep running): empty cgroup levels and directories of its own go. */
  private Behavior<Command> stopped() {
    if (tm != null) {
      tm.close();
    }
    if (terminals != null) {
      terminals.close();
    }
    if (healthRunner != null) {
      healthRunner.shutdownNow();
    }
    cleanup.close();
    for (Path dir :
        List.of(
            config.tmpBase().resolve(".tm"),
            dev.berth.mom.os.Trash.in(config.tmpBase()).dir(),
            config.tmpBase())) {
      try {
        Files.deleteIfExists(dir);
      } catch (IOException e) {
        // still in use by a job that runs on
      }
    }
    try {
      isolation.removeRoot();
    } catch (IOException e) {
      getContext().getLog().warn("cannot remove this mom's cgroup root: {}", e.getMessage());
    }
    return this;
  }

  private Behavior<Command> serversChanged(Receptionist.Listing listing) {
    courier.serversListed(listing.getServiceInstances(SERVER_KEY));
    return this;
  }

  /** A server proved itself: this node reports to it from now on. */
  private void serverFound() {
    getContext()
        .getLog()
        .info("node {} reports to {}", config.name(), courier.server().orElseThrow());
    reports.serverFound();
  }

  /**
   * Every job this node has a part of, as mother superior or sister: the server tells it to kill
   * any the server no longer runs (a sister that was away when its job ended learns it here).
   */
  private List<String> runningJobs() {
    return nodeJobs.running();
  }

  /** The server's order, for an operator's momctl: report now, clear stale jobs, or stop. */
  private void order(MomOrder order) {
    switch (order.getAction()) {
      case REPORT -> reports.status();
      case SHUTDOWN -> {
        if (stop == null) {
          getContext()
              .getLog()
              .warn("{} asked this mom to stop; it stops with its server's process", order.getBy());
        } else {
          getContext()
              .getLog()
              .info("stopping at the word of {} (momctl -s); the jobs run on", order.getBy());
          stop.run();
        }
      }
      case CLEAR -> {
        Set<String> keep = Set.copyOf(order.getKeepList());
        for (String job : runningJobs()) {
          if (!keep.contains(job)) {
            nodeJobs.kill(
                KillJob.newBuilder()
                    .setJobId(job)
                    .setReason("cleared by " + order.getBy() + " (momctl -c all)")
                    .build());
          }
        }
      }
      default -> getContext().getLog().warn("an order this mom does not know: {}", order);
    }
  }

  private Behavior<Command> received(Sealed letter) {
    courier.open(letter).ifPresent(r -> fromPeer(r.from(), r.message()));
    return this;
  }

  /** A message from the server or another node's mom, acted on only if its sender may send it. */
  private void fromPeer(Identity from, MomInbound m) {
    Optional<String> refused = SenderRules.refusal(from, m, knowledge);
    if (refused.isPresent()) {
      refusals.refused(refused.get());
      return;
    }
    switch (m.getBodyCase()) {
      case RUN -> nodeJobs.run(m.getRun());
      case KILL -> nodeJobs.kill(m.getKill());
      case SIGNAL ->
          nodeJobs.forward(
              m.getSignal().getJobId(), new JobActor.Signal(m.getSignal().getSignal()));
      case OBIT_ACK -> nodeJobs.forward(m.getObitAck().getJobId(), JobActor.Ack.OBIT);
      case STARTED_ACK -> nodeJobs.forward(m.getStartedAck().getJobId(), JobActor.Ack.STARTED);
      case JOIN -> join(m.getJoin());
      case JOIN_REPLY ->
          nodeJobs.forward(m.getJoinReply().getJobId(), new JobActor.Joined(m.getJoinReply()));
      case SISTER_DONE ->
          nodeJobs.forward(
              m.getSisterDone().getJobId(), new JobActor.SisterReport(m.getSisterDone()));
      case SISTER_USAGE ->
          nodeJobs.forward(
              m.getSisterUsage().getJobId(), new JobActor.SisterUsed(m.getSisterUsage()));
      case TASK_STARTED ->
          nodeJobs.forward(m.getTaskStarted().getJobId(), new JobActor.FromTaskHost(m));
      case TASK_OUTPUT ->
          nodeJobs.forward(m.getTaskOutput().getJobId(), new JobActor.FromTaskHost(m));
      case TASK_OBIT -> nodeJobs.forward(m.getTaskObit().getJobId(), new JobActor.FromTaskHost(m));
      case SPAWN -> nodeJobs.toSister(m.getSpawn().getJobId(), m);
      case SIGNAL_TASK -> nodeJobs.toSister(m.getSignalTask().getJobId(), m);
      case TASK_INPUT -> nodeJobs.toSister(m.getTaskInput().getJobId(), m);
      case TASK_OUTPUT_ACK -> nodeJobs.toSister(m.getTaskOutputAck().getJobId(), m);
      case TASK_OBIT_ACK -> nodeJobs.toSister(m.getTaskObitAck().getJobId(), m);
      case SUSPEND -> nodeJobs.suspend(m.getSuspend());
      case ORDER -> order(m.getOrder());
      default -> getContext().getLog().warn("message {} is not handled", m.getBodyCase());
    }
  }

  /** JOIN_JOB from a mother superior: only with the server's grant for the job on this node. */
  private void join(JoinJob asked) {
    try {
      nodeJobs.join(grants.check(asked));
    } catch (NotTrustedException e) {
      refusals.refused(e.getMessage());
    }
  }

  /** Delivers to another node's mom once it has proven itself; until then retries do. */
  private Behavior<Command> toPeer(ToPeer m) {
    if (courier.toPeer(m.node(), m.message())) {
      getContext()
          .getSystem()
          .receptionist()
          .tell(Receptionist.subscribe(momKey(m.node()), listings));
    }
    return this;
  }

  private Behavior<Command> peersChanged(Receptionist.Listing listing) {
    @SuppressWarnings("unchecked")
    ServiceKey<Sealed> key = (ServiceKey<Sealed>) listing.getKey();
    courier.peersListed(
        key.id().substring(Services.MOM_PREFIX.length()), listing.getServiceInstances(key));
    return this;
  }

  static ServiceKey<Sealed> momKey(String node) {
    return ServiceKey.create(Sealed.class, Services.MOM_PREFIX + node);
  }

  private Behavior<Command> toServer(ServerInbound message) {
    courier.toServer(message);
    return this;
  }
}

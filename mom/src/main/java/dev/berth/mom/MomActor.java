package dev.berth.mom;

import dev.berth.core.ExitStatus;
import dev.berth.core.MomStatus;
import dev.berth.core.Services;
import dev.berth.mom.os.Launcher;
import dev.berth.mom.os.NativeLibrary;
import dev.berth.mom.os.NodeFacts;
import dev.berth.mom.os.Users;
import dev.berth.mom.store.JobRecords;
import dev.berth.mom.terminal.Attachment;
import dev.berth.mom.terminal.Screen;
import dev.berth.mom.terminal.TerminalPort;
import dev.berth.mom.terminal.TerminalSettings;
import dev.berth.mom.trust.Courier;
import dev.berth.mom.trust.Grants;
import dev.berth.mom.trust.SenderRules;
import dev.berth.proto.JobObitReport;
import dev.berth.proto.JoinJob;
import dev.berth.proto.KillJob;
import dev.berth.proto.MomInbound;
import dev.berth.proto.MomOrder;
import dev.berth.proto.Node;
import dev.berth.proto.NodeAllocation;
import dev.berth.proto.NodeHello;
import dev.berth.proto.NodeStatusReport;
import dev.berth.proto.RunJob;
import dev.berth.proto.Sealed;
import dev.berth.proto.ServerInbound;
import dev.berth.proto.SuspendJob;
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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
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
 * still runs, sends heartbeats, and keeps one {@link JobActor} per job. Job actors run on the
 * blocking-I/O dispatcher, since starting a job touches files and processes. Every message between
 * daemons is a sealed letter ({@link Courier}); what a sender may ask of this node is decided from
 * its proven identity ({@link SenderRules}, {@link Grants}).
 */
public final class MomActor extends AbstractBehavior<MomActor.Command> {
  public sealed interface Command {}

  /** A sealed letter from the server or another node's mom, through this mom's inbox. */
  public record Received(Sealed letter) implements Command {}

  /** A report a job actor wants delivered to the server. */
  record ToServer(ServerInbound message) implements Command {}

  /** A job actor finished: its obit was acknowledged or it never started. */
  record JobGone(String jobId) implements Command {}

  /** A message a job actor wants delivered to the mom of another node of the job. */
  record ToPeer(String node, MomInbound message) implements Command {}

  /** A sister job actor finished: the job is gone from this node. */
  record SisterGone(String jobId) implements Command {}

  /** Something of a job could not be cleaned up here: the node must take no more jobs. */
  record Trouble(String message) implements Command {}

  /** The node health check's verdict: its ERROR message, or "" for a well node. */
  record Health(String error) implements Command {}

  /** The verdict of a check this actor ran. */
  private record HealthChecked(Health health) implements Command {}

  /** What the node's cleanup could not remove changed ({@link Cleanup#summary()}). */
  private record CleanupChanged(String summary) implements Command {}

  /** Run the node health check now (a job ended, and the site checks at job end). */
  enum CheckHealth implements Command {
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
  private final NodeFacts facts;
  private final JobRecords records;
  private final Isolation isolation;
  private final Courier courier;
  private final Grants grants;
  private final Refusals refusals;
  // concurrent only so that a metrics scrape may count them on its own thread
  private final Runnable stop;
  private final long started;
  private final Map<String, ActorRef<JobActor.Command>> jobs = new ConcurrentHashMap<>();
  private final Map<String, ActorRef<SisterJobActor.Command>> sisterJobs =
      new ConcurrentHashMap<>();

  /** The nodes of each job this node is mother superior of: who may report on it. */
  private final Map<String, Set<String>> jobNodes = new HashMap<>();

  /** The mother superior of each job this node is a sister of: who may ask for tasks. */
  private final Map<String, String> motherSuperiors = new HashMap<>();

  private final ActorRef<Receptionist.Listing> listings;

  /** The site's health check, or null; run off the actor, one at a time. */
  private final dev.berth.mom.os.HealthCheck healthCheck;

  private final java.util.concurrent.ExecutorService healthRunner;
  private boolean checkingHealth;
  private String healthError = "";
  private long heartbeats;
  private final SenderRules.Knowledge knowledge;

  /** Troubles not yet told to a server (there was none to tell). */
  private final List<String> troubles = new ArrayList<>();

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
    this.started = java.time.Instant.now().getEpochSecond();
    this.launcher = launcher;
    this.users = users;
    this.facts = facts;
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
            return Optional.ofNullable(motherSuperiors.get(jobId));
          }

          @Override
          public Set<String> nodesOf(String jobId) {
            return jobNodes.getOrDefault(jobId, Set.of());
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
    this.unaccounted = recoverJobs();
    unaccounted.trouble().ifPresent(troubles::add);
    context.getLog().info("node {}: {}", config.name(), isolation.describe());
    config.metrics().counting(() -> jobs.size() + sisterJobs.size());
    removeOrphanCgroups();
    this.cleanup =
        new Cleanup(
            Cleanup.bins(config),
            config.containers(),
            summary -> self.tell(new CleanupChanged(summary)),
            java.time.Clock.systemUTC());
    cleanup.start();
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
    if (!h.error().equals(healthError)) {
      if (h.error().isEmpty()) {
        getContext().getLog().info("node {}: the health check passes again", config.name());
      } else {
        getContext().getLog().warn("node {}: the health check says {}", config.name(), h.error());
      }
      healthError = h.error();
      heartbeat();
    }
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

  /** A session for one of this node's jobs goes to that job, which decides. */
  private Behavior<Command> attachTerminal(AttachTerminal a) {
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
    return this;
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
    java.util.Set<String> known = new java.util.HashSet<>(jobs.keySet());
    known.addAll(sisterJobs.keySet());
    known.addAll(unaccounted.jobIds());
    try {
      for (String orphan : isolation.removeOrphans(known)) {
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
              jobs.remove(g.jobId());
              jobNodes.remove(g.jobId());
              cleanup.poke();
              return this;
            })
        .onMessage(
            SisterGone.class,
            g -> {
              sisterJobs.remove(g.jobId());
              motherSuperiors.remove(g.jobId());
              grants.ended(g.jobId());
              cleanup.poke();
              return this;
            })
        .onMessage(ToPeer.class, this::toPeer)
        .onMessage(AttachTerminal.class, this::attachTerminal)
        .onMessage(
            Trouble.class,
            t -> {
              getContext().getLog().error("node {} goes offline: {}", config.name(), t.message());
              troubles.add(t.message());
              tellTroubles();
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
              return heartbeat();
            })
        .onMessage(Health.class, h -> health(h, false))
        .onMessage(HealthChecked.class, h -> health(h.health(), true))
        .onMessage(CleanupChanged.class, c -> heartbeat()) // pbsnodes shows it at once
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

  /**
   * Finds this node's jobs again in its records, as mother superior or sister; the jobs it cannot
   * find again because their records cannot be read are returned, to be left alone.
   */
  private Unaccounted recoverJobs() {
    JobRecords.Scan scan;
    try {
      scan = records.scan();
    } catch (IOException e) {
      getContext()
          .getLog()
          .error(
              "node {} cannot read its job records in {} ({}); it leaves every job's processes"
                  + " and cgroups as they are and starts no job",
              config.name(),
              records.root(),
              JobRecords.describe(e));
      return Unaccounted.everything(JobRecords.describe(e));
    }
    for (JobRecords.Record r : scan.records()) {
      if (r.sister()) {
        motherSuperiors.put(r.jobId(), r.motherSuperior().orElseThrow());
        sisterJobs.put(
            r.jobId(),
            getContext()
                .spawn(
                    SisterJobActor.recover(jobServices, r),
                    "sister-" + actorName(r.jobId()),
                    DispatcherSelector.blocking()));
      } else {
        jobNodes.put(r.jobId(), nodesOf(r.run()));
        jobs.put(
            r.jobId(),
            getContext()
                .spawn(
                    JobActor.recover(jobServices, r),
                    actorName(r.jobId()),
                    DispatcherSelector.blocking()));
      }
    }
    scan.unreadable()
        .forEach(
            (id, why) ->
                getContext()
                    .getLog()
                    .error(
                        "job {}: cannot read its record in {} ({}); its processes and cgroup are"
                            + " left as they are until an administrator acts",
                        id,
                        records.root().resolve(id),
                        why));
    return Unaccounted.records(scan.unreadable());
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
    hello();
    heartbeat(); // so pbsnodes shows the node's status from the start, not a heartbeat later
    tellTroubles();
  }

  private void tellTroubles() {
    if (courier.server().isEmpty()) {
      return;
    }
    for (String message : troubles) {
      courier.toServer(
          ServerInbound.newBuilder()
              .setTrouble(
                  dev.berth.proto.NodeTrouble.newBuilder()
                      .setNode(config.name())
                      .setMessage(message))
              .build());
    }
    troubles.clear();
  }

  private void hello() {
    Node node =
        Node.newBuilder()
            .setName(config.name())
            .setNp(config.cpus().size())
            .addAllCpuIds(config.cpus())
            .setPhysmem(facts.physmem())
            .addAllProperties(config.properties())
            .setGpus(config.gpus().size())
            .addAllGpuDevices(config.gpus())
            .setNtype("cluster")
            .setTerminalAddress(terminalAddress())
            .setStopsRemotely(stop != null)
            .build();
    NodeHello.Builder hello = NodeHello.newBuilder().setNode(node).addAllRunningJobs(runningJobs());
    unaccounted.describe(hello);
    courier.toServer(ServerInbound.newBuilder().setHello(hello).build());
  }

  /**
   * Every job this node has a part of, as mother superior or sister: the server tells it to kill
   * any the server no longer runs (a sister that was away when its job ended learns it here).
   */
  private List<String> runningJobs() {
    List<String> all = new ArrayList<>(jobs.keySet());
    all.addAll(sisterJobs.keySet());
    return all;
  }

  private Behavior<Command> heartbeat() {
    if (courier.server().isPresent()) {
      NodeStatusReport.Builder status =
          NodeStatusReport.newBuilder()
              .setNode(config.name())
              .putAllStatus(facts.status())
              .putAllStatus(diagnostics())
              .putStatus(MomStatus.JOBS, String.join(" ", runningJobs()))
              .addAllRunningJobs(runningJobs())
              .setHealthError(healthError);
      // each report refreshes the running jobs' resources_used, which qstat shows
      for (String job : runningJobs()) {
        isolation.usedSoFar(job).ifPresent(u -> status.putJobUsage(job, u));
      }
      courier.toServer(ServerInbound.newBuilder().setStatus(status).build());
    }
    return this;
  }

  /** What momctl -d shows of this mom, beyond the node's figures. */
  private Map<String, String> diagnostics() {
    Map<String, String> items = new java.util.LinkedHashMap<>();
    items.put(MomStatus.VERSION, config.version());
    items.put(MomStatus.HOME, config.home().toString());
    items.put(MomStatus.CGROUPS, isolation.describe());
    items.put(MomStatus.STARTED, Long.toString(started));
    items.put(MomStatus.UPDATE_INTERVAL, Long.toString(config.heartbeat().toSeconds()));
    if (!cleanup.summary().isEmpty()) {
      items.put(MomStatus.CLEANUP, cleanup.summary());
    }
    // status items are joined with commas (pbsnodes' status = a=1,b=2): none may hold one
    items.replaceAll((name, value) -> value.replace(',', ';'));
    return items;
  }

  /** The server's order, for an operator's momctl: report now, clear stale jobs, or stop. */
  private void order(MomOrder order) {
    switch (order.getAction()) {
      case REPORT -> heartbeat();
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
            kill(
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
      case RUN -> run(m.getRun());
      case KILL -> kill(m.getKill());
      case SIGNAL ->
          forward(m.getSignal().getJobId(), new JobActor.Signal(m.getSignal().getSignal()));
      case OBIT_ACK -> forward(m.getObitAck().getJobId(), JobActor.Ack.OBIT);
      case STARTED_ACK -> forward(m.getStartedAck().getJobId(), JobActor.Ack.STARTED);
      case JOIN -> join(m.getJoin());
      case JOIN_REPLY ->
          forward(m.getJoinReply().getJobId(), new JobActor.Joined(m.getJoinReply()));
      case SISTER_DONE ->
          forward(m.getSisterDone().getJobId(), new JobActor.SisterReport(m.getSisterDone()));
      case SISTER_USAGE ->
          forward(m.getSisterUsage().getJobId(), new JobActor.SisterUsed(m.getSisterUsage()));
      case TASK_STARTED -> forward(m.getTaskStarted().getJobId(), new JobActor.FromTaskHost(m));
      case TASK_OUTPUT -> forward(m.getTaskOutput().getJobId(), new JobActor.FromTaskHost(m));
      case TASK_OBIT -> forward(m.getTaskObit().getJobId(), new JobActor.FromTaskHost(m));
      case SPAWN -> toSister(m.getSpawn().getJobId(), m);
      case SIGNAL_TASK -> toSister(m.getSignalTask().getJobId(), m);
      case TASK_INPUT -> toSister(m.getTaskInput().getJobId(), m);
      case TASK_OUTPUT_ACK -> toSister(m.getTaskOutputAck().getJobId(), m);
      case TASK_OBIT_ACK -> toSister(m.getTaskObitAck().getJobId(), m);
      case SUSPEND -> suspend(m.getSuspend());
      case ORDER -> order(m.getOrder());
      default -> getContext().getLog().warn("message {} is not handled", m.getBodyCase());
    }
  }

  /**
   * Idempotent: a RunJob for a job this mom already has changes nothing. A job it cannot account
   * for may be running already, so it is not started (again); the server keeps it as it is.
   */
  private void run(RunJob run) {
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
        getContext()
            .spawn(JobActor.start(jobServices, run), actorName(id), DispatcherSelector.blocking()));
  }

  /** JOIN_JOB from a mother superior: this node becomes a sister of the job (idempotent). */
  private void join(JoinJob asked) {
    JoinJob join;
    try {
      join = grants.check(asked);
    } catch (NotTrustedException e) {
      refusals.refused(e.getMessage());
      return;
    }
    String id = join.getJob().getId();
    ActorRef<SisterJobActor.Command> sister = sisterJobs.get(id);
    if (sister != null) {
      sister.tell(new SisterJobActor.Join(join));
      return;
    }
    if (unaccounted.covers(id)) {
      leftAlone(id, "refusing to join");
      SisterAnswers.refuse(
          getContext().getSelf(), join, config.name(), unaccounted.why(config.name(), id), false);
      return;
    }
    motherSuperiors.put(id, join.getMotherSuperior());
    sisterJobs.put(
        id,
        getContext()
            .spawn(
                SisterJobActor.join(jobServices, join),
                "sister-" + actorName(id),
                DispatcherSelector.blocking()));
  }

  private void kill(KillJob kill) {
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
          getContext().getSelf(),
          kill.getFrom(),
          kill.getJobId(),
          config.name(),
          dev.berth.proto.ResourcesUsed.getDefaultInstance());
      return;
    }
    // Not here (never started, or long gone): answer with an obit so the server can move on.
    toServer(
        ServerInbound.newBuilder()
            .setObit(
                JobObitReport.newBuilder()
                    .setNode(config.name())
                    .setJobId(kill.getJobId())
                    .setExitStatus(ExitStatus.EXEC_FAILED)
                    .setEndTime(System.currentTimeMillis() / 1000)
                    .setReason("killed before it started on " + config.name()))
            .build());
  }

  /**
   * SuspendJob to whichever part of the job this node has. A job it does not have gets no answer:
   * the server learns of lost jobs from the node's hello and heartbeats, not from here.
   */
  private void suspend(SuspendJob suspend) {
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
  private void toSister(String jobId, MomInbound m) {
    ActorRef<SisterJobActor.Command> sister = sisterJobs.get(jobId);
    if (sister != null) {
      sister.tell(new SisterJobActor.Tasks(m));
    } else if (m.hasSpawn()) {
      toPeer(
          new ToPeer(
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
      getContext()
          .getLog()
          .warn(
              "{} job {}: {}; an administrator must fix the records or purge the job (qdel -p)",
              what,
              jobId,
              unaccounted.why(config.name(), jobId));
    }
  }

  private void forward(String jobId, JobActor.Command command) {
    ActorRef<JobActor.Command> job = jobs.get(jobId);
    if (job != null) {
      job.tell(command);
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

  private static Set<String> nodesOf(RunJob run) {
    return run.getJob().getExecNodesList().stream()
        .map(NodeAllocation::getNode)
        .collect(Collectors.toUnmodifiableSet());
  }

  private Behavior<Command> toServer(ServerInbound message) {
    courier.toServer(message);
    return this;
  }

  /** Actor names allow only a few characters; job ids have brackets and dots. */
  private static String actorName(String jobId) {
    return "job-" + java.net.URLEncoder.encode(jobId, java.nio.charset.StandardCharsets.UTF_8);
  }
}

package dev.berth.server;

import dev.berth.core.ServerAttributeNames;
import dev.berth.core.Services;
import dev.berth.proto.Error;
import dev.berth.proto.Event;
import dev.berth.proto.JobState;
import dev.berth.proto.MomInbound;
import dev.berth.proto.NodeHello;
import dev.berth.proto.Response;
import dev.berth.proto.Sealed;
import dev.berth.proto.ServerInbound;
import dev.berth.scheduler.Plan;
import dev.berth.scheduler.Planner;
import dev.berth.scheduler.RunDecision;
import dev.berth.scheduler.SchedulerActor;
import dev.berth.security.seal.Refusals;
import dev.berth.security.seal.Seal;
import dev.berth.server.command.Caller;
import dev.berth.server.command.CommandException;
import dev.berth.server.command.Context;
import dev.berth.server.command.Decider;
import dev.berth.server.command.Outcome;
import dev.berth.server.command.config.ServerAttributes;
import dev.berth.server.command.job.JobBudget;
import dev.berth.server.command.node.NodeHealth;
import dev.berth.server.command.node.NodeLiveness;
import dev.berth.server.command.reservation.ReservationCommands;
import dev.berth.server.command.schedule.StateView;
import dev.berth.server.endpoint.ErrorResponses;
import dev.berth.server.journal.Journal;
import dev.berth.server.metrics.ServerMetrics;
import dev.berth.server.query.NodeTelemetry;
import dev.berth.server.state.ClusterState;
import dev.berth.server.state.Snapshots;
import dev.berth.server.state.StateMachine;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
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
 * The server's command pipeline. Commands queue up while a batch is being made durable; the next
 * batch takes all of them, decides each against the state as the earlier ones left it, and hands
 * the events to the journal in one append (group commit). Only when the journal says the batch is
 * durable does the committed state advance and do replies, mom messages, job mail and scheduling
 * follow. A failed journal write stops the server: nothing it did not record may be acted on
 * (PostgreSQL's stance on a failed fsync).
 */
public final class ServerActor extends AbstractBehavior<ServerActor.Message> {
  /** Where moms find the server. */
  public static final ServiceKey<Sealed> SERVER_KEY =
      ServiceKey.create(Sealed.class, Services.SERVER);

  public sealed interface Message {}

  /** A state-changing command; {@code reply} (may be null) completes after it is durable. */
  public record Execute(Decider.Command command, Caller caller, CompletableFuture<Response> reply)
      implements Message {}

  /** A sealed letter from a mom, arriving through the message adapter. */
  public record FromMom(Sealed letter) implements Message {}

  /** Completes when no command is queued or being made durable (for a clean stop). */
  public record Drain(CompletableFuture<Long> done) implements Message {}

  /** Ends the pipeline (after a drain): its registration for the moms goes with it. */
  public enum Stop implements Message {
    INSTANCE
  }

  private record PlanMade(Plan plan) implements Message {}

  private record BatchDurable(
      ClusterState state, List<Event> events, List<Completion> done, long appendedAt)
      implements Message {}

  private record BatchFailed(Throwable failure, List<Completion> done) implements Message {}

  private enum Timer implements Message {
    TICK,
    SCHEDULE,
    /** A reservation's window opens or closes: acted on at that second, not at the next tick. */
    WINDOW
  }

  private record Completion(
      CompletableFuture<Response> reply, Response response, List<Outcome.Notice> notices) {}

  /**
   * The server's fixed settings.
   *
   * @param jobs what the jobs in the state may take of the heap
   */
  public record Settings(
      String serverName,
      String host,
      long snapshotEvery,
      Duration tick,
      Duration resend,
      int maxRunsPerCycle,
      JobBudget jobs) {}

  /** How many eligible jobs the plan for CPUs a batch frees looks at (see {@link #flush}). */
  static final int FREED_CPU_CANDIDATES = 100;

  private final Settings settings;
  private final TimerScheduler<Message> timers;
  private final Journal journal;
  private final AtomicReference<ClusterState> published;
  private final AtomicReference<Plan> lastPlan;
  private final Clock clock;
  private final NodeTelemetry telemetry;
  private final ActorRef<SchedulerActor.Command> scheduler;
  private final ActorRef<Plan> planAdapter;
  private final ActorRefResolver resolver;
  private final Executor background;
  private final CompletableFuture<Void> stopped;
  private final Caller serverCaller;
  private final Caller schedulerCaller;
  private final ArrayDeque<Execute> pending = new ArrayDeque<>();
  private final Map<String, ActorRef<Sealed>> moms = new HashMap<>();
  private final MomPost post;
  private final NodeLiveness liveness;
  private final Deliveries deliveries;
  private final AfterCommit afterCommit;
  private final ServerMetrics metrics;
  private final AtomicBoolean snapshotting = new AtomicBoolean();
  private ClusterState committed;
  private boolean inFlight;
  private boolean scheduling;
  private boolean scheduleAgain;
  private long scheduleRequested;
  private long lastSnapshotSeq;

  private ServerActor(
      ActorContext<Message> context,
      TimerScheduler<Message> timers,
      Settings settings,
      Journal journal,
      AtomicReference<ClusterState> published,
      AtomicReference<Plan> lastPlan,
      Clock clock,
      NodeTelemetry telemetry,
      Executor background,
      CompletableFuture<Void> stopped,
      Seal seal,
      AfterCommit afterCommit,
      ServerMetrics metrics) {
    super(context);
    this.metrics = metrics;
    this.stopped = stopped;
    this.afterCommit = afterCommit;
    this.settings = settings;
    this.timers = timers;
    this.journal = journal;
    this.published = published;
    this.lastPlan = lastPlan;
    this.clock = clock;
    this.telemetry = telemetry;
    this.background = background;
    this.committed = published.get();
    this.lastSnapshotSeq = committed.lastSeq();
    this.resolver = ActorRefResolver.get(context.getSystem());
    this.scheduler = context.spawn(SchedulerActor.create(), "scheduler");
    this.planAdapter = context.messageAdapter(Plan.class, PlanMade::new);
    this.serverCaller = Caller.system("server", settings.host());
    this.schedulerCaller = Caller.system(Caller.SCHEDULER, settings.host());
    ActorRef<Sealed> inbox = context.messageAdapter(Sealed.class, FromMom::new);
    this.post = new MomPost(seal, inbox, resolver, new Refusals(context.getLog(), clock));
    context.getSystem().receptionist().tell(Receptionist.register(SERVER_KEY, inbox));
    this.deliveries = new Deliveries(settings.resend().toMillis());
    deliveries.refreshAll(committed);
    this.liveness = new NodeLiveness(committed, clock.millis());
    timers.startTimerWithFixedDelay(Timer.TICK, settings.tick());
    timers.startTimerWithFixedDelay(
        Timer.SCHEDULE, Duration.ofSeconds(Math.max(1, schedulerIteration())));
    armWindowTimer();
    execute(new Decider.Bootstrap(), serverCaller, null);
    requestSchedule();
  }

  /**
   * @param afterCommit what follows each batch once durable: job mail, accounting records
   * @param metrics where journal commits and scheduling cycles are measured
   */
  public static Behavior<Message> create(
      Settings settings,
      Journal journal,
      AtomicReference<ClusterState> published,
      AtomicReference<Plan> lastPlan,
      Clock clock,
      NodeTelemetry telemetry,
      Executor background,
      CompletableFuture<Void> stopped,
      Seal seal,
      AfterCommit afterCommit,
      ServerMetrics metrics) {
    return Behaviors.withTimers(
        timers ->
            Behaviors.setup(
                ctx ->
                    new ServerActor(
                        ctx,
                        timers,
                        settings,
                        journal,
                        published,
                        lastPlan,
                        clock,
                        telemetry,
                        background,
                        stopped,
                        seal,
                        afterCommit,
                        metrics)));
  }

  @Override
  public Receive<Message> createReceive() {
    return newReceiveBuilder()
        .onMessage(Execute.class, e -> enqueue(e))
        .onMessage(FromMom.class, m -> received(m.letter()))
        .onMessage(PlanMade.class, p -> planMade(p.plan()))
        .onMessage(BatchDurable.class, this::durable)
        .onMessage(BatchFailed.class, this::failed)
        .onMessage(Drain.class, this::drain)
        .onMessageEquals(Stop.INSTANCE, Behaviors::stopped)
        .onSignal(
            PostStop.class,
            s -> {
              stopped.complete(null);
              return this;
            })
        .onMessageEquals(Timer.TICK, this::tick)
        .onMessageEquals(Timer.SCHEDULE, () -> requestSchedule())
        .onMessageEquals(
            Timer.WINDOW,
            () -> {
              execute(new Decider.Tick(), serverCaller, null);
              return this;
            })
        .build();
  }

  private final List<CompletableFuture<Long>> drains = new ArrayList<>();

  private Behavior<Message> drain(Drain d) {
    drains.add(d.done());
    drained();
    return this;
  }

  private void drained() {
    if (!inFlight && pending.isEmpty()) {
      drains.forEach(f -> f.complete(committed.lastSeq()));
      drains.clear();
    }
  }

  private Behavior<Message> enqueue(Execute e) {
    pending.add(e);
    flush();
    return this;
  }

  private void execute(Decider.Command command, Caller caller, CompletableFuture<Response> reply) {
    enqueue(new Execute(command, caller, reply));
  }

  /**
   * Decides every queued command into one batch and hands it to the journal. When the batch frees
   * CPUs (a job ended or was requeued), the jobs that take them are dispatched in the same batch:
   * the freed CPUs are used as soon as the end is durable, without a scheduling cycle and a journal
   * write of their own between one job and the next. That plan starts jobs in priority order and
   * stops at the first that does not fit ({@link Planner#inOrder}), so it can delay no reservation
   * and searches none; it looks at the first {@link #FREED_CPU_CANDIDATES} eligible jobs only, and
   * the full cycle that follows the commit does the backfilling; it still works out every node's
   * free capacity, as any cycle does (about 1 ms for 1,000 nodes here, 18 ms for 10,000: {@code
   * ops/bench/run schedule}). Both plans go through the same re-check of each decision against the
   * state ({@link Decider.Schedule}). It is made only when jobs keep the order they were submitted
   * in (priority from -p alone): the first jobs by a priority that changes with time are known only
   * after working out every job's.
   */
  private void flush() {
    if (inFlight || pending.isEmpty()) {
      return;
    }
    List<Event> batch = new ArrayList<>();
    List<Completion> done = new ArrayList<>();
    ClusterState working = decideAll(committed, batch, done);
    if (freesCpus(batch)
        && ServerAttributes.flag(working, ServerAttributeNames.SCHEDULING)
        && ServerAttributes.scheduler(working).weights().ordersAsSubmitted()) {
      List<RunDecision> starts =
          Planner.inOrder(
                  new StateView(working, nowSeconds()),
                  settings.maxRunsPerCycle(),
                  FREED_CPU_CANDIDATES)
              .decisions();
      if (!starts.isEmpty()) {
        pending.add(new Execute(new Decider.Schedule(starts), schedulerCaller, null));
        working = decideAll(working, batch, done);
      }
    }
    if (batch.isEmpty()) {
      complete(done);
      return;
    }
    inFlight = true;
    ClusterState next = working;
    List<Event> events = List.copyOf(batch);
    ActorRef<Message> self = getContext().getSelf();
    long appendedAt = System.nanoTime();
    journal
        .append(events)
        .whenComplete(
            (ok, failure) ->
                self.tell(
                    failure == null
                        ? new BatchDurable(next, events, done, appendedAt)
                        : new BatchFailed(failure, done)));
  }

  private static boolean freesCpus(List<Event> batch) {
    for (Event e : batch) {
      if (e.hasJobExited() || e.hasJobRequeued()) {
        return true;
      }
    }
    return false;
  }

  /** Decides the queued commands in order, each against the state the ones before it left. */
  private ClusterState decideAll(ClusterState state, List<Event> batch, List<Completion> done) {
    ClusterState working = state;
    while (!pending.isEmpty()) {
      Execute e = pending.poll();
      Context ctx = new Context(clock.millis(), settings.serverName());
      ClusterState before = working;
      int mark = batch.size();
      try {
        Outcome outcome = Decider.decide(working, e.command(), ctx);
        List<Outcome.Notice> notices = new ArrayList<>(outcome.notices());
        working = record(working, outcome.events(), ctx, actor(e), batch);
        settings.jobs().admit(before, working, e.command());
        Outcome follow = Decider.cascade(working, batch.subList(mark, batch.size()));
        for (int round = 0; round < 10 && !follow.events().isEmpty(); round++) {
          int start = batch.size();
          working = record(working, follow.events(), ctx, "server", batch);
          notices.addAll(follow.notices());
          follow = Decider.cascade(working, batch.subList(start, batch.size()));
        }
        done.add(new Completion(e.reply(), outcome.reply().build(), notices));
      } catch (CommandException ex) {
        working = before;
        batch.subList(mark, batch.size()).clear();
        done.add(
            new Completion(
                e.reply(), ErrorResponses.error(0, ex.code(), ex.getMessage()), List.of()));
      } catch (RuntimeException ex) {
        getContext().getLog().error("command {} failed", e.command(), ex);
        working = before;
        batch.subList(mark, batch.size()).clear();
        done.add(
            new Completion(
                e.reply(),
                ErrorResponses.error(0, Error.Code.INTERNAL, "internal error: " + ex),
                List.of()));
      }
    }
    return working;
  }

  private static ClusterState record(
      ClusterState state, List<Event> events, Context ctx, String actor, List<Event> batch) {
    ClusterState s = state;
    for (Event body : events) {
      Event e =
          body.toBuilder().setSeq(s.lastSeq() + 1).setTime(ctx.nowMillis()).setActor(actor).build();
      s = StateMachine.apply(s, e);
      batch.add(e);
    }
    return s;
  }

  private Behavior<Message> durable(BatchDurable d) {
    inFlight = false;
    metrics.journalCommitted(d.events().size(), System.nanoTime() - d.appendedAt());
    ClusterState before = committed;
    committed = d.state();
    published.set(committed);
    if (committed.reservations() != before.reservations()) {
      armWindowTimer();
    }
    Set<String> jobs = new HashSet<>();
    boolean reschedule = false;
    for (Event e : d.events()) {
      affectedJob(e).ifPresent(jobs::add);
      reschedule |= freesOrAddsWork(e);
    }
    deliveries.refresh(committed, jobs);
    // mail and accounting only for what is now durable, and never while replaying
    afterCommit.committed(before, committed, d.events());
    complete(d.done());
    sendDue();
    if (reschedule) {
      requestSchedule();
    }
    maybeSnapshot();
    flush();
    drained();
    return this;
  }

  private Behavior<Message> failed(BatchFailed f) {
    getContext()
        .getLog()
        .error(
            "journal write failed; stopping so that nothing unrecorded is acted on: {}",
            f.failure().getMessage());
    getContext().getLog().debug("the failed journal write", f.failure());
    for (Completion c : f.done()) {
      if (c.reply() != null) {
        c.reply()
            .complete(
                ErrorResponses.error(
                    0,
                    Error.Code.SERVER_DOWN,
                    "the server's journal failed: " + f.failure().getMessage()));
      }
    }
    pending.forEach(
        e -> {
          if (e.reply() != null) {
            e.reply()
                .complete(
                    ErrorResponses.error(0, Error.Code.SERVER_DOWN, "the server is stopping"));
          }
        });
    getContext().getSystem().terminate();
    return Behaviors.stopped();
  }

  private void complete(List<Completion> done) {
    for (Completion c : done) {
      if (c.reply() != null) {
        c.reply().complete(c.response());
      }
      c.notices().forEach(n -> send(n.node(), n.message()));
    }
  }

  private Behavior<Message> received(Sealed letter) {
    post.open(letter).ifPresent(this::fromMom);
    return this;
  }

  private void fromMom(MomPost.Report report) {
    ServerInbound m = report.message();
    String node = nodeOf(m);
    liveness.heard(node, clock.millis());
    switch (m.getBodyCase()) {
      case HELLO -> {
        moms.put(node, report.mom());
        deliveries.expedite(node);
        execute(new Decider.FromNode(m), Caller.system("node:" + node, node), null);
      }
      case STATUS -> {
        telemetry.record(node, m.getStatus().getStatusMap(), clock.millis() / 1000);
        telemetry.recordUsage(
            node,
            m.getStatus().getJobUsageMap(),
            job ->
                committed
                    .job(job)
                    .filter(j -> j.getState() == JobState.RUNNING)
                    .filter(
                        j -> j.getExecNodesList().stream().anyMatch(a -> a.getNode().equals(node)))
                    .isPresent());
        var known = committed.node(node);
        if (known.isPresent() && NodeHealth.changes(known.get(), m.getStatus().getHealthError())) {
          execute(new Decider.FromNode(m), Caller.system("node:" + node, node), null);
        }
        if (NodeLiveness.backUp(known, moms.containsKey(node))) {
          getContext().getLog().info("node {} reports again; marking it up", node);
          ServerInbound hello =
              ServerInbound.newBuilder()
                  .setHello(
                      NodeHello.newBuilder()
                          .setNode(known.get().toBuilder().clearStatus())
                          .addAllRunningJobs(m.getStatus().getRunningJobsList()))
                  .build();
          execute(new Decider.FromNode(hello), Caller.system("node:" + node, node), null);
        }
      }
      case SUSPEND_REPORT -> {
        var r = m.getSuspendReport();
        if (deliveries.suspendReported(node, r.getJobId(), r.getSuspended())) {
          execute(new Decider.SuspendConfirmed(r.getJobId()), serverCaller, null);
        }
      }
      default -> execute(new Decider.FromNode(m), Caller.system("node:" + node, node), null);
    }
  }

  private Behavior<Message> tick() {
    for (NodeLiveness.Silent silent : liveness.overdue(committed, clock.millis())) {
      getContext()
          .getLog()
          .warn(
              "node {} has not reported for {} s: marking it down",
              silent.node(),
              silent.silentMillis() / 1000);
      execute(new Decider.NodeDown(silent.node()), serverCaller, null);
    }
    execute(new Decider.Tick(), serverCaller, null);
    sendDue();
    return this;
  }

  /**
   * Wakes the pipeline when the next reservation window opens or closes, so that a window's jobs
   * start and are ended on time rather than up to a tick late (a job in a window as long as its
   * walltime would otherwise meet its walltime first). A boundary already past fires at once.
   */
  private void armWindowTimer() {
    ReservationCommands.nextBoundary(committed)
        .ifPresentOrElse(
            at ->
                timers.startSingleTimer(
                    Timer.WINDOW, Duration.ofMillis(Math.max(0, at * 1000 - clock.millis()))),
            () -> timers.cancel(Timer.WINDOW));
  }

  private void sendDue() {
    for (Deliveries.Delivery d : deliveries.due(committed, clock.millis())) {
      send(d.node(), d.message());
    }
  }

  private void send(String node, MomInbound message) {
    ActorRef<Sealed> mom = moms.get(node);
    if (mom != null) {
      post.send(mom, node, message);
    }
  }

  private Behavior<Message> requestSchedule() {
    if (!ServerAttributes.flag(committed, ServerAttributeNames.SCHEDULING)) {
      return this;
    }
    if (scheduling) {
      scheduleAgain = true;
      return this;
    }
    scheduling = true;
    scheduleRequested = System.nanoTime();
    scheduler.tell(
        new SchedulerActor.Schedule(
            new StateView(committed, nowSeconds()), settings.maxRunsPerCycle(), planAdapter));
    return this;
  }

  private long nowSeconds() {
    return clock.millis() / 1000;
  }

  private Behavior<Message> planMade(Plan plan) {
    scheduling = false;
    metrics.scheduled(System.nanoTime() - scheduleRequested);
    lastPlan.set(plan);
    if (!plan.decisions().isEmpty()
        || !plan.preemptions().isEmpty()
        || !plan.resumptions().isEmpty()) {
      execute(
          new Decider.Schedule(plan.decisions(), plan.preemptions(), plan.resumptions()),
          schedulerCaller,
          null);
    }
    if (scheduleAgain) {
      scheduleAgain = false;
      requestSchedule();
    }
    return this;
  }

  private void maybeSnapshot() {
    ClusterState state = committed;
    if (state.lastSeq() - lastSnapshotSeq < settings.snapshotEvery()
        || !snapshotting.compareAndSet(false, true)) {
      return;
    }
    lastSnapshotSeq = state.lastSeq();
    background.execute(
        () -> {
          try {
            journal.saveSnapshot(new Journal.Snapshot(state.lastSeq(), Snapshots.image(state)));
          } catch (RuntimeException e) {
            getContext()
                .getLog()
                .warn("snapshot at event {} failed: {}", state.lastSeq(), e.getMessage());
          } finally {
            snapshotting.set(false);
          }
        });
  }

  private long schedulerIteration() {
    return ServerAttributes.number(committed, ServerAttributeNames.SCHEDULER_ITERATION);
  }

  private static String actor(Execute e) {
    return e.caller().user().equals("server")
            || e.caller().user().equals(Caller.SCHEDULER)
            || e.caller().user().startsWith("node:")
        ? e.caller().user()
        : e.caller().principal();
  }

  private static boolean freesOrAddsWork(Event e) {
    return switch (e.getBodyCase()) {
      case JOB_SUBMITTED,
          JOB_RELEASED,
          JOB_EXITED,
          JOB_REQUEUED,
          JOB_SUSPEND_CONFIRMED,
          JOB_ALTERED,
          SUBJOB_ALTERED,
          NODE_CREATED,
          NODE_UPDATED,
          NODE_DELETED,
          QUEUE_ATTRIBUTES_CHANGED,
          SERVER_ATTRIBUTES_CHANGED,
          RESERVATION_CREATED,
          RESERVATION_BEGAN,
          RESERVATION_ENDED ->
          true;
      default -> false;
    };
  }

  private static java.util.Optional<String> affectedJob(Event e) {
    return switch (e.getBodyCase()) {
      case JOB_DISPATCHED -> java.util.Optional.of(e.getJobDispatched().getJobId());
      case JOB_STARTED -> java.util.Optional.of(e.getJobStarted().getJobId());
      case JOB_EXITED -> java.util.Optional.of(e.getJobExited().getJobId());
      case JOB_KILL_REQUESTED -> java.util.Optional.of(e.getJobKillRequested().getJobId());
      case JOB_REQUEUED -> java.util.Optional.of(e.getJobRequeued().getJobId());
      case JOB_SUSPENDED -> java.util.Optional.of(e.getJobSuspended().getJobId());
      case JOB_SUSPEND_CONFIRMED -> java.util.Optional.of(e.getJobSuspendConfirmed().getJobId());
      case JOB_RESUMED -> java.util.Optional.of(e.getJobResumed().getJobId());
      case JOB_PURGED -> java.util.Optional.of(e.getJobPurged().getJobId());
      default -> java.util.Optional.empty();
    };
  }

  static String nodeOf(ServerInbound m) {
    return switch (m.getBodyCase()) {
      case HELLO -> m.getHello().getNode().getName();
      case STATUS -> m.getStatus().getNode();
      case STARTED -> m.getStarted().getNode();
      case OBIT -> m.getObit().getNode();
      case RUN_REJECTED -> m.getRunRejected().getNode();
      case TROUBLE -> m.getTrouble().getNode();
      case SUSPEND_REPORT -> m.getSuspendReport().getNode();
      default -> "";
    };
  }
}

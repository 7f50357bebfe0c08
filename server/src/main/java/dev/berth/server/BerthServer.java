package dev.berth.server;

import dev.berth.core.Budget;
import dev.berth.proto.AccountingRequest;
import dev.berth.proto.Error;
import dev.berth.proto.OutputCheck;
import dev.berth.proto.OutputGrant;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.scheduler.Plan;
import dev.berth.security.seal.Seal;
import dev.berth.server.accounting.AccountingLog;
import dev.berth.server.accounting.AccountingReplay;
import dev.berth.server.command.Caller;
import dev.berth.server.command.CommandException;
import dev.berth.server.command.Decider;
import dev.berth.server.command.Permissions;
import dev.berth.server.command.SubmitHosts;
import dev.berth.server.endpoint.ClientEndpoint;
import dev.berth.server.endpoint.ClientLimits;
import dev.berth.server.endpoint.ErrorResponses;
import dev.berth.server.journal.Journal;
import dev.berth.server.journal.JournalException;
import dev.berth.server.mail.Outbox;
import dev.berth.server.mail.os.Sendmail;
import dev.berth.server.metrics.ServerMetrics;
import dev.berth.server.query.NodeTelemetry;
import dev.berth.server.query.OutputGrants;
import dev.berth.server.query.Queries;
import dev.berth.server.query.ReplyBudget;
import dev.berth.server.query.TerminalPermits;
import dev.berth.server.relay.RelayPort;
import dev.berth.server.state.ClusterState;
import dev.berth.server.state.StateMachine;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneId;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running server: state recovered from the journal (latest snapshot plus the events after it),
 * the command pipeline actor, and the client socket. Queries are answered on their own threads from
 * the committed state; commands go through the pipeline.
 */
public final class BerthServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(BerthServer.class);

  /**
   * Where the server keeps its socket and what it calls itself.
   *
   * @param relays where submit hosts' relays connect, or null for no submit hosts
   * @param commands runs the native command client's commands, or null to refuse them
   */
  public record Config(
      Path socket,
      String serverName,
      String host,
      long snapshotEvery,
      Duration tick,
      Duration resend,
      ClientLimits limits,
      RelayPort.Binding relays,
      CommandHost commands,
      Path accounting,
      ServerMetrics metrics) {
    /** The usual settings, with the client limits the environment sets (BERTH_CLIENT_LIMITS). */
    public static Config defaults(Path socket, String serverName, String host) {
      return new Config(
          socket,
          serverName,
          host,
          100_000,
          Duration.ofSeconds(1),
          Duration.ofSeconds(5),
          ClientLimits.fromEnvironment(System.getenv(), Runtime.getRuntime().maxMemory()),
          null,
          null,
          null,
          ServerMetrics.unscraped());
    }

    /** These settings, with submit hosts' relays taken at {@code relays}. */
    public Config withRelays(RelayPort.Binding relays) {
      return new Config(
          socket,
          serverName,
          host,
          snapshotEvery,
          tick,
          resend,
          limits,
          relays,
          commands,
          accounting,
          metrics);
    }

    /** These settings, with the native client's commands run by {@code commands}. */
    public Config withCommands(CommandHost commands) {
      return new Config(
          socket,
          serverName,
          host,
          snapshotEvery,
          tick,
          resend,
          limits,
          relays,
          commands,
          accounting,
          metrics);
    }

    /** These settings, with the server's instruments in {@code metrics}. */
    public Config withMetrics(ServerMetrics metrics) {
      return new Config(
          socket,
          serverName,
          host,
          snapshotEvery,
          tick,
          resend,
          limits,
          relays,
          commands,
          accounting,
          metrics);
    }

    /** These settings, with the accounting files written in {@code accounting}. */
    public Config withAccounting(Path accounting) {
      return new Config(
          socket,
          serverName,
          host,
          snapshotEvery,
          tick,
          resend,
          limits,
          relays,
          commands,
          accounting,
          metrics);
    }
  }

  private final Journal journal;
  private final ActorSystem<?> system;
  private final AccountingLog accounting;

  /** Makes accounting files again from the journal, one request at a time. */
  private final ExecutorService replays;

  private final AtomicReference<ClusterState> published;
  private final ActorRef<ServerActor.Message> actor;
  private final ClientEndpoint endpoint;
  private final RelayPort relays;
  private final ExecutorService queryThreads;
  private final ExecutorService commandThreads;
  private final CommandTurns commandTurns;
  private final CommandHost commands;
  private final ExecutorService background;
  private final Outbox outbox;
  private final Queries queries;
  private final ReplyBudget replies;
  private final TerminalPermits terminals;
  private final RecoveryReport recovery;
  private final ServerMetrics metrics;
  private final CompletableFuture<Void> actorStopped = new CompletableFuture<>();
  private boolean closed;

  /** What recovery found, for the log and for the restart benchmark. */
  public record RecoveryReport(long snapshotSeq, long replayed, long lastSeq, long millis) {}

  private BerthServer(
      ActorSystem<?> system,
      Journal journal,
      Config config,
      Clock clock,
      ClusterState warm,
      Seal seal)
      throws IOException {
    this.system = system;
    this.journal = journal;
    long start = System.nanoTime();
    Recovered r = warm != null ? recover(journal, warm, warm.lastSeq()) : recover(journal);
    this.recovery =
        new RecoveryReport(
            r.snapshotSeq(),
            r.replayed(),
            r.state().lastSeq(),
            (System.nanoTime() - start) / 1_000_000);
    log.info(
        "recovered {} jobs, {} nodes at event {} (snapshot {}, {} events replayed) in {} ms",
        r.state().jobCount(),
        r.state().nodes().size(),
        recovery.lastSeq(),
        recovery.snapshotSeq(),
        recovery.replayed(),
        recovery.millis());
    this.published = new AtomicReference<>(r.state());
    this.metrics = config.metrics();
    NodeTelemetry telemetry = new NodeTelemetry();
    this.queryThreads = Executors.newFixedThreadPool(QUERY_THREADS, daemon("berth-query"));
    // A hosted command waits for its own requests' answers, so it runs apart from them. The
    // client socket's per-user limits bound how many wait here; users take turns.
    this.commandThreads = Executors.newFixedThreadPool(COMMAND_THREADS, daemon("berth-command"));
    this.commandTurns = new CommandTurns(commandThreads, COMMANDS_PER_USER);
    this.commands = config.commands();
    this.background = Executors.newSingleThreadExecutor(daemon("berth-snapshot"));
    this.outbox = Sendmail.start();
    this.accounting =
        config.accounting() == null
            ? null
            : new AccountingLog(config.accounting(), ZoneId.systemDefault());
    this.replays = Executors.newSingleThreadExecutor(daemon("berth-accounting-replay"));
    AtomicReference<Plan> lastPlan = new AtomicReference<>();
    this.replies = new ReplyBudget(config.limits().replyBytes());
    this.queries =
        new Queries(
            config.serverName(),
            journal,
            telemetry,
            clock,
            () -> Optional.ofNullable(lastPlan.get()),
            replies,
            config.accounting(),
            ZoneId.systemDefault());
    this.terminals = new TerminalPermits(seal, config.serverName());
    ServerActor.Settings settings =
        new ServerActor.Settings(
            config.serverName(),
            config.host(),
            config.snapshotEvery(),
            config.tick(),
            config.resend(),
            1000,
            config.limits().jobBudget());
    this.actor =
        system.systemActorOf(
            ServerActor.create(
                settings,
                journal,
                published,
                lastPlan,
                clock,
                telemetry,
                background,
                actorStopped,
                seal,
                AfterCommit.of(outbox, accounting, metrics),
                metrics),
            "berth-server",
            Props.empty());
    this.endpoint =
        new ClientEndpoint(config.socket(), this::handle, config.limits(), config.host());
    // A server without its socket must not look alive: stop, as when the journal fails.
    endpoint.failure().thenRun(system::terminate);
    metrics.serving(published::get, endpoint::openConnections);
    this.relays = config.relays() == null ? null : relayPort(config);
  }

  private RelayPort relayPort(Config config) throws IOException {
    try {
      return new RelayPort(
          config.relays().address(),
          config.relays().tls(),
          this::handle,
          new RelayPort.Gate() {
            @Override
            public String refusal(String host) {
              return SubmitHosts.refusal(published.get(), host);
            }

            @Override
            public OutputGrant outputGrant(String host, OutputCheck check) {
              return OutputGrants.grant(published.get(), host, check);
            }
          },
          config.limits());
    } catch (IOException e) {
      endpoint.close();
      throw new IOException(
          "cannot listen for submit hosts' relays at " + config.relays().address() + ": " + e, e);
    }
  }

  /**
   * @param seal how the server seals its letters to moms and opens theirs
   */
  public static BerthServer start(ActorSystem<?> system, Journal journal, Config config, Seal seal)
      throws IOException {
    return new BerthServer(system, journal, config, Clock.systemUTC(), null, seal);
  }

  /**
   * Starts from {@code warm}, a state a standby kept up to date, replaying only the events the
   * journal holds after it.
   */
  public static BerthServer takeOver(
      ActorSystem<?> system, Journal journal, Config config, ClusterState warm, Seal seal)
      throws IOException {
    return new BerthServer(system, journal, config, Clock.systemUTC(), warm, seal);
  }

  private CompletionStage<Response> handle(Request request, Caller caller) {
    if (request.getBodyCase() == Request.BodyCase.RUN_COMMAND) {
      return timed(request, bounded(request, runCommand(request, caller)));
    }
    return handleOne(request, caller);
  }

  /**
   * {@code answer}, or its refusal if it is larger than a reply may be. The large answers (qstat,
   * tracejob, a command's output) are refused while they are put together; this is for every other,
   * which holds what the state holds until the socket encodes it.
   */
  private CompletionStage<Response> bounded(Request request, CompletionStage<Response> answer) {
    String what = "the reply to " + ServerMetrics.requestName(request.getBodyCase());
    return answer.thenApply(r -> replies.bound(r, what, "ask for less at a time"));
  }

  /** {@code answer}, its time counted in the metrics under the request's type. */
  private CompletionStage<Response> timed(Request request, CompletionStage<Response> answer) {
    long start = System.nanoTime();
    return answer.whenComplete(
        (response, failure) ->
            metrics.answered(
                ServerMetrics.requestName(request.getBodyCase()), System.nanoTime() - start));
  }

  private static final int COMMAND_THREADS = 4;
  private static final int QUERY_THREADS = 2;

  /**
   * The replies being made at once: each query thread's and each command thread's, at most the
   * largest reply each (a command's recorded output is held to it too).
   */
  public static Budget replyBudget(ClientLimits limits) {
    int makers = QUERY_THREADS + COMMAND_THREADS;
    return new Budget(
        "replies being made",
        limits.describe(ClientLimits.Limit.REPLY)
            + " each, on "
            + QUERY_THREADS
            + " query and "
            + COMMAND_THREADS
            + " command threads",
        makers * limits.replyBytes(),
        makers);
  }

  /** Commands one user may have running at once, so that others find a thread free. */
  private static final int COMMANDS_PER_USER = 2;

  /** The longest a hosted command waits for the answer to one of its requests. */
  private static final Duration COMMAND_CALL_LIMIT = Duration.ofSeconds(60);

  private CompletionStage<Response> runCommand(Request request, Caller caller) {
    if (commands == null) {
      return CompletableFuture.completedFuture(
          ErrorResponses.error(
              request.getId(),
              Error.Code.UNKNOWN_REQUEST,
              "this server runs no commands for the native client"));
    }
    CommandHost.Server server =
        inner -> {
          try {
            return handleOne(inner, caller)
                .toCompletableFuture()
                .get(COMMAND_CALL_LIMIT.toMillis(), TimeUnit.MILLISECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
          } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException(e);
          }
        };
    CompletableFuture<Response> answer = new CompletableFuture<>();
    commandTurns.submit(
        caller.principal(),
        () -> {
          try {
            answer.complete(
                commands.run(request.getRunCommand(), caller, server, replies.bytes()).toBuilder()
                    .setId(request.getId())
                    .build());
          } catch (Throwable e) {
            // one line per failure: a caller must not be able to fill the log with stack traces
            log.warn(
                "command {} of {} failed: {}",
                request.getRunCommand().getName(),
                caller,
                e.toString());
            log.debug("the failed command", e);
            answer.complete(
                ErrorResponses.error(
                    request.getId(),
                    Error.Code.INTERNAL,
                    "the server could not run the command: " + e));
            if (e instanceof java.lang.Error error) {
              throw error;
            }
          }
        });
    return answer;
  }

  /**
   * Answers a request that names one operation (never a whole command), from a client or from a
   * command the server runs for one.
   */
  private CompletionStage<Response> handleOne(Request request, Caller caller) {
    if (request.getBodyCase() == Request.BodyCase.RUN_COMMAND) {
      throw new IllegalArgumentException("a command cannot run another");
    }
    return timed(request, bounded(request, answer(request, caller)));
  }

  private CompletionStage<Response> answer(Request request, Caller caller) {
    if (request.getBodyCase() == Request.BodyCase.ACCOUNTING) {
      return CompletableFuture.supplyAsync(
          () -> accountingFiles(caller, request.getAccounting()), replays);
    }
    if (request.getBodyCase() == Request.BodyCase.ATTACH) {
      return CompletableFuture.supplyAsync(
          () -> terminals.answer(published.get(), caller, request.getAttach()).build(),
          queryThreads);
    }
    if (Decider.isQuery(request)) {
      return CompletableFuture.supplyAsync(
          () -> queries.answer(published.get(), caller, request).build(), queryThreads);
    }
    CompletableFuture<Response> reply = new CompletableFuture<>();
    actor.tell(new ServerActor.Execute(new Decider.ClientCommand(request, caller), caller, reply));
    return reply;
  }

  /** berth accounting: the files of a range of days, made again from the journal; managers only. */
  private Response accountingFiles(Caller caller, AccountingRequest request) {
    if (!Permissions.isManager(published.get(), caller)) {
      return ErrorResponses.error(
          0, Error.Code.PERMISSION, "only managers may have the accounting files made again");
    }
    try {
      return Response.newBuilder()
          .setAccounting(AccountingReplay.files(journal, request, ZoneId.systemDefault()))
          .build();
    } catch (CommandException e) {
      return Response.newBuilder().setError(e.toError()).build();
    }
  }

  /** A replay reading the journal ends before the journal may close. */
  private void stopReplays() {
    replays.shutdownNow();
    try {
      replays.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void closeAccounting() {
    if (accounting != null) {
      accounting.close();
    }
  }

  record Recovered(ClusterState state, long snapshotSeq, long replayed) {}

  /** The latest snapshot, then every event after it, through the same apply. */
  static Recovered recover(Journal journal) {
    ClusterState state = ClusterState.EMPTY;
    long snapshotSeq = 0;
    try {
      Optional<Journal.Snapshot> snapshot = journal.latestSnapshot();
      if (snapshot.isPresent()) {
        state =
            StateMachine.restore(ClusterState.EMPTY, snapshot.get().image(), snapshot.get().seq());
        snapshotSeq = snapshot.get().seq();
      }
    } catch (JournalException | IllegalStateException e) {
      log.warn("the latest snapshot is unusable ({}); replaying the whole journal", e.getMessage());
      state = ClusterState.EMPTY;
      snapshotSeq = 0;
    }
    return recover(journal, state, snapshotSeq);
  }

  /** {@code from} (the state as of event {@code fromSeq}), then every later event. */
  private static Recovered recover(Journal journal, ClusterState from, long fromSeq) {
    AtomicReference<ClusterState> s = new AtomicReference<>(from);
    long[] count = {0};
    journal.replay(
        from.lastSeq(),
        e -> {
          s.set(StateMachine.apply(s.get(), e));
          count[0]++;
        });
    if (s.get().lastSeq() != journal.lastSeq()) {
      throw new JournalException(
          "replay ended at event "
              + s.get().lastSeq()
              + " but the journal holds "
              + journal.lastSeq());
    }
    return new Recovered(s.get(), fromSeq, count[0]);
  }

  public RecoveryReport recovery() {
    return recovery;
  }

  public ClusterState state() {
    return published.get();
  }

  public Path socket() {
    return endpoint.socket();
  }

  /**
   * Stops taking requests, waits until every accepted command is durable, and writes a snapshot so
   * the next start replays little.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return; // a second caller (the singleton stopping, a shutdown hook) waited for the first
    }
    closed = true;
    metrics.serving(null, null);
    endpoint.close();
    if (relays != null) {
      relays.close();
    }
    if (actorStopped.isDone() || system.whenTerminated().isCompleted()) {
      // The server stopped itself (its journal failed): nothing to drain, nothing to snapshot.
      queryThreads.shutdown();
      commandThreads.shutdown();
      background.shutdown();
      stopReplays();
      outbox.close();
      closeAccounting();
      return;
    }
    CompletableFuture<Long> drained = new CompletableFuture<>();
    actor.tell(new ServerActor.Drain(drained));
    try {
      CompletableFuture.anyOf(drained, actorStopped).get(30, TimeUnit.SECONDS);
      if (!drained.isDone()) {
        throw new IllegalStateException("the command pipeline stopped before it drained");
      }
      ClusterState last = published.get();
      if (last.lastSeq() > 0) {
        journal.saveSnapshot(
            new Journal.Snapshot(last.lastSeq(), dev.berth.server.state.Snapshots.image(last)));
      }
    } catch (Exception e) {
      log.warn("stopping without a final snapshot: {}", e.toString());
    }
    actor.tell(ServerActor.Stop.INSTANCE); // the moms' registration goes with it
    try {
      // Once it has stopped nothing writes to the journal, which its owner closes next, whatever
      // the actor system does after (its end may not be waited for: StopDeadline).
      actorStopped.get(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      log.warn("the server's actor had not stopped 10 s after it was told to: {}", e.toString());
    }
    queryThreads.shutdown();
    commandThreads.shutdown();
    background.shutdown();
    stopReplays();
    outbox.close(); // the mail of what was committed, within its bound
    closeAccounting(); // the records of what was committed
    try {
      background.awaitTermination(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static java.util.concurrent.ThreadFactory daemon(String name) {
    return runnable -> {
      Thread t = new Thread(runnable, name);
      t.setDaemon(true);
      return t;
    };
  }
}

package dev.berth.daemon;

import com.typesafe.config.Config;
import dev.berth.mom.Isolation;
import dev.berth.mom.MomActor;
import dev.berth.mom.MomConfig;
import dev.berth.mom.os.LinuxLauncher;
import dev.berth.mom.os.LinuxUsers;
import dev.berth.mom.os.NodeFacts;
import dev.berth.mom.store.JobRecords;
import dev.berth.security.Identity;
import dev.berth.security.Role;
import dev.berth.security.seal.Seal;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.PoisonPill;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.pattern.Patterns;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A mom's life in its own process: a cluster member that runs the MomActor. When the cluster
 * removes it (the server was unreachable long enough, or restarted), or its cluster has had no
 * server for a while ({@link ServerWatch}), it joins again with a new actor system; its jobs run on
 * meanwhile under their starters and the new MomActor finds them in the node-local records.
 */
final class MomProcess {
  private static final Logger log = LoggerFactory.getLogger(MomProcess.class);

  private final MomConfig config;
  private final Isolation isolation;
  private final Config pekko;
  private volatile boolean stopping;
  private volatile ActorSystem<Void> system;
  private volatile ActorRef<?> mom;

  /** Completed when a stop asked for by the server hangs past {@link #STOP_LIMIT}. */
  private final CompletableFuture<Void> stopOverdue = new CompletableFuture<>();

  /**
   * How long a stop may take before the process exits without waiting for its actor system: the
   * jobs run on under their starters and the records are on disk, so nothing is lost by it, and a
   * mom that momctl -s told to stop must not linger half-stopped.
   */
  static final Duration STOP_LIMIT = Duration.ofSeconds(20);

  /** How long the mom's actor (its job actors with it) may take to stop on SIGTERM. */
  static final Duration ACTOR_STOP = Duration.ofSeconds(5);

  private final Duration patience;
  private final DaemonTrust trust;

  MomProcess(
      MomConfig config, Isolation isolation, Config pekko, Duration patience, DaemonTrust trust) {
    this.config = config;
    this.isolation = isolation;
    this.pekko = pekko;
    this.patience = patience;
    this.trust = trust;
  }

  void run() throws IOException, InterruptedException {
    JobRecords records = new JobRecords(config.home().resolve("jobs"));
    Seal seal = trust.seal(new Identity(Role.MOM, config.name()));
    while (!stopping) {
      system = trust.actorSystem(pekko);
      mom =
          system.systemActorOf(
              MomActor.create(
                  config,
                  new LinuxLauncher(config.starter()),
                  new LinuxUsers(config.nativeLibrary()),
                  NodeFacts.linux(),
                  records,
                  isolation,
                  seal,
                  this::stopAtServersWord),
              "mom-" + config.name(),
              Props.empty());
      system.systemActorOf(ServerWatch.create(patience), "server-watch", Props.empty());
      awaitTermination();
      if (!stopping) {
        log.warn(
            "mom {} left the cluster; joining again in 5 s (its jobs keep running)", config.name());
        TimeUnit.SECONDS.sleep(5);
      }
    }
  }

  private void awaitTermination() throws InterruptedException {
    try {
      CompletableFuture.anyOf(system.getWhenTerminated().toCompletableFuture(), stopOverdue).get();
    } catch (java.util.concurrent.ExecutionException e) {
      log.warn("actor system ended with {}", e.getCause().toString());
    }
  }

  /**
   * momctl -s, on the mom's actor thread: the process ends as on SIGTERM (its jobs run on), without
   * waiting here for the actor system it runs on.
   */
  private void stopAtServersWord() {
    stopping = true;
    ActorSystem<Void> s = system;
    if (s != null) {
      s.terminate();
      StopDeadline.overdue(s, STOP_LIMIT, stopOverdue);
    }
  }

  void stop() {
    stopping = true;
    ActorSystem<Void> s = system;
    if (s != null && !stopOverdue.isDone()) {
      stopMomActor();
      StopDeadline.terminate(s, "mom " + config.name());
    }
  }

  /**
   * Stops the mom's actor before its actor system: its files (the task manager's socket directory,
   * the trash, the jobs' TMPDIR base) go as it stops, and the process may exit before the rest of
   * the actor system has ended ({@link StopDeadline#end}). Its jobs run on under their starters.
   */
  private void stopMomActor() {
    ActorRef<?> m = mom;
    if (m == null) {
      return;
    }
    try {
      Patterns.gracefulStop(Adapter.toClassic(m), ACTOR_STOP, PoisonPill.getInstance())
          .toCompletableFuture()
          .get(ACTOR_STOP.toMillis() + 1000, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      log.warn(
          "mom {}: its actor had not stopped {} s after it was told to",
          config.name(),
          ACTOR_STOP.toSeconds());
    }
  }
}

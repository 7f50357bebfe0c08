package dev.berth.daemon;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntConsumer;
import org.apache.pekko.Done;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.cluster.Cluster;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bounds how long a daemon takes to exit once it has begun to stop. Stopping runs Pekko's
 * coordinated shutdown (leave the cluster, hand the active role over, close the server) and then
 * the JVM's shutdown hooks; each step has a timeout of its own, but together they can outlast a
 * minute, for instance in a server that other members have downed while it was paused and whose
 * journal has fenced it. Such a server must be gone promptly so that its supervisor can start it
 * again, and a hung stop is worse than a crash (the journal and the moms' records survive crashes).
 * So the process halts if it still runs {@code limit} after its coordinated shutdown began, and
 * says so. A stop asked for with SIGTERM drains and writes its snapshot before that shutdown
 * begins. A mom told to stop by momctl -s ends its actor system itself and then exits; it waits for
 * that system a bounded time too ({@link #overdue}), and says where its threads were.
 */
final class StopDeadline {
  /** Long enough for a healthy stop, whose cluster phases take a few seconds. */
  static final Duration LIMIT = Duration.ofSeconds(45);

  /** How long a daemon waits for its actor system to end: leaving the cluster included. */
  static final Duration END = Duration.ofSeconds(30);

  /** How long the rest of the end may take once the member is out of the cluster. */
  static final Duration AFTER_LEAVING = Duration.ofSeconds(2);

  private static final Logger log = LoggerFactory.getLogger(StopDeadline.class);

  private StopDeadline() {}

  /**
   * Completes when {@code system} has ended, or {@link #AFTER_LEAVING} after its member is out of
   * the cluster (removed, or its cluster shut down after it was downed), whichever comes first.
   * Pekko 1.7's Artery may wait without a deadline for a stream to a member that left just before,
   * or to members that quarantined this one (apache/pekko#3247: a mom stopped right after another
   * waited 30 s; a paused server the others had downed, 45 s until its deadline halted it); once
   * this member is out, nothing the daemon owes the others depends on the rest.
   */
  static CompletableFuture<Void> end(ActorSystem<?> system) {
    CompletableFuture<Void> end = new CompletableFuture<>();
    system.getWhenTerminated().thenRun(() -> end.complete(null));
    // runs at once if the cluster has already shut down
    Cluster.get(Adapter.toClassic(system))
        .registerOnMemberRemoved(
            () ->
                CompletableFuture.delayedExecutor(AFTER_LEAVING.toMillis(), TimeUnit.MILLISECONDS)
                    .execute(() -> end.complete(null)));
    return end;
  }

  /**
   * Ends {@code system} and waits at most {@link #END} for {@link #end}; {@code who} names the
   * daemon in the log.
   */
  static void terminate(ActorSystem<?> system, String who) {
    CompletableFuture<Void> end = end(system);
    system.terminate();
    try {
      end.get(END.toMillis(), TimeUnit.MILLISECONDS);
      if (!system.whenTerminated().isCompleted()) {
        log.info("{} left the cluster; not waiting longer for the rest of its actor system", who);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      log.warn(
          "{} did not stop cleanly: not out of the cluster {} s after its stop began",
          who,
          END.toSeconds());
    }
  }

  /** Arms the deadline for {@code system}: the process halts as {@link Runtime#halt} would. */
  static void arm(ActorSystem<?> system) {
    arm(system, LIMIT, status -> Runtime.getRuntime().halt(status));
  }

  /** Arms it with {@code halt} in place of the JVM's, for tests. */
  static void arm(ActorSystem<?> system, Duration limit, IntConsumer halt) {
    CoordinatedShutdown.get(system)
        .addTask(
            CoordinatedShutdown.PhaseBeforeServiceUnbind(),
            "berth-stop-deadline",
            () -> {
              start(limit, halt);
              return CompletableFuture.completedFuture(Done.getInstance());
            });
  }

  /**
   * For a daemon that ends its actor system itself and then exits (a mom told to stop with momctl
   * -s): completes {@code overdue} if {@code system} has not terminated {@code limit} from now,
   * once the log says where its threads are, so that the process exits all the same.
   */
  static void overdue(ActorSystem<?> system, Duration limit, CompletableFuture<Void> overdue) {
    CompletableFuture.delayedExecutor(limit.toMillis(), TimeUnit.MILLISECONDS)
        .execute(
            () -> {
              if (system.whenTerminated().isCompleted()) {
                return;
              }
              log.error(
                  "{} still not ended {} s after the stop began (a step of it hangs); exiting without"
                      + " it; where its threads are:\n{}",
                  system.name(),
                  String.format("%.1f", limit.toMillis() / 1000.0),
                  threads());
              overdue.complete(null);
            });
  }

  private static void start(Duration limit, IntConsumer halt) {
    Thread watch =
        new Thread(
            () -> {
              try {
                Thread.sleep(limit.toMillis());
              } catch (InterruptedException e) {
                return;
              }
              String why =
                  String.format(
                      "still stopping %.1f s after the stop began (a step of it hangs); halting so"
                          + " that the supervisor can start the server again",
                      limit.toMillis() / 1000.0);
              log.error("{}; where its threads are:\n{}", why, threads());
              System.err.println("berth: " + why);
              halt.accept(1);
            },
            "berth-stop-deadline");
    watch.setDaemon(true); // the process exiting in time ends it
    watch.start();
  }

  /** Every thread's stack, so that the log shows which step hung. */
  private static String threads() {
    StringBuilder dump = new StringBuilder();
    Thread.getAllStackTraces()
        .forEach(
            (thread, stack) -> {
              dump.append('"').append(thread.getName()).append("\" ").append(thread.getState());
              for (StackTraceElement frame : stack) {
                dump.append("\n    at ").append(frame);
              }
              dump.append('\n');
            });
    return dump.toString();
  }
}

package dev.berth.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.Done;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Test;

/** A real actor system whose coordinated shutdown hangs in one of its phases. */
class StopDeadlineTest {
  @Test
  void aStopThatHangsEndsInAHaltAfterTheLimit() throws Exception {
    ActorSystem<Void> system =
        ActorSystem.create(
            Behaviors.empty(),
            "stopping",
            ConfigFactory.parseString(
                "pekko.loglevel = WARNING\n"
                    + "pekko.coordinated-shutdown.run-by-jvm-shutdown-hook = off\n"
                    + "pekko.coordinated-shutdown.phases.service-stop.timeout = 60 s\n"));
    CompletableFuture<Done> hung = new CompletableFuture<>();
    CoordinatedShutdown.get(system)
        .addTask(CoordinatedShutdown.PhaseServiceStop(), "hangs", () -> hung);
    CompletableFuture<Long> halted = new CompletableFuture<>();
    long[] began = new long[1];
    CoordinatedShutdown.get(system)
        .addTask(
            CoordinatedShutdown.PhaseBeforeServiceUnbind(),
            "began",
            () -> {
              began[0] = System.nanoTime();
              return CompletableFuture.completedFuture(Done.getInstance());
            });
    StopDeadline.arm(system, Duration.ofMillis(500), status -> halted.complete((long) status));
    try {
      system.terminate();
      assertEquals(1L, halted.get(30, TimeUnit.SECONDS), "halted with status 1");
      long after = System.nanoTime() - began[0];
      assertTrue(after >= Duration.ofMillis(500).toNanos(), "not before the limit: " + after);
      assertTrue(!system.whenTerminated().isCompleted(), "the stop was still hanging");
    } finally {
      hung.complete(Done.getInstance());
      system.getWhenTerminated().toCompletableFuture().get(60, TimeUnit.SECONDS);
    }
  }

  @Test
  void aMomWhoseStopHangsIsLetGoAfterTheLimitAndOneThatStopsIsNot() throws Exception {
    ActorSystem<Void> hanging = system("hanging");
    CompletableFuture<Done> hung = new CompletableFuture<>();
    CoordinatedShutdown.get(hanging)
        .addTask(CoordinatedShutdown.PhaseServiceStop(), "hangs", () -> hung);
    ActorSystem<Void> healthy = system("healthy");
    try {
      CompletableFuture<Void> hangingOverdue = new CompletableFuture<>();
      CompletableFuture<Void> healthyOverdue = new CompletableFuture<>();
      long began = System.nanoTime();
      hanging.terminate();
      StopDeadline.overdue(hanging, Duration.ofMillis(500), hangingOverdue);
      healthy.terminate();
      StopDeadline.overdue(healthy, Duration.ofMillis(500), healthyOverdue);
      hangingOverdue.get(30, TimeUnit.SECONDS);
      assertTrue(System.nanoTime() - began >= Duration.ofMillis(500).toNanos(), "not early");
      assertTrue(!hanging.whenTerminated().isCompleted(), "the stop was still hanging");
      // the healthy one's deadline has passed too (it was armed after the hanging one's)
      healthy.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
      CompletableFuture.supplyAsync(
              () -> null, CompletableFuture.delayedExecutor(500, TimeUnit.MILLISECONDS))
          .get(30, TimeUnit.SECONDS);
      assertTrue(!healthyOverdue.isDone(), "a stop that ended is not overdue");
    } finally {
      hung.complete(Done.getInstance());
      hanging.getWhenTerminated().toCompletableFuture().get(60, TimeUnit.SECONDS);
    }
  }

  private static ActorSystem<Void> system(String name) {
    return ActorSystem.create(
        Behaviors.empty(),
        name,
        ConfigFactory.parseString(
            "pekko.loglevel = WARNING\n"
                + "pekko.coordinated-shutdown.run-by-jvm-shutdown-hook = off\n"
                + "pekko.coordinated-shutdown.phases.service-stop.timeout = 60 s\n"));
  }
}

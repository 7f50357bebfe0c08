package dev.berth.daemon;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.server.ServerActor;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.junit.jupiter.api.Test;

/** A real (local) actor system and receptionist; a stand-in registers as the server. */
class ServerWatchTest {
  private static ActorSystem<Void> system() {
    return ActorSystem.create(
        Behaviors.empty(),
        "watch",
        com.typesafe.config.ConfigFactory.parseString(
            "pekko.loglevel = WARNING\npekko.coordinated-shutdown.run-by-jvm-shutdown-hook = off"));
  }

  @Test
  void withoutAServerTheMomsSystemEndsAfterThePatience() throws Exception {
    ActorSystem<Void> system = system();
    system.systemActorOf(ServerWatch.create(Duration.ofMillis(300)), "watch", Props.empty());
    system.getWhenTerminated().toCompletableFuture().get(10, TimeUnit.SECONDS);
    assertTrue(system.whenTerminated().isCompleted());
  }

  @Test
  void aRegisteredServerKeepsItAndLosingItForTooLongEndsIt() throws Exception {
    ActorSystem<Void> system = system();
    try {
      var server =
          system.systemActorOf(
              Behaviors.<dev.berth.proto.Sealed>receive(dev.berth.proto.Sealed.class)
                  .onMessageEquals(dev.berth.proto.Sealed.getDefaultInstance(), Behaviors::stopped)
                  .build(),
              "server",
              Props.empty());
      system.receptionist().tell(Receptionist.register(ServerActor.SERVER_KEY, server));
      system.systemActorOf(ServerWatch.create(Duration.ofMillis(800)), "watch", Props.empty());
      Thread.sleep(2000);
      assertFalse(system.whenTerminated().isCompleted(), "a server is there");
      server.tell(dev.berth.proto.Sealed.getDefaultInstance()); // the server goes away
      system.getWhenTerminated().toCompletableFuture().get(10, TimeUnit.SECONDS);
    } finally {
      system.terminate();
    }
  }
}

package dev.berth.daemon;

import dev.berth.server.journal.JournalException;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * The active server's role as a cluster singleton: Pekko runs it on the oldest member with role
 * "server" and starts it elsewhere only once that member is down or gone. Starting it takes over
 * (fencing every earlier writer of the journal); stopping it closes the server. The journal's
 * fencing, not the singleton, is what keeps a paused former server from writing: the singleton only
 * decides who tries.
 */
final class ActiveServer {
  private ActiveServer() {}

  /** Takes over and returns what to close when the role moves away. */
  @FunctionalInterface
  interface TakeOver {
    AutoCloseable run() throws Exception;
  }

  static Behavior<Void> create(TakeOver takeOver) {
    return Behaviors.setup(
        ctx -> {
          AutoCloseable running;
          try {
            running = takeOver.run();
          } catch (Exception e) {
            // A member that holds the role but cannot serve must leave, so another can take over.
            if (e instanceof JournalException) {
              ctx.getLog()
                  .error("cannot take over as the active server; stopping: {}", e.getMessage());
              ctx.getLog().debug("the failed takeover", e);
            } else {
              ctx.getLog().error("cannot take over as the active server; stopping", e);
            }
            ctx.getSystem().terminate();
            return Behaviors.stopped();
          }
          return Behaviors.receive(Void.class)
              .onSignal(
                  PostStop.class,
                  s -> {
                    running.close();
                    return Behaviors.same();
                  })
              .build();
        });
  }
}

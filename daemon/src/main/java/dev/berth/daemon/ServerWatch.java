package dev.berth.daemon;

import dev.berth.server.ServerActor;
import java.time.Duration;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.receptionist.Receptionist;

/**
 * Ends a standalone mom's actor system when no server has been registered in its cluster for a
 * while, so that {@link MomProcess} joins again through its seeds (the servers). A mom can be left
 * in a cluster without a server: its side of a partition kept itself while the servers' side went
 * down and came back as a new cluster. Its jobs run on under their starters meanwhile, and the mom
 * finds them again when it has joined.
 */
final class ServerWatch {
  private ServerWatch() {}

  private enum Lost {
    TIMEOUT
  }

  /** Longer than a takeover (about 8 s), during which there is briefly no server either. */
  static final Duration PATIENCE = Duration.ofSeconds(60);

  static Behavior<Object> create(Duration patience) {
    return Behaviors.withTimers(
        timers ->
            Behaviors.setup(
                ctx -> {
                  ctx.getSystem()
                      .receptionist()
                      .tell(Receptionist.subscribe(ServerActor.SERVER_KEY, ctx.getSelf().narrow()));
                  timers.startSingleTimer(Lost.TIMEOUT, patience);
                  return Behaviors.receive(Object.class)
                      .onMessage(
                          Receptionist.Listing.class,
                          listing -> {
                            if (listing.getServiceInstances(ServerActor.SERVER_KEY).isEmpty()) {
                              if (!timers.isTimerActive(Lost.TIMEOUT)) {
                                timers.startSingleTimer(Lost.TIMEOUT, patience);
                              }
                            } else {
                              timers.cancel(Lost.TIMEOUT);
                            }
                            return Behaviors.same();
                          })
                      .onMessageEquals(
                          Lost.TIMEOUT,
                          () -> {
                            ctx.getLog()
                                .warn(
                                    "no server in this cluster for {} s; leaving it to join the"
                                        + " servers again (jobs keep running)",
                                    patience.toSeconds());
                            ctx.getSystem().terminate();
                            return Behaviors.stopped();
                          })
                      .build();
                }));
  }
}

package dev.berth.scheduler;

import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * Runs scheduling cycles off the server's thread: each {@link Schedule} carries an immutable view
 * of the cluster and gets one {@link Plan} back. The server re-checks every decision against its
 * current state before it records a start, so a plan made from a view that is a little old is safe.
 */
public final class SchedulerActor {
  public sealed interface Command {}

  public record Schedule(ClusterView view, int maxDecisions, ActorRef<Plan> replyTo)
      implements Command {}

  private SchedulerActor() {}

  public static Behavior<Command> create() {
    return Behaviors.receive(Command.class)
        .onMessage(
            Schedule.class,
            s -> {
              s.replyTo().tell(Planner.plan(s.view(), s.maxDecisions()));
              return Behaviors.same();
            })
        .build();
  }
}

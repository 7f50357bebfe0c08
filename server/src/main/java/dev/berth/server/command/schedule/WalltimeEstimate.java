package dev.berth.server.command.schedule;

import dev.berth.core.Durations;
import dev.berth.core.ServerAttributeNames;
import dev.berth.proto.Job;
import dev.berth.proto.Queue;
import dev.berth.scheduler.RunningJob;
import dev.berth.server.state.ClusterState;
import java.util.Map;
import java.util.Optional;

/**
 * When the scheduler plans a running job without a walltime to end, so that a reservation for the
 * head job can count on it ending (a job that has not started is planned with no end: it may start
 * only where nothing reserved later needs its nodes, and holds them forever in the plan): its
 * queue's {@code resources_default.walltime}, else the server's (a job submitted before the default
 * was set has none), else its queue's, then the server's {@code resources_max.walltime}, else
 * {@link #DEFAULT}. It only plans: the job is not killed at it, and one that outruns it is planned
 * to end one more estimate later.
 */
public record WalltimeEstimate(long seconds, String source) {
  /** The estimate where no queue or server attribute gives one: an hour. */
  public static final long DEFAULT = 3600;

  /** The estimate for {@code job}; empty when it has a walltime of its own. */
  public static Optional<WalltimeEstimate> of(Job job, ClusterState s) {
    if (job.getResources().getWalltime() > 0) {
      return Optional.empty();
    }
    Map<String, String> queue =
        s.queue(job.getQueue()).map(Queue::getAttributesMap).orElse(Map.of());
    Map<String, String> server = s.serverAttributes();
    for (String kind : new String[] {ServerAttributeNames.RESOURCES_DEFAULT, "resources_max"}) {
      String attribute = kind + ".walltime";
      Optional<WalltimeEstimate> e =
          from(queue, attribute, attribute + " of queue " + job.getQueue())
              .or(() -> from(server, attribute, attribute + " of the server"));
      if (e.isPresent()) {
        return e;
      }
    }
    return Optional.of(new WalltimeEstimate(DEFAULT, "the server's estimate for jobs without one"));
  }

  private static Optional<WalltimeEstimate> from(
      Map<String, String> attributes, String name, String source) {
    String value = attributes.get(name);
    if (value == null) {
      return Optional.empty();
    }
    long seconds = Durations.parseSeconds(value);
    return seconds > 0 ? Optional.of(new WalltimeEstimate(seconds, source)) : Optional.empty();
  }

  /**
   * When a job that started at {@code start} is planned to end at {@code now}: its estimate after
   * the start, or as many estimates more as it has outrun.
   */
  public long endAt(long start, long now) {
    return RunningJob.renewedEnd(start, seconds, now);
  }
}

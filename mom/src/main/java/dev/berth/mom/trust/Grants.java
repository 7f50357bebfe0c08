package dev.berth.mom.trust;

import dev.berth.proto.JoinJob;
import dev.berth.proto.Letter;
import dev.berth.proto.NodeAllocation;
import dev.berth.proto.RunJob;
import dev.berth.security.NotTrustedException;
import dev.berth.security.Role;
import dev.berth.security.seal.Seal;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * Whether a JOIN_JOB shows a real placement: the server's sealed run request (without its script)
 * for the mother superior, which names this node among the job's nodes. The sister takes the job
 * from the grant, never from the request, so a mother superior cannot change the owner, the
 * resources or the nodes. A grant is good for a while after the server sealed it (sisters are asked
 * to join when the job starts), and not again for a job that already ended here: a compromised
 * mother superior cannot replay an old grant to run tasks as the job's owner after the job is gone.
 */
public final class Grants {
  /** Sisters join within a minute of the start; clocks of the hosts may differ by a few more. */
  public static final Duration VALIDITY = Duration.ofMinutes(10);

  private final Seal seal;
  private final String self;
  private final Clock clock;

  /** Jobs that ended on this node, with when: no grant sealed before that is taken again. */
  private final Map<String, Long> ended = new HashMap<>();

  public Grants(Seal seal, String self, Clock clock) {
    this.seal = seal;
    this.self = self;
    this.clock = clock;
  }

  /** The join with the job as the server placed it; fails with the reason the grant is bad. */
  public JoinJob check(JoinJob join) throws NotTrustedException {
    String jobId = join.getJob().getId();
    Seal.Opened grant = seal.openHandedOn(join.getGrant());
    Letter letter = grant.letter();
    if (grant.from().role() != Role.SERVER) {
      throw new NotTrustedException("JOIN_JOB for " + jobId + ": its grant is not the server's");
    }
    if (!letter.getTo().equals(join.getMotherSuperior()) || !letter.getToMom().hasRun()) {
      throw new NotTrustedException(
          "JOIN_JOB for "
              + jobId
              + ": its grant is not a run request for "
              + join.getMotherSuperior());
    }
    RunJob run = letter.getToMom().getRun();
    if (!run.getJob().getId().equals(jobId)) {
      throw new NotTrustedException(
          "JOIN_JOB for " + jobId + ": its grant is for job " + run.getJob().getId());
    }
    long age = clock.millis() - letter.getSentMillis();
    if (Math.abs(age) > VALIDITY.toMillis()) {
      throw new NotTrustedException(
          "JOIN_JOB for " + jobId + ": its grant was sealed " + age / 1000 + " s ago");
    }
    if (run.getJob().getExecNodesList().stream()
        .map(NodeAllocation::getNode)
        .noneMatch(self::equals)) {
      throw new NotTrustedException(
          "JOIN_JOB for " + jobId + ": the server did not place it on " + self);
    }
    Long end = ended.get(jobId);
    if (end != null && letter.getSentMillis() <= end) {
      throw new NotTrustedException(
          "JOIN_JOB for " + jobId + ": it already ended here, and its grant is older than that");
    }
    return join.toBuilder().setJob(run.getJob()).build();
  }

  /** A sister job ended here: its grants are spent. */
  public void ended(String jobId) {
    long now = clock.millis();
    ended.values().removeIf(t -> now - t > VALIDITY.toMillis());
    ended.put(jobId, now);
  }
}

package dev.berth.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.berth.proto.Job;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FairShareTest {
  private static final double EPS = 1e-9;

  @Test
  void usingMoreThanYourShareLowersYourFactor() {
    FairShare f =
        new FairShare(Map.of("alice", 300.0, "bob", 100.0), Map.of(), Map.of(), Map.of(), 1);
    // equal shares (1/2 each); alice used 3/4, bob 1/4
    assertEquals(Math.pow(2, -1.5), f.users().factor("alice"), EPS);
    assertEquals(Math.pow(2, -0.5), f.users().factor("bob"), EPS);
    assertEquals(1.0, f.users().factor("carol"), EPS, "nothing used: full factor");
    assertEquals(1 / 3.0, f.users().normalizedShares("carol"), EPS, "counted among the others");
  }

  @Test
  void usingExactlyYourShareIsOneHalf() {
    FairShare f =
        new FairShare(
            Map.of("alice", 300.0, "bob", 100.0),
            Map.of("alice", 3L, "bob", 1L),
            Map.of(),
            Map.of(),
            1);
    assertEquals(0.5, f.users().factor("alice"), EPS);
    assertEquals(0.5, f.users().factor("bob"), EPS);
    assertEquals(0.75, f.users().normalizedShares("alice"), EPS);
    assertEquals(0.75, f.users().effectiveUsage("alice"), EPS);
  }

  @Test
  void aJobsFactorIsItsUsersTimesItsAccounts() {
    FairShare f =
        new FairShare(
            Map.of("alice", 100.0, "bob", 100.0),
            Map.of(),
            Map.of("physics", 200.0, "chemistry", 0.0),
            Map.of(),
            1);
    Job inPhysics = Job.newBuilder().setEuser("alice").setAccount("physics").build();
    Job byGroup = Job.newBuilder().setEuser("bob").setEgroup("chemistry").build();
    assertEquals("physics", FairShare.account(inPhysics));
    assertEquals("chemistry", FairShare.account(byGroup), "without -A, the job's group");
    assertEquals(0.5 * 0.25, f.factor(inPhysics), EPS);
    assertEquals(0.5 * 1.0, f.factor(byGroup), EPS);
    assertEquals(1.0, FairShare.NONE.factor(inPhysics), EPS);
  }

  @Test
  void usageHalvesEveryHalfLife() {
    long day = 86_400;
    DecayedUsage u = DecayedUsage.NONE.plus(100, 1_000_000, day);
    assertEquals(100, u.at(1_000_000, day), EPS);
    assertEquals(50, u.at(1_000_000 + day * 1000, day), EPS);
    DecayedUsage more = u.plus(10, 1_000_000 + day * 1000, day);
    assertEquals(new DecayedUsage(60, 1_000_000 + day * 1000), more);
    assertEquals(100, u.at(0, day), EPS, "a clock stepping back decays nothing");
  }
}

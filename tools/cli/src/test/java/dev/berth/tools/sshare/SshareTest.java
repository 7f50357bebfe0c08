package dev.berth.tools.sshare;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.berth.client.testing.FakeServer;
import dev.berth.proto.FairShareEntry;
import dev.berth.proto.FairShareList;
import dev.berth.proto.Response;
import dev.berth.tools.testing.Run;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** sshare over the scheduler's fair share, in Slurm 22.05's columns (docs/slurm.md, sshare). */
class SshareTest {
  private static FairShareEntry entry(String name, long shares, double norm, double usage) {
    return FairShareEntry.newBuilder()
        .setName(name)
        .setRawShares(shares)
        .setNormShares(norm)
        .setRawUsage(usage)
        .setEffectiveUsage(usage / 150)
        .setFactor(Math.pow(2, -(usage / 150) / norm))
        .build();
  }

  private static Run sshare(FairShareList list, String... args) {
    FakeServer server = new FakeServer(r -> Response.newBuilder().setFairShare(list).build());
    return Run.of(Sshare::run, server, Map.of("TZ", "UTC", "USER", "berth-alice"), "sshare", args);
  }

  private static final FairShareList EVERYONE =
      FairShareList.newBuilder()
          .addAccounts(entry("physics", 40, 0.4, 100))
          .addAccounts(entry("chemistry", 60, 0.6, 50))
          .addUsers(entry("berth-alice", 1, 0.5, 100))
          .addUsers(entry("bob", 1, 0.5, 50))
          .build();

  @Test
  void rootAccountsAndTheCallersOwnLine() {
    Run r = sshare(EVERYONE);
    assertEquals(0, r.status(), r.err());
    assertEquals(
        "Account                    User  RawShares  NormShares    RawUsage  EffectvUsage  FairShare \n"
            + "-------------------- ---------- ---------- ----------- ----------- ------------- ---------- \n"
            + "root                                          0.000000         150      1.000000            \n"
            + " physics                                40    0.400000         100      0.666667   0.314980 \n"
            + " chemistry                              60    0.600000          50      0.333333   0.680395 \n"
            + " root                berth-ali+          1    0.500000         100      0.666667   0.396850 \n",
        r.out());
  }

  @Test
  void everyUserParsableAndUsersOnly() {
    assertEquals(
        "Account|User|RawShares|NormShares|RawUsage|EffectvUsage|FairShare|\n"
            + " root|bob|1|0.500000|50|0.333333|0.629961|\n",
        sshare(EVERYONE, "-p", "-u", "bob")
            .out()
            .replaceAll("(?m)^(root| physics| chemistry)\\|.*\n", ""));
    assertEquals(
        "root|berth-alice|1|0.500000|100|0.666667|0.396850\nroot|bob|1|0.500000|50|0.333333|0.629961\n",
        sshare(EVERYONE, "-P", "-n", "-U", "-a").out());
    assertEquals(
        "physics||40|0.400000|100|0.666667|0.314980\n",
        sshare(EVERYONE, "-P", "-n", "-A", "physics").out());
  }

  @Test
  void aUserWhoMayNotSeeEveryonesUsageSeesTheirOwnLineOnly() {
    FairShareList own =
        FairShareList.newBuilder().addUsers(entry("berth-alice", 1, 0.5, 100)).build();
    assertEquals(
        " root|berth-alice|1|0.500000|100|0.666667|0.396850\n", sshare(own, "-P", "-n").out());
    assertEquals(1, sshare(own, "-l").status());
  }
}

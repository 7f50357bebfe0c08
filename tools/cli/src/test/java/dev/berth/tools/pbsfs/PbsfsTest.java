package dev.berth.tools.pbsfs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.berth.client.testing.FakeServer;
import dev.berth.proto.Error;
import dev.berth.proto.FairShareEntry;
import dev.berth.proto.FairShareList;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.proto.StatFairShare;
import dev.berth.tools.testing.Run;
import java.util.List;
import org.junit.jupiter.api.Test;

class PbsfsTest {
  private static final FairShareList LIST =
      FairShareList.newBuilder()
          .setHalfLife(604800)
          .addAccounts(entry("physics", 40, 0.8, 3600, 0.75, Math.pow(2, -0.9375)))
          .addUsers(entry("alice", 1, 0.5, 3600, 1.0, 0.25))
          .build();

  private static FairShareEntry entry(
      String name, long shares, double norm, double usage, double effective, double factor) {
    return FairShareEntry.newBuilder()
        .setName(name)
        .setRawShares(shares)
        .setNormShares(norm)
        .setRawUsage(usage)
        .setEffectiveUsage(effective)
        .setFactor(factor)
        .build();
  }

  private static FairShareServer server() {
    return new FairShareServer();
  }

  /** Answers StatFairShare with {@link #LIST}, and records what was asked. */
  private static final class FairShareServer {
    final FakeServer fake =
        new FakeServer(
            r ->
                r.hasStatFairShare()
                    ? Response.newBuilder().setFairShare(LIST).build()
                    : FakeServer.error(Error.Code.UNKNOWN_REQUEST, "unexpected"));
  }

  @Test
  void aTableOfAccountsThenUsers() {
    FairShareServer s = server();
    Run run = Run.of(Pbsfs::run, s.fake, "pbsfs");
    assertEquals(0, run.status(), run.err());
    assertEquals(
        "Fair-share usage in CPU-seconds, halving every 604800 s\n\n"
            + "Type     Name                  RawShares  NormShares       RawUsage  EffectvUsage"
            + "  FairShare\n"
            + "-------- -------------------- ---------- ----------- -------------- -------------"
            + " ----------\n"
            + "account  physics                      40    0.800000           3600      0.750000"
            + "   0.522137\n"
            + "user     alice                         1    0.500000           3600      1.000000"
            + "   0.250000\n",
        run.out());
    assertEquals(
        List.of(Request.newBuilder().setStatFairShare(StatFairShare.getDefaultInstance()).build()),
        s.fake.requests());
  }

  @Test
  void namedUsersAndJson() {
    FairShareServer s = server();
    Run run = Run.of(Pbsfs::run, s.fake, "pbsfs", "-F", "json", "alice");
    assertEquals(0, run.status(), run.err());
    assertEquals(
        "{\n"
            + "    \"half_life\":604800,\n"
            + "    \"accounts\":{\n"
            + "        \"physics\":{\n"
            + "            \"raw_shares\":40,\n"
            + "            \"norm_shares\":0.8,\n"
            + "            \"raw_usage\":3600,\n"
            + "            \"effective_usage\":0.75,\n"
            + "            \"fair_share\":0.522137\n"
            + "        }\n"
            + "    },\n"
            + "    \"users\":{\n"
            + "        \"alice\":{\n"
            + "            \"raw_shares\":1,\n"
            + "            \"norm_shares\":0.5,\n"
            + "            \"raw_usage\":3600,\n"
            + "            \"effective_usage\":1,\n"
            + "            \"fair_share\":0.25\n"
            + "        }\n"
            + "    }\n"
            + "}\n",
        run.out());
    assertEquals(List.of("alice"), s.fake.requests().get(0).getStatFairShare().getUsersList());
  }

  @Test
  void aBadFormatIsAUsageError() {
    Run run = Run.of(Pbsfs::run, server().fake, "pbsfs", "-F", "xml");
    assertEquals(2, run.status());
    assertEquals(
        "pbsfs: -F takes 'json', not 'xml'\nusage: pbsfs [-F json] [user...]\n", run.err());
  }
}

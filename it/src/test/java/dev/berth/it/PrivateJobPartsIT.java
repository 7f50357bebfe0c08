package dev.berth.it;

import static dev.berth.it.TestUsers.ALICE;
import static dev.berth.it.TestUsers.BOB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.proto.StatJobs;
import dev.berth.proto.TraceJob;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A job's environment (Variable_List) and script stay with its owner. With query_other_jobs on, bob
 * may see that alice has a job, but no command and no request of his own client returns its
 * variables or its script; alice, managers and operators see the variables, and no reply carries a
 * script at all.
 */
@Tag("integration")
class PrivateJobPartsIT {
  private static final String SECRET = "s3cr3t-token-value";
  private static final String SCRIPT_MARK = "only-in-the-script";

  static TestCluster cluster;
  static Path script;
  static String id;

  @BeforeAll
  static void aliceSubmitsAJobWithASecret() throws IOException {
    TestUsers.ensure(ALICE, BOB);
    cluster = TestCluster.start(false);
    assertEquals(0, cluster.cli("qmgr", "-c", "create node n1 np=2").exit());
    assertEquals(0, cluster.cli("qmgr", "-c", "set server query_other_jobs = True").exit());
    Path home = TestUsers.home(ALICE);
    script = home.resolve("secret.pbs");
    Files.writeString(script, "echo " + SCRIPT_MARK + "\n");
    TestCluster.exec(Path.of("/"), List.of("chown", ALICE, script.toString()));
    TestCluster.Result r =
        cluster.runAs(ALICE, home, "qsub", "-h", "-v", "TOKEN=" + SECRET, script.toString());
    assertEquals(0, r.exit(), r.toString());
    id = r.out().trim();
  }

  @AfterAll
  static void stop() throws IOException {
    cluster.close();
    Files.deleteIfExists(script);
  }

  @Test
  void theOwnerAndRootSeeTheVariables() {
    Path home = TestUsers.home(ALICE);
    TestCluster.Result own = cluster.runAs(ALICE, home, "qstat", "-f", id);
    assertEquals(0, own.exit(), own.toString());
    assertTrue(own.out().contains("TOKEN=" + SECRET), own.out());
    assertTrue(cluster.cli("qstat", "-f", id).out().contains("TOKEN=" + SECRET));
  }

  @Test
  void bobSeesTheJobButNotItsEnvironmentOrScriptThroughAnyCommand() {
    Path home = TestUsers.home(BOB);
    for (List<String> command :
        List.of(
            List.of("qstat", "-f", id),
            List.of("qstat", "-f", "-F", "json", id),
            List.of("qstat", "-x", id),
            List.of("qstat", "-f"),
            List.of("tracejob", id))) {
      TestCluster.Result r =
          cluster.runAs(
              BOB, home, command.get(0), command.subList(1, command.size()).toArray(String[]::new));
      assertEquals(0, r.exit(), command + ": " + r);
      assertTrue(r.out().contains(id), command + " shows the job: " + r.out());
      assertFalse(r.out().contains(SECRET), command + ": " + r.out());
      assertFalse(r.out().contains("Variable_List"), command + ": " + r.out());
    }
  }

  @Test
  void bobsOwnClientGetsNeitherEither() throws IOException {
    List<Response> replies =
        RawClient.send(
            BOB,
            cluster.socket,
            List.of(
                Request.newBuilder().setStatJobs(StatJobs.newBuilder().addJobIds(id)).build(),
                Request.newBuilder().setStatJobs(StatJobs.getDefaultInstance()).build(),
                Request.newBuilder()
                    .setStatJobs(StatJobs.newBuilder().addJobIds(id).setIncludeSubjobs(true))
                    .build(),
                Request.newBuilder().setTraceJob(TraceJob.newBuilder().setJobId(id)).build()));
    for (Response r : replies) {
      assertFalse(r.hasError(), r.toString());
      assertFalse(r.toString().contains(SECRET), r.toString());
      assertFalse(r.toString().contains(SCRIPT_MARK), r.toString());
    }
    assertEquals(0, replies.get(0).getJobs().getJobs(0).getVariablesCount());
  }

  @Test
  void noReplyCarriesTheScriptEvenToItsOwner() throws IOException {
    Response trace =
        RawClient.send(
                ALICE,
                cluster.socket,
                List.of(
                    Request.newBuilder().setTraceJob(TraceJob.newBuilder().setJobId(id)).build()))
            .get(0);
    assertTrue(trace.hasTrace(), trace.toString());
    assertTrue(trace.toString().contains(SECRET), "the owner's trace keeps her variables");
    assertFalse(trace.toString().contains(SCRIPT_MARK), trace.toString());
  }
}

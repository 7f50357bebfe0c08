package dev.berth.server.query;

import static dev.berth.server.testing.Driver.ALICE;
import static dev.berth.server.testing.Driver.attr;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.core.AttributeNames;
import dev.berth.proto.Job;
import dev.berth.proto.OutputCheck;
import dev.berth.proto.OutputGrant;
import dev.berth.server.testing.Driver;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A relay writes a job's output on its host only when the server grants it: for the job's mother
 * superior, for a stream whose path names that host, and with nothing of the job beyond where the
 * stream goes and whose it is.
 */
class OutputGrantsTest {
  private Driver d;
  private String id;
  private String ms;

  @BeforeEach
  void runningJob() {
    d = Driver.withTwoNodes();
    id =
        d.submit(
            ALICE,
            attr(AttributeNames.OUTPUT_PATH, "login1:/home/alice/out"),
            attr(AttributeNames.ERROR_PATH, "login2:/home/alice/err"),
            attr("Variable_List", "SECRET=1"));
    d.schedule();
    d.started(id);
    ms = d.motherSuperior(id);
  }

  private OutputGrant grant(String host, String node, String stream) {
    return OutputGrants.grant(
        d.state,
        host,
        OutputCheck.newBuilder().setJobId(id).setNode(node).setStream(stream).build());
  }

  @Test
  void theMotherSuperiorMayDeliverAStreamToTheHostItsPathNames() {
    OutputGrant g = grant("login1", ms, "o");
    assertEquals("", g.getRefusal());
    Job job = g.getJob();
    assertEquals(id, job.getId());
    assertEquals("alice", job.getEuser());
    assertEquals("login1:/home/alice/out", job.getOutputPath());
    assertEquals(0, job.getVariablesCount(), "the job's environment stays on the server");
    assertEquals("", grant("LOGIN2", ms, "e").getRefusal());
  }

  @Test
  void anyOtherNodeHostOrStreamIsRefused() {
    String other = ms.equals("n1") ? "n2" : "n1";
    assertTrue(grant("login1", other, "o").getRefusal().contains("not the mother superior"));
    assertTrue(
        grant("login2", ms, "o").getRefusal().contains("goes to host login1, not to login2"));
    assertTrue(grant("login1", ms, "x").getRefusal().contains("no output stream"));
    assertTrue(
        OutputGrants.grant(
                d.state,
                "login1",
                OutputCheck.newBuilder().setJobId("99.s").setNode(ms).setStream("o").build())
            .getRefusal()
            .contains("no job 99.s"));
  }

  @Test
  void aStreamTheJobKeepsIsNotDelivered() {
    d = Driver.withTwoNodes();
    id =
        d.submit(
            ALICE,
            attr(AttributeNames.OUTPUT_PATH, "login1:/home/alice/out"),
            attr(AttributeNames.KEEP_FILES, "o"));
    d.schedule();
    d.started(id);
    ms = d.motherSuperior(id);
    assertTrue(grant("login1", ms, "o").getRefusal().contains("(-k)"));
  }

  @Test
  void aJobThatHasNotRunHasNoOutput() {
    String queued = d.submit(ALICE, attr(AttributeNames.OUTPUT_PATH, "login1:/o"));
    OutputGrant g =
        OutputGrants.grant(
            d.state,
            "login1",
            OutputCheck.newBuilder().setJobId(queued).setNode(ms).setStream("o").build());
    assertTrue(g.getRefusal().contains("has not run"), g.getRefusal());
  }
}

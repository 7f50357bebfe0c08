package dev.berth.server.command.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.proto.JobObitReport;
import dev.berth.proto.JobState;
import dev.berth.proto.Manage;
import dev.berth.proto.Node;
import dev.berth.proto.NodeStatusReport;
import dev.berth.proto.ServerInbound;
import dev.berth.server.testing.Driver;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What the server makes of the moms' site scripts: a start that failed in a prologue or health
 * check requeues the job (held after three in a row), and the node health check takes its node
 * offline and brings it back, leaving an operator's offline alone.
 */
class SiteScriptsTest {
  private final Driver d = Driver.withTwoNodes();

  private void failedStart(String id) {
    d.schedule();
    String node = d.motherSuperior(id);
    d.fromNode(
        node,
        ServerInbound.newBuilder()
            .setObit(
                JobObitReport.newBuilder()
                    .setNode(node)
                    .setJobId(id)
                    .setExitStatus(-1)
                    .setEndTime(d.nowSeconds())
                    .setReason("prologue failed on " + node + ": prologue exited with status 2")
                    .setRequeue(true)));
  }

  @Test
  void aFailedPrologueRequeuesTheJobWithTheReason() {
    String id = d.submit(Driver.ALICE);
    failedStart(id);
    assertEquals(JobState.QUEUED, d.job(id).getState());
    assertEquals(
        "requeued: prologue failed on n1: prologue exited with status 2", d.job(id).getComment());
    assertEquals(1, d.job(id).getFailedStarts());
    assertEquals(List.of(), d.job(id).getExecNodesList(), "its CPUs are free again");
  }

  @Test
  void threeFailedStartsInARowHoldTheJobAndAStartInBetweenResetsTheCount() {
    String id = d.submit(Driver.ALICE);
    failedStart(id);
    failedStart(id);
    assertEquals(JobState.QUEUED, d.job(id).getState());
    failedStart(id);
    assertEquals(JobState.HELD, d.job(id).getState());
    assertTrue(d.job(id).getHolds().getSystem());
    assertTrue(
        d.job(id).getComment().startsWith("held: its start failed 3 times in a row, the last: "),
        d.job(id).getComment());

    String other = d.submit(Driver.ALICE);
    failedStart(other);
    failedStart(other);
    d.schedule();
    d.started(other);
    assertEquals(0, d.job(other).getFailedStarts(), "it ran");
  }

  @Test
  void aDeletedJobWhoseStartFailedEndsRatherThanReturning() {
    String id = d.submit(Driver.ALICE);
    d.schedule();
    d.qdel(Driver.ALICE, id);
    String node = d.motherSuperior(id);
    d.fromNode(
        node,
        ServerInbound.newBuilder()
            .setObit(
                JobObitReport.newBuilder()
                    .setNode(node)
                    .setJobId(id)
                    .setExitStatus(-1)
                    .setReason("prologue failed")
                    .setRequeue(true)));
    assertEquals(JobState.COMPLETED, d.job(id).getState());
  }

  private void offline(String node) {
    d.qmgr(
        Driver.ROOT,
        Manage.Command.SET,
        Manage.ObjectType.NODE,
        List.of(node),
        Driver.attr("state", "offline"));
  }

  private Node node(String name) {
    return d.state.node(name).orElseThrow();
  }

  private void health(String node, String error) {
    d.fromNode(
        node,
        ServerInbound.newBuilder()
            .setStatus(NodeStatusReport.newBuilder().setNode(node).setHealthError(error)));
  }

  @Test
  void anUnwellNodeGoesOfflineWithTheMessageAndComesBackWhenWell() {
    health("n1", "ERROR: /scratch is full");
    assertTrue(node("n1").getOffline());
    assertEquals("ERROR: /scratch is full", node("n1").getNote());
    String id = d.submit(Driver.ALICE);
    d.schedule();
    assertEquals("n2", d.motherSuperior(id), "no job lands on the unwell node");

    health("n1", "ERROR: /tmp is full");
    assertEquals("ERROR: /tmp is full", node("n1").getNote(), "the latest reason");
    health("n1", "");
    assertFalse(node("n1").getOffline());
    assertEquals("", node("n1").getNote());
    assertFalse(node("n1").getOfflineForHealth());
  }

  @Test
  void anOperatorsOfflineStaysWhateverTheCheckSays() {
    offline("n1");
    health("n1", "ERROR: disk");
    assertEquals("", node("n1").getNote(), "the operator's node is left as it is");
    health("n1", "");
    assertTrue(node("n1").getOffline());

    health("n2", "ERROR: disk");
    offline("n2");
    health("n2", "");
    assertTrue(node("n2").getOffline(), "offlined by the operator meanwhile: it stays");
  }

  @Test
  void aReportThatChangesNothingWritesNothing() {
    int before = d.journal.size();
    health("n1", "");
    assertEquals(before, d.journal.size());
    assertFalse(NodeHealth.changes(node("n1"), ""));
    assertTrue(NodeHealth.changes(node("n1"), "ERROR: x"));
  }
}

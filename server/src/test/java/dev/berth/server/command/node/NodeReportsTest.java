package dev.berth.server.command.node;

import static dev.berth.server.testing.Driver.ALICE;
import static dev.berth.server.testing.Driver.ROOT;
import static dev.berth.server.testing.Driver.attr;
import static dev.berth.server.testing.Driver.resource;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.core.AttributeNames;
import dev.berth.proto.Event;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import dev.berth.proto.Manage;
import dev.berth.proto.MomInbound;
import dev.berth.proto.Node;
import dev.berth.proto.NodeHello;
import dev.berth.proto.RunJobRejected;
import dev.berth.proto.ServerInbound;
import dev.berth.proto.UnaccountedJob;
import dev.berth.server.command.Decider;
import dev.berth.server.command.Outcome;
import dev.berth.server.testing.Driver;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What moms report. Every report may come twice; the second changes nothing and is acked again. */
class NodeReportsTest {
  private Driver d;

  @BeforeEach
  void cluster() {
    d = Driver.withTwoNodes();
  }

  private static List<MomInbound.BodyCase> noticeKinds(Outcome out) {
    return out.notices().stream().map(n -> n.message().getBodyCase()).toList();
  }

  /** A job with 2 CPUs on each node, so n1 is its mother superior and n2 a sister. */
  private String dispatchedOnBothNodes() {
    String id = d.submit(ALICE, resource("nodes", "2:ppn=2"));
    assertEquals(List.of(id), d.schedule());
    assertEquals("n1", d.motherSuperior(id));
    return id;
  }

  @Test
  void aNewMomRegistersItsNode() {
    Node n = d.state.node("n1").orElseThrow();
    assertTrue(n.getRegistered());
    assertFalse(n.getDown());
    assertEquals(4, n.getNp());
    assertEquals("cluster", n.getNtype());
  }

  @Test
  void aRepeatedHelloChangesNothing() {
    int mark = d.journal.size();
    Outcome out = d.hello("n1", 4);
    assertEquals(mark, d.journal.size());
    assertTrue(out.notices().isEmpty());
  }

  @Test
  void helloKeepsWhatAnOperatorSetOnTheServer() {
    d.qmgr(
        ROOT,
        Manage.Command.SET,
        Manage.ObjectType.NODE,
        List.of("n1"),
        attr("state", "offline"),
        attr("note", "fan noise"),
        attr("properties", "fast,ib"));
    d.hello(Driver.node("n1", 8, "other"));
    Node n = d.state.node("n1").orElseThrow();
    assertTrue(n.getOffline());
    assertEquals("fan noise", n.getNote());
    assertEquals(List.of("fast", "ib"), n.getPropertiesList());
    assertEquals(8, n.getNp(), "CPUs come from the mom");
  }

  @Test
  void startedIsRecordedOnceAndAckedEveryTime() {
    String id = dispatchedOnBothNodes();
    int mark = d.journal.size();
    Outcome first = d.started(id);
    assertEquals(List.of(Event.BodyCase.JOB_STARTED), kinds(d.eventsSince(mark)));
    assertEquals(List.of(MomInbound.BodyCase.STARTED_ACK), noticeKinds(first));
    assertEquals(4242, d.job(id).getSessionId());
    int again = d.journal.size();
    Outcome second = d.started(id);
    assertEquals(again, d.journal.size(), "a repeated started report records nothing");
    assertEquals(List.of(MomInbound.BodyCase.STARTED_ACK), noticeKinds(second));
  }

  @Test
  void startedFromASisterIsNotTheStartOfTheJob() {
    String id = dispatchedOnBothNodes();
    int mark = d.journal.size();
    Outcome out = d.started("n2", id);
    assertEquals(mark, d.journal.size());
    assertEquals(List.of(MomInbound.BodyCase.STARTED_ACK), noticeKinds(out));
    assertEquals(0, d.job(id).getStartTime());
  }

  @Test
  void startedFromANodeTheJobNoLongerRunsOnGetsAKill() {
    String id = dispatchedOnBothNodes();
    Outcome out = d.started("n3", id);
    assertEquals(
        List.of(MomInbound.BodyCase.KILL, MomInbound.BodyCase.STARTED_ACK), noticeKinds(out));
    assertEquals(0, d.job(id).getStartTime(), "not the start of the job where it runs now");
  }

  @Test
  void startedForAJobTheServerNoLongerRunsGetsAKill() {
    String id = d.submit(ALICE);
    Outcome out = d.started("n1", id);
    assertEquals(
        List.of(MomInbound.BodyCase.KILL, MomInbound.BodyCase.STARTED_ACK), noticeKinds(out));
    assertEquals(JobState.QUEUED, d.job(id).getState());
  }

  @Test
  void obitIsRecordedOnceAndAckedEveryTime() {
    String id = dispatchedOnBothNodes();
    d.started(id);
    int mark = d.journal.size();
    Outcome first = d.obit(id, 3);
    assertEquals(List.of(Event.BodyCase.JOB_EXITED), kinds(d.eventsSince(mark)));
    assertEquals(List.of(MomInbound.BodyCase.OBIT_ACK), noticeKinds(first));
    Job j = d.job(id);
    assertEquals(JobState.COMPLETED, j.getState());
    assertEquals(3, j.getExitStatus());
    assertEquals(5, j.getResourcesUsed().getWalltime());
    assertTrue(d.state.usage("n1").idle() && d.state.usage("n2").idle());
    int again = d.journal.size();
    Outcome second = d.obit("n1", id, 0);
    assertEquals(again, d.journal.size(), "a repeated obit records nothing");
    assertEquals(List.of(MomInbound.BodyCase.OBIT_ACK), noticeKinds(second));
    assertEquals(3, d.job(id).getExitStatus());
  }

  @Test
  void obitFromANodeThatIsNotTheMotherSuperiorIsIgnored() {
    String id = dispatchedOnBothNodes();
    d.started(id);
    int mark = d.journal.size();
    Outcome out = d.obit("n2", id, 0);
    assertEquals(mark, d.journal.size());
    assertEquals(List.of(MomInbound.BodyCase.OBIT_ACK), noticeKinds(out));
    assertEquals(JobState.RUNNING, d.job(id).getState());
  }

  @Test
  void aRestartedMomThatLostARerunnableJobRequeuesIt() {
    String id = dispatchedOnBothNodes();
    d.started(id);
    int mark = d.journal.size();
    d.hello("n1", 4); // running_jobs does not list it
    assertEquals(List.of(Event.BodyCase.JOB_REQUEUED), kinds(d.eventsSince(mark)));
    Job j = d.job(id);
    assertEquals(JobState.QUEUED, j.getState());
    assertTrue(j.getComment().contains("its mother superior n1 restarted without it"));
    assertTrue(d.state.usage("n1").idle() && d.state.usage("n2").idle());
  }

  @Test
  void aRestartedMomThatLostAJobThatMayNotRerunEndsIt() {
    String id = d.submit(ALICE, attr(AttributeNames.RERUNABLE, "n"));
    d.schedule();
    d.started(id);
    int mark = d.journal.size();
    d.hello("n1", 4);
    List<Event> events = d.eventsSince(mark);
    assertEquals(List.of(Event.BodyCase.JOB_EXITED), kinds(events));
    assertEquals(-4, events.get(0).getJobExited().getExitStatus());
    assertTrue(events.get(0).getJobExited().getReason().contains("(not rerunnable)"));
    assertEquals(JobState.COMPLETED, d.job(id).getState());
  }

  @Test
  void aRestartedMomKeepsJobsItStillRunsAndIsToldToKillUnknownOnes() {
    String kept = d.submit(ALICE);
    String notStarted = d.submit(ALICE);
    d.schedule();
    d.started(kept);
    int mark = d.journal.size();
    Outcome out = d.hello("n1", 4, kept, "77.srv");
    assertEquals(mark, d.journal.size(), "nothing lost: " + kinds(d.eventsSince(mark)));
    assertEquals(JobState.RUNNING, d.job(kept).getState());
    assertEquals(JobState.RUNNING, d.job(notStarted).getState(), "its run request is retried");
    assertEquals(List.of(MomInbound.BodyCase.KILL), noticeKinds(out));
    assertEquals("77.srv", out.notices().get(0).message().getKill().getJobId());
  }

  @Test
  void aJobTheMomCouldNotStartEnds() {
    String id = d.submit(ALICE);
    d.schedule();
    int mark = d.journal.size();
    d.fromNode(
        "n1",
        ServerInbound.newBuilder()
            .setRunRejected(
                RunJobRejected.newBuilder().setNode("n1").setJobId(id).setReason("no user alice")));
    List<Event> events = d.eventsSince(mark);
    assertEquals(List.of(Event.BodyCase.JOB_EXITED), kinds(events));
    assertEquals(-1, events.get(0).getJobExited().getExitStatus());
    assertEquals("could not start on n1: no user alice", d.job(id).getExitReason());
  }

  @Test
  void aNodeThatGoesDownLosesItsJobsAndTheirSistersAreToldToKill() {
    String id = dispatchedOnBothNodes();
    d.started(id);
    int mark = d.journal.size();
    Outcome out = d.run(new Decider.NodeDown("n1"), "server");
    assertEquals(
        List.of(Event.BodyCase.NODE_UPDATED, Event.BodyCase.JOB_REQUEUED),
        kinds(d.eventsSince(mark)));
    assertTrue(d.state.node("n1").orElseThrow().getDown());
    assertEquals(JobState.QUEUED, d.job(id).getState());
    assertEquals(1, out.notices().size());
    assertEquals("n2", out.notices().get(0).node());
    assertEquals(MomInbound.BodyCase.KILL, out.notices().get(0).message().getBodyCase());
    int again = d.journal.size();
    d.run(new Decider.NodeDown("n1"), "server");
    assertEquals(again, d.journal.size(), "a node already down is not downed twice");
    assertEquals(List.of(), d.schedule(), "nothing fits on n2 alone");
  }

  private static List<Event.BodyCase> kinds(List<Event> events) {
    return events.stream().map(Event::getBodyCase).toList();
  }

  @Test
  void aNodeWhoseMomCannotCleanUpGoesOfflineWithTheReasonOnce() {
    ServerInbound.Builder trouble =
        ServerInbound.newBuilder()
            .setTrouble(
                dev.berth.proto.NodeTrouble.newBuilder()
                    .setNode("n2")
                    .setMessage("job 7.srv left a cgroup behind: busy"));
    d.fromNode("n2", trouble);
    Node n = d.state.node("n2").orElseThrow();
    assertTrue(n.getOffline());
    assertEquals("mom: job 7.srv left a cgroup behind: busy", n.getNote());
    int mark = d.journal.size();
    d.fromNode("n2", trouble);
    assertEquals(mark, d.journal.size(), "told twice, recorded once");
    d.submit(ALICE, resource("nodes", "n2:ppn=1"));
    assertEquals(List.of(), d.schedule(), "no job lands there");
  }

  /** A hello from {@code node} (4 CPUs) with what {@code hello} says about its jobs. */
  private Outcome hello(String node, NodeHello.Builder hello) {
    return d.fromNode(
        node, ServerInbound.newBuilder().setHello(hello.setNode(Driver.node(node, 4))));
  }

  private static NodeHello.Builder unaccounted(String jobId, String reason) {
    return NodeHello.newBuilder()
        .addUnaccountedJobs(UnaccountedJob.newBuilder().setJobId(jobId).setReason(reason));
  }

  @Test
  void aJobWhoseRecordItsMotherSuperiorCannotReadStaysRunningWithTheReasonAsComment() {
    String rerunnable = dispatchedOnBothNodes();
    d.started(rerunnable);
    String once =
        d.submit(ALICE, resource("nodes", "n1:ppn=1"), attr(AttributeNames.RERUNABLE, "n"));
    d.schedule();
    d.started(once);
    int mark = d.journal.size();
    NodeHello.Builder report =
        unaccounted(rerunnable, "InvalidProtocolBufferException: bad tag")
            .addUnaccountedJobs(UnaccountedJob.newBuilder().setJobId(once).setReason("EIO"));
    Outcome out = hello("n1", report.clone());
    assertEquals(
        List.of(Event.BodyCase.JOB_ALTERED, Event.BodyCase.JOB_ALTERED),
        kinds(d.eventsSince(mark)),
        "neither requeued nor ended");
    assertEquals(List.of(), noticeKinds(out), "nothing to kill: the mom leaves them alone");
    Job kept = d.job(rerunnable);
    assertEquals(JobState.RUNNING, kept.getState());
    assertEquals(4242, kept.getSessionId());
    assertEquals(
        "node n1 cannot read its record of the job (InvalidProtocolBufferException: bad tag):"
            + " the job is left as it is until an administrator fixes the records and restarts"
            + " the mom, or purges the job (qdel -p)",
        kept.getComment());
    assertEquals(JobState.RUNNING, d.job(once).getState());
    assertTrue(d.job(once).getComment().contains("(EIO)"), d.job(once).getComment());
    assertFalse(d.state.usage("n2").idle(), "its CPUs stay taken on every node");

    int again = d.journal.size();
    hello("n1", report.clone());
    assertEquals(again, d.journal.size(), "said once");

    d.qdelPurge(ROOT, rerunnable);
    assertEquals(JobState.COMPLETED, d.job(rerunnable).getState());
    assertTrue(d.state.usage("n2").idle(), "purged: the server frees its CPUs");
  }

  @Test
  void aSisterThatCannotReadTheJobsRecordLeavesItRunning() {
    String id = dispatchedOnBothNodes();
    d.started(id);
    int mark = d.journal.size();
    Outcome out = hello("n2", unaccounted(id, "NoSuchFileException: run.pb"));
    assertEquals(List.of(Event.BodyCase.JOB_ALTERED), kinds(d.eventsSince(mark)));
    assertEquals(List.of(), noticeKinds(out));
    assertEquals(JobState.RUNNING, d.job(id).getState());
    assertTrue(d.job(id).getComment().startsWith("node n2 cannot read"), d.job(id).getComment());
  }

  @Test
  void aMomThatCannotReadItsRecordsAtAllLosesNoneOfItsJobs() {
    String started = d.submit(ALICE, resource("nodes", "n1:ppn=1"));
    String notYetStarted = d.submit(ALICE, resource("nodes", "n1:ppn=1"));
    d.schedule();
    d.started(started);
    int mark = d.journal.size();
    hello("n1", NodeHello.newBuilder().setUnreadableRecords("NotDirectoryException: /m/jobs"));
    assertEquals(
        List.of(Event.BodyCase.JOB_ALTERED, Event.BodyCase.JOB_ALTERED),
        kinds(d.eventsSince(mark)));
    for (String id : List.of(started, notYetStarted)) {
      assertEquals(JobState.RUNNING, d.job(id).getState());
      assertTrue(
          d.job(id).getComment().contains("(NotDirectoryException: /m/jobs)"),
          d.job(id).getComment());
    }
  }

  @Test
  void theCommentGoesOnceTheMomReadsTheRecordAgain() {
    String id = dispatchedOnBothNodes();
    d.started(id);
    hello("n1", unaccounted(id, "EIO"));
    int mark = d.journal.size();
    hello("n1", NodeHello.newBuilder().addRunningJobs(id));
    assertEquals(List.of(Event.BodyCase.JOB_ALTERED), kinds(d.eventsSince(mark)));
    assertEquals("node n1 reads its record of the job again", d.job(id).getComment());
    int again = d.journal.size();
    hello("n1", NodeHello.newBuilder().addRunningJobs(id));
    assertEquals(again, d.journal.size(), "said once");
  }

  @Test
  void aMomBackWithAJobThatNowRunsElsewhereIsToldToKillIt() {
    String id = d.submit(ALICE);
    d.schedule();
    String first = d.motherSuperior(id);
    String other = first.equals("n1") ? "n2" : "n1";
    d.started(id);
    d.run(new Decider.NodeDown(first), "server"); // requeued
    assertEquals(List.of(id), d.schedule());
    assertEquals(other, d.motherSuperior(id));
    d.started(id);
    int mark = d.journal.size();
    Outcome out = d.hello(first, 4, id);
    assertEquals(List.of(Event.BodyCase.NODE_UPDATED), kinds(d.eventsSince(mark)));
    assertEquals(List.of(MomInbound.BodyCase.KILL), noticeKinds(out));
    assertEquals(id, out.notices().get(0).message().getKill().getJobId());
    assertEquals(first, out.notices().get(0).node());
    assertEquals(JobState.RUNNING, d.job(id).getState(), "the copy the server knows runs on");
  }

  @Test
  void aMomsTerminalAddressIsTakenOnlyAsHostAndPort() {
    for (String good : List.of("", "n1:15004", "10.0.0.7:40000", "[fe80::1]:22", "a-b.c_d:1")) {
      assertTrue(NodeReports.terminalAddressWellFormed(good), good);
    }
    for (String bad :
        List.of("n1", "n1:0", "n1:70000", "n1:", ":80", "evil host:1", "x\n:1", "n1:1:2x")) {
      assertFalse(NodeReports.terminalAddressWellFormed(bad), bad);
    }
    Driver d = Driver.withTwoNodes();
    Node n1 = d.state.node("n1").orElseThrow();
    d.hello(n1.toBuilder().setTerminalAddress("evil host:1").build());
    assertEquals("", d.state.node("n1").orElseThrow().getTerminalAddress());
    d.hello(n1.toBuilder().setTerminalAddress("n1:4711").build());
    assertEquals("n1:4711", d.state.node("n1").orElseThrow().getTerminalAddress());
  }
}

package dev.berth.server.command.schedule;

import static dev.berth.server.testing.Driver.ALICE;
import static dev.berth.server.testing.Driver.BOB;
import static dev.berth.server.testing.Driver.ROOT;
import static dev.berth.server.testing.Driver.attr;
import static dev.berth.server.testing.Driver.resource;
import static dev.berth.server.testing.RefusedCommands.refused;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.core.AttributeNames;
import dev.berth.proto.Error;
import dev.berth.proto.Event;
import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import dev.berth.proto.Manage;
import dev.berth.proto.NodeAllocation;
import dev.berth.scheduler.Plan;
import dev.berth.scheduler.RunDecision;
import dev.berth.server.command.Caller;
import dev.berth.server.command.Decider;
import dev.berth.server.state.ClusterState;
import dev.berth.server.state.NodeUsage;
import dev.berth.server.state.Snapshots;
import dev.berth.server.state.StateMachine;
import dev.berth.server.testing.Driver;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Preemption by suspending, through the server's decisions: queue express is a preemptor, batch's
 * jobs are suspended for it; alice's two jobs of 4 CPUs and 1 GiB fill both nodes, the second
 * started a minute after the first.
 */
class SuspendTest {
  private static final long GIB = 1L << 30;
  private Driver d;
  private String older;
  private String younger;

  @BeforeEach
  void fullCluster() {
    d = Driver.withTwoNodes();
    d.preemption("Suspend");
    older = runs(ALICE);
    d.advance(60);
    younger = runs(ALICE);
  }

  private String runs(Caller who) {
    String id =
        d.submit(
            who,
            resource("nodes", "1:ppn=4"),
            resource("mem", "1gb"),
            resource("walltime", "1:00:00"));
    assertEquals(List.of(id), d.schedule());
    d.started(id);
    return id;
  }

  private String express(String ppn) {
    return d.submit(
        BOB,
        attr(AttributeNames.DESTINATION, "express"),
        resource("nodes", "1:ppn=" + ppn),
        resource("walltime", "10:00"));
  }

  private String plain(String ppn) {
    return d.submit(BOB, resource("nodes", "1:ppn=" + ppn), resource("walltime", "10:00"));
  }

  /** Every node of the job reported it frozen (what Deliveries tells the server). */
  private void confirm(String id) {
    d.run(new Decider.SuspendConfirmed(id), "server");
  }

  private List<Event> events(int from, Event.BodyCase kind) {
    return d.eventsSince(from).stream().filter(e -> e.getBodyCase() == kind).toList();
  }

  @Test
  void aPreemptorsJobSuspendsTheYoungestRunsOnItsCpusAndItResumesAfter() {
    String node = d.motherSuperior(younger);
    String urgent = express("4");
    Plan plan = d.plan();
    assertEquals(
        "preempting job " + younger + " (suspended); it starts when they are suspended",
        plan.waitingOf(urgent).reason());
    int from = d.journal.size();
    assertEquals(List.of(), d.schedule(plan));
    assertEquals(1, events(from, Event.BodyCase.JOB_SUSPENDED).size());
    Job suspended = d.job(younger);
    assertEquals(JobState.RUNNING, suspended.getState(), "a suspended job still holds its nodes");
    assertEquals(d.nowSeconds(), suspended.getSuspendedAt());
    assertEquals(urgent, suspended.getSuspendedFor());
    assertEquals(
        "suspended: preempted by job " + urgent + " of queue express", suspended.getComment());
    assertEquals(Map.of(), d.state.usage(node).lentCpus(), "until its nodes have frozen it");
    assertEquals(List.of(), d.schedule());
    assertEquals(
        "it starts when jobs being preempted or deleted have made room",
        d.plan().waitingOf(urgent).reason(),
        "and nothing more is preempted meanwhile");

    confirm(younger);
    NodeUsage lent = d.state.usage(node);
    assertEquals(Map.of(0, younger, 1, younger, 2, younger, 3, younger), lent.lentCpus());
    assertEquals(Map.of(), lent.cpuJobs());
    assertEquals(GIB, lent.memReserved(), "it keeps its memory");

    assertEquals(List.of(urgent), d.schedule(), "the preemptor's job takes the lent CPUs");
    assertEquals(node, d.motherSuperior(urgent));
    d.started(urgent);
    d.advance(300);
    from = d.journal.size();
    assertEquals(List.of(), d.schedule());
    assertEquals(List.of(), events(from, Event.BodyCase.JOB_RESUMED), "its CPUs are busy");

    d.obit(urgent, 0);
    from = d.journal.size();
    d.schedule();
    assertEquals(1, events(from, Event.BodyCase.JOB_RESUMED).size());
    Job resumed = d.job(younger);
    assertEquals(0, resumed.getSuspendedAt());
    assertEquals(300, resumed.getSuspendedSeconds(), "its walltime does not count them");
    assertEquals(1, resumed.getSuspensions());
    assertEquals("", resumed.getComment());
    assertEquals(
        Map.of(0, younger, 1, younger, 2, younger, 3, younger), d.state.usage(node).cpuJobs());
    assertEquals(Map.of(), d.state.usage(node).lentCpus());
  }

  @Test
  void otherJobsNeverGetTheLentCpusSoTheSuspendedJobIsNotStarved() {
    String node = d.motherSuperior(younger);
    String urgent = express("2");
    d.schedule();
    confirm(younger);
    assertEquals(List.of(urgent), d.schedule());
    d.started(urgent);
    String waiting = plain("1");
    assertEquals(List.of(), d.schedule(), "two CPUs of " + node + " are idle, but lent");
    RunDecision onLent =
        new RunDecision(
            waiting, List.of(NodeAllocation.newBuilder().setNode(node).addCpus(3).build()));
    Plan forged = new Plan(List.of(onLent), List.of(), List.of(), Map.of(), d.plan().unexamined());
    assertEquals(List.of(), d.schedule(forged), "the server refuses a lent CPU to other jobs");

    d.obit(urgent, 0);
    int from = d.journal.size();
    assertEquals(List.of(), d.schedule(), "the suspended job resumes before the queued one");
    assertEquals(1, events(from, Event.BodyCase.JOB_RESUMED).size());
    assertEquals(JobState.QUEUED, d.job(waiting).getState());
  }

  @Test
  void aDeletedSuspendedJobGivesBackItsMemoryAndCpus() {
    String node = d.motherSuperior(younger);
    String urgent = express("4");
    d.schedule();
    confirm(younger);
    d.schedule();
    d.started(urgent);
    d.qdel(ALICE, younger);
    d.obit(younger, 271);
    assertEquals(JobState.COMPLETED, d.job(younger).getState());
    assertEquals(0, d.state.usage(node).memReserved());
    assertEquals(Map.of(), d.state.usage(node).lentCpus());
    d.obit(urgent, 0);
    assertTrue(d.state.usage(node).idle());
    assertEquals(NodeUsage.NONE, d.state.usage(node));
  }

  @Test
  void planningGivesTheLentCpusBackToTheSuspendedJobNotAtItsPreemptorsEnd() {
    long olderEnds = d.job(older).getStartTime() + 3600;
    String urgent = express("4");
    d.schedule();
    confirm(younger);
    d.schedule();
    d.started(urgent);
    String plain = plain("4");
    assertEquals(List.of(), d.schedule());
    // the urgent job ends in 10 min, but younger resumes on its CPUs then: n1 frees first
    assertEquals(olderEnds, d.plan().waitingOf(plain).estimatedStart());
  }

  @Test
  void aJobOnLentCpusIsNotSuspendedItselfSoACpuHasOneLender() {
    String urgent = express("4");
    d.schedule();
    confirm(younger);
    d.schedule();
    d.started(urgent);
    // express stops being a preemptor and becomes suspendable; vip is the preemptor now
    d.qmgr(
        ROOT,
        Manage.Command.SET,
        Manage.ObjectType.QUEUE,
        List.of("express"),
        attr("preemptor", "false"),
        attr("preempt_mode", "suspend"));
    d.qmgr(
        ROOT,
        Manage.Command.CREATE,
        Manage.ObjectType.QUEUE,
        List.of("vip"),
        attr("enabled", "true"),
        attr("started", "true"),
        attr("preemptor", "true"));
    d.submit(
        BOB,
        attr(AttributeNames.DESTINATION, "vip"),
        resource("nodes", "1:ppn=4"),
        resource("walltime", "10:00"));
    int from = d.journal.size();
    d.schedule();
    List<Event> suspended = events(from, Event.BodyCase.JOB_SUSPENDED);
    assertEquals(1, suspended.size(), suspended.toString());
    assertEquals(older, suspended.get(0).getJobSuspended().getJobId(), "not " + urgent);
  }

  @Test
  void aSuspendedJobTakesNoSignalsAndADeleteBeforeItsNodesConfirmEndsIt() {
    String urgent = express("4");
    d.schedule();
    refused(Error.Code.BAD_STATE, () -> d.qsig(ALICE, younger, "CONT"), "is suspended for job");
    d.qdel(ALICE, younger);
    int from = d.journal.size();
    confirm(younger);
    assertEquals(List.of(), d.eventsSince(from), "a job being killed lends nothing");
    d.obit(younger, 271);
    assertEquals(JobState.COMPLETED, d.job(younger).getState());
    assertEquals(List.of(urgent), d.schedule());
  }

  @Test
  void queuesThatDoNotSuspendAndJobsNotStartedAreLeftAlone() {
    d.qmgr(
        ROOT,
        Manage.Command.UNSET,
        Manage.ObjectType.QUEUE,
        List.of("batch"),
        attr("preempt_mode", ""));
    express("4");
    int from = d.journal.size();
    d.schedule();
    assertEquals(List.of(), events(from, Event.BodyCase.JOB_SUSPENDED));
  }

  @Test
  void replayAndSnapshotKeepASuspendedJobAndItsPreemptor() {
    String urgent = express("4");
    d.schedule();
    confirm(younger);
    d.schedule();
    d.started(urgent);
    ClusterState replayed = ClusterState.EMPTY;
    for (Event e : d.journal) {
      replayed = StateMachine.apply(replayed, e);
    }
    assertEquals(d.state, replayed);
    ClusterState restored =
        StateMachine.restore(ClusterState.EMPTY, Snapshots.image(d.state), d.state.lastSeq());
    assertEquals(d.state, restored);
    assertEquals(
        d.state.usage(d.motherSuperior(younger)), restored.usage(d.motherSuperior(younger)));
  }
}

package dev.berth.server.state;

import static dev.berth.proto.JobState.COMPLETED;
import static dev.berth.proto.JobState.HELD;
import static dev.berth.proto.JobState.QUEUED;
import static dev.berth.proto.JobState.RUNNING;
import static dev.berth.proto.JobState.WAITING;
import static dev.berth.server.state.EventTable.absent;
import static dev.berth.server.state.EventTable.completed;
import static dev.berth.server.state.EventTable.counts;
import static dev.berth.server.state.EventTable.cpus;
import static dev.berth.server.state.EventTable.eligible;
import static dev.berth.server.state.EventTable.field;
import static dev.berth.server.state.EventTable.nextJobNumber;
import static dev.berth.server.state.EventTable.state;
import static dev.berth.server.testing.Events.alloc;
import static dev.berth.server.testing.Events.altered;
import static dev.berth.server.testing.Events.array;
import static dev.berth.server.testing.Events.deleted;
import static dev.berth.server.testing.Events.dispatched;
import static dev.berth.server.testing.Events.exited;
import static dev.berth.server.testing.Events.held;
import static dev.berth.server.testing.Events.holds;
import static dev.berth.server.testing.Events.job;
import static dev.berth.server.testing.Events.killRequested;
import static dev.berth.server.testing.Events.node;
import static dev.berth.server.testing.Events.nodeCreated;
import static dev.berth.server.testing.Events.nodeDeleted;
import static dev.berth.server.testing.Events.nodeUpdated;
import static dev.berth.server.testing.Events.purged;
import static dev.berth.server.testing.Events.queueCreated;
import static dev.berth.server.testing.Events.queueDeleted;
import static dev.berth.server.testing.Events.queueSet;
import static dev.berth.server.testing.Events.queueUnset;
import static dev.berth.server.testing.Events.released;
import static dev.berth.server.testing.Events.requeued;
import static dev.berth.server.testing.Events.serverSet;
import static dev.berth.server.testing.Events.serverUnset;
import static dev.berth.server.testing.Events.started;
import static dev.berth.server.testing.Events.submitted;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.core.ServerAttributeNames;
import dev.berth.proto.Event;
import dev.berth.proto.Job;
import dev.berth.proto.JobDelta;
import dev.berth.proto.NodeAllocation;
import dev.berth.proto.SubjobAltered;
import dev.berth.proto.SubjobRestored;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The job state machine as tables of events and the state expected after each. */
class StateMachineTest {
  private static EventTable cluster() {
    return new EventTable().given(nodeCreated("n1", 4), queueCreated("batch"));
  }

  @Test
  void plainJobRunsToCompletionAndIsPurged() {
    EventTable t = cluster();
    long now = t.now();
    t.then(submitted(job(1)), state("1.srv", QUEUED), eligible("1.srv"), nextJobNumber(2))
        .then(
            dispatched("1.srv", alloc("n1", 0, 1)),
            state("1.srv", RUNNING),
            eligible(),
            cpus("n1", "0=1.srv 1=1.srv"),
            field("1.srv", "exec_nodes", Job::getExecNodesList, List.of(alloc("n1", 0, 1))))
        .then(
            started("1.srv", 77, now),
            state("1.srv", RUNNING),
            field("1.srv", "session_id", Job::getSessionId, 77L),
            field("1.srv", "start_time", Job::getStartTime, now),
            field("1.srv", "run_count", Job::getRunCount, 1))
        .then(
            exited("1.srv", 3, now + 60),
            state("1.srv", COMPLETED),
            field("1.srv", "exit_status", Job::getExitStatus, 3),
            field("1.srv", "comp_time", Job::getCompTime, now + 60),
            field("1.srv", "resources_used.cput", j -> j.getResourcesUsed().getCput(), 7L),
            cpus("n1", ""),
            completed("1.srv"))
        .then(purged("1.srv"), absent("1.srv"), completed(), eligible(), cpus("n1", ""));
    assertFalse(t.state().scripts.containsKey("1.srv"), "the script leaves with the job");
  }

  @Test
  void holdsAddUpAndReleaseOneTypeAtATime() {
    cluster()
        .then(submitted(job(1)), state("1.srv", QUEUED), eligible("1.srv"))
        .then(
            held("1.srv", "u"),
            state("1.srv", HELD),
            eligible(),
            field("1.srv", "holds", Job::getHolds, holds("u")))
        .then(held("1.srv", "o"), field("1.srv", "holds", Job::getHolds, holds("uo")))
        .then(
            released("1.srv", "u"),
            state("1.srv", HELD),
            field("1.srv", "holds", Job::getHolds, holds("o")),
            eligible())
        .then(released("1.srv", "o"), state("1.srv", QUEUED), eligible("1.srv"))
        .rejects(held("9.srv", "u"), "no job 9.srv");
  }

  @Test
  void releaseBeforeTheExecutionTimeGoesToWaitingAndAfterItToQueued() {
    EventTable t = cluster().at(5_000);
    Job later = job(2).toBuilder().setState(WAITING).setExecutionTime(6_000).build(); // qsub -a
    t.then(submitted(later), state("2.srv", WAITING), eligible())
        .then(held("2.srv", "u"), state("2.srv", HELD))
        .then(released("2.srv", "u"), state("2.srv", WAITING), eligible())
        .at(6_000)
        .then(released("2.srv", ""), state("2.srv", QUEUED), eligible("2.srv"))
        .then(held("2.srv", "s"), state("2.srv", HELD))
        .then(released("2.srv", "s"), state("2.srv", QUEUED));
  }

  @Test
  void aCpuHeldByOneJobCannotBeGivenToAnother() {
    cluster()
        .then(submitted(job(1)), state("1.srv", QUEUED))
        .then(submitted(job(2)), eligible("1.srv", "2.srv"))
        .then(dispatched("1.srv", alloc("n1", 0, 1)), cpus("n1", "0=1.srv 1=1.srv"))
        .rejects(
            dispatched("2.srv", alloc("n1", 1, 2)),
            "cpu 1 of n1 is held by 1.srv, not free for 2.srv")
        .then(dispatched("2.srv", alloc("n1", 2, 3)), cpus("n1", "0=1.srv 1=1.srv 2=2.srv 3=2.srv"))
        .rejects(dispatched("1.srv", alloc("n1", 0)), "cannot dispatch job 1.srv in state RUNNING")
        .then(exited("1.srv", 0, 1), cpus("n1", "2=2.srv 3=2.srv"))
        .then(exited("2.srv", 0, 2), cpus("n1", ""));
  }

  @Test
  void dispatchToAnUnknownNodeIsRefused() {
    cluster()
        .then(submitted(job(1)))
        .rejects(dispatched("1.srv", alloc("n9", 0)), "job 1.srv placed on unknown node n9");
  }

  @Test
  void memoryAndGpusAreHeldAndFreedWithTheCpus() {
    NodeAllocation a = alloc("n1", 0).toBuilder().setMem(1L << 30).setGpus(1).build();
    cluster()
        .then(submitted(job(1)))
        .then(
            dispatched("1.srv", a),
            s -> assertEquals(new NodeUsageView(1L << 30, 1), NodeUsageView.of(s.usage("n1"))))
        .then(requeued("1.srv", "node lost"), cpus("n1", ""))
        .then(
            dispatched("1.srv", a),
            s -> assertEquals(new NodeUsageView(1L << 30, 1), NodeUsageView.of(s.usage("n1"))))
        .then(exited("1.srv", 0, 5), cpus("n1", ""));
  }

  private record NodeUsageView(long mem, int gpus) {
    static NodeUsageView of(NodeUsage u) {
      return new NodeUsageView(u.memReserved(), u.gpusReserved());
    }
  }

  @Test
  void requeueFreesTheCpusAndForgetsTheRun() {
    EventTable t = cluster().at(2_000);
    t.then(submitted(job(1)))
        .then(dispatched("1.srv", alloc("n1", 0)))
        .then(started("1.srv", 99, 2_000))
        .then(
            killRequested("1.srv", "deleted by alice@login1"),
            state("1.srv", RUNNING),
            field("1.srv", "delete_requested_by", Job::getDeleteRequestedBy, "alice@login1"))
        .at(2_100)
        .then(
            requeued("1.srv", "node n1 went down"),
            state("1.srv", QUEUED),
            eligible("1.srv"),
            cpus("n1", ""),
            field("1.srv", "exec_nodes", Job::getExecNodesCount, 0),
            field("1.srv", "session_id", Job::getSessionId, 0L),
            field("1.srv", "start_time", Job::getStartTime, 0L),
            field("1.srv", "delete_requested_by", Job::getDeleteRequestedBy, ""),
            field("1.srv", "comment", Job::getComment, "node n1 went down"),
            field("1.srv", "etime", Job::getEtime, 2_100L),
            field("1.srv", "run_count", Job::getRunCount, 1))
        .rejects(requeued("1.srv", "again"), "cannot requeue job 1.srv in state QUEUED")
        .then(dispatched("1.srv", alloc("n1", 3)), cpus("n1", "3=1.srv"))
        .then(started("1.srv", 100, 2_200), field("1.srv", "run_count", Job::getRunCount, 2));
  }

  @Test
  void killRequestMarksARunningJobAndTheExitCompletesIt() {
    cluster()
        .then(submitted(job(1)))
        .rejects(killRequested("1.srv", "x"), "cannot kill job 1.srv in state QUEUED")
        .then(dispatched("1.srv", alloc("n1", 0)))
        .then(
            killRequested("1.srv", "deleted by bob@login1"),
            field("1.srv", "comment", Job::getComment, "deleted by bob@login1"))
        .then(
            exited("1.srv", 271, 9, "deleted"),
            state("1.srv", COMPLETED),
            field("1.srv", "exit_reason", Job::getExitReason, "deleted"),
            field("1.srv", "comment", Job::getComment, "deleted"),
            cpus("n1", ""));
  }

  @Test
  void deleteEndsJobsThatAreNotRunning() {
    EventTable t = cluster().at(3_000);
    t.then(submitted(job(1)))
        .then(submitted(job(2)))
        .then(submitted(job(3).toBuilder().setState(HELD).setHolds(holds("u")).build()))
        .then(
            deleted("1.srv", "deleted by alice@login1"),
            state("1.srv", COMPLETED),
            field("1.srv", "comp_time", Job::getCompTime, 3_000L),
            field("1.srv", "exit_reason", Job::getExitReason, "deleted by alice@login1"),
            field("1.srv", "has exit_status", Job::hasExitStatus, false),
            eligible("2.srv"),
            completed("1.srv"))
        .then(deleted("3.srv", "deleted"), state("3.srv", COMPLETED), completed("1.srv", "3.srv"))
        .then(dispatched("2.srv", alloc("n1", 0)))
        .rejects(deleted("2.srv", "x"), "cannot delete job 2.srv in state RUNNING")
        .rejects(deleted("1.srv", "x"), "cannot delete job 1.srv in state COMPLETED");
  }

  @Test
  void illegalSequencesAreRefusedWithTheEventAndTheJob() {
    cluster()
        .then(submitted(job(1)))
        .rejects(submitted(job(1)), "job 1.srv already exists")
        .rejects(started("1.srv", 1, 1), "cannot start job 1.srv in state QUEUED")
        .rejects(exited("1.srv", 0, 1), "cannot exit job 1.srv in state QUEUED")
        .rejects(purged("1.srv"), "cannot purge job 1.srv in state QUEUED")
        .rejects(started("7.srv", 1, 1), "no job 7.srv")
        .rejects(
            altered(job(1).toBuilder().setState(HELD).build(), "Hold_Types"),
            "JobAltered may not take job 1.srv from QUEUED to HELD")
        .then(dispatched("1.srv", alloc("n1", 0)))
        .rejects(released("1.srv", "u"), "cannot release job 1.srv in state RUNNING")
        .rejects(held("1.srv", "u"), "cannot hold job 1.srv in state RUNNING")
        .then(exited("1.srv", 0, 1))
        .rejects(exited("1.srv", 0, 1), "cannot exit job 1.srv in state COMPLETED")
        .rejects(held("1.srv", "u"), "cannot hold job 1.srv in state COMPLETED")
        .rejects(
            altered(job(1).toBuilder().setState(COMPLETED).build(), "comment"),
            "cannot alter job 1.srv in state COMPLETED")
        .rejects(Event.newBuilder(), "unknown kind");
  }

  @Test
  void anEventMustFollowTheLastOne() {
    ClusterState s = cluster().state();
    Event skipping =
        submitted(job(1)).setSeq(s.lastSeq() + 2).setTime(1_000).setActor("alice").build();
    var ex = assertThrows(IllegalTransitionException.class, () -> StateMachine.apply(s, skipping));
    assertEquals("event 4 does not follow event 2", ex.getMessage());
    Event repeated = submitted(job(1)).setSeq(s.lastSeq()).build();
    assertThrows(IllegalTransitionException.class, () -> StateMachine.apply(s, repeated));
  }

  @Test
  void priorityAndNumberOrderTheQueuedJobs() {
    cluster()
        .then(submitted(job(1)))
        .then(submitted(job(2)))
        .then(submitted(job(3)), eligible("1.srv", "2.srv", "3.srv"))
        .then(
            altered(job(3).toBuilder().setPriority(10).build(), "Priority"),
            eligible("3.srv", "1.srv", "2.srv"),
            field("3.srv", "priority", Job::getPriority, 10))
        .then(
            altered(job(1).toBuilder().setPriority(-5).build(), "Priority"),
            eligible("3.srv", "2.srv", "1.srv"))
        .then(held("2.srv", "u"), eligible("3.srv", "1.srv"))
        .then(
            submitted(job(4).toBuilder().setPriority(10).build()),
            eligible("3.srv", "4.srv", "1.srv"));
  }

  @Test
  void anArrayIsMadeOfSubjobsAndShowsTheirCombinedState() {
    Job parent =
        array(5, "0-2", 3).toBuilder()
            .setErrorPath("login1:/tmp/errors") // not a default path: shared by the subjobs
            .build();
    EventTable t = cluster().at(4_000);
    t.then(
            submitted(parent),
            state("5[].srv", QUEUED),
            state("5[0].srv", QUEUED),
            state("5[1].srv", QUEUED),
            state("5[2].srv", QUEUED),
            eligible("5[0].srv", "5[1].srv", "5[2].srv"),
            counts("5[].srv", 3, 0, 0, 0),
            nextJobNumber(6),
            field("5[1].srv", "array_parent", Job::getArrayParent, "5[].srv"),
            field("5[1].srv", "array_index", Job::getArrayIndex, 1),
            field("5[1].srv", "name", Job::getName, "STDIN-1"),
            field("5[1].srv", "array_request", Job::getArrayRequest, ""),
            field("5[1].srv", "output_path", Job::getOutputPath, "login1:/home/alice/STDIN.o5-1"),
            field("5[2].srv", "output_path", Job::getOutputPath, "login1:/home/alice/STDIN.o5-2"),
            field("5[1].srv", "error_path", Job::getErrorPath, "login1:/tmp/errors"),
            s ->
                assertEquals(
                    s.script(s.job("5[].srv").orElseThrow()),
                    s.script(s.job("5[2].srv").orElseThrow()),
                    "subjobs run their array's script"))
        .then(
            dispatched("5[1].srv", alloc("n1", 0)),
            state("5[].srv", RUNNING),
            counts("5[].srv", 2, 0, 1, 0),
            eligible("5[0].srv", "5[2].srv"))
        .then(held("5[0].srv", "u"), state("5[].srv", RUNNING), counts("5[].srv", 1, 1, 1, 0))
        .then(
            exited("5[1].srv", 0, 4_000),
            state("5[].srv", QUEUED),
            counts("5[].srv", 1, 1, 0, 1),
            completed(),
            cpus("n1", ""))
        .then(deleted("5[2].srv", "deleted"), state("5[].srv", HELD), counts("5[].srv", 0, 1, 0, 2))
        .then(released("5[0].srv", "u"), state("5[].srv", QUEUED), eligible("5[0].srv"))
        .then(dispatched("5[0].srv", alloc("n1", 2)), state("5[].srv", RUNNING))
        .at(4_500)
        .then(
            exited("5[0].srv", 1, 4_490),
            state("5[].srv", COMPLETED),
            counts("5[].srv", 0, 0, 0, 3),
            field("5[].srv", "comp_time", Job::getCompTime, 4_500L),
            completed("5[].srv"))
        .rejects(purged("5[1].srv"), "subjob 5[1].srv leaves only with its array 5[].srv")
        .then(
            purged("5[].srv"),
            absent("5[].srv", "5[0].srv", "5[1].srv", "5[2].srv"),
            counts("5[].srv", 0, 0, 0, 0),
            completed(),
            eligible());
  }

  @Test
  void aHeldArrayIsHeldThroughItsSubjobs() {
    Job parent = array(3, "1,4-5%2", 3).toBuilder().setState(HELD).setHolds(holds("u")).build();
    cluster()
        .then(
            submitted(parent),
            state("3[].srv", HELD),
            state("3[1].srv", HELD),
            state("3[4].srv", HELD),
            state("3[5].srv", HELD),
            counts("3[].srv", 0, 3, 0, 0),
            eligible())
        .then(released("3[4].srv", "u"), state("3[].srv", QUEUED), eligible("3[4].srv"));
  }

  @Test
  void aSubjobIsAlteredByWhatChangedAndRestoredByWhatDiffersFromItsParent() {
    Job parent = array(3, "1-2", 2);
    cluster()
        .then(submitted(parent))
        .then(
            subjobAltered("3[2].srv", Job.newBuilder().setName("second").setQueue("long")),
            field("3[2].srv", "name", Job::getName, "second"),
            field("3[2].srv", "queue", Job::getQueue, "long"),
            field("3[1].srv", "queue", Job::getQueue, "batch"))
        .rejects(
            subjobAltered("3[1].srv", Job.newBuilder().setState(HELD)),
            "SubjobAltered may not take job 3[1].srv from QUEUED to HELD")
        .rejects(
            subjobAltered("3[1].srv", Job.newBuilder().setId("4.srv")),
            "alter of 3[1].srv may not change its id")
        .rejects(
            subjobAltered("3[].srv", Job.newBuilder().setName("x")),
            "job 3[].srv is not an array's subjob")
        .rejects(subjobAltered("3[7].srv", Job.newBuilder()), "no job 3[7].srv");
    new EventTable()
        .given(nodeCreated("n1", 4), queueCreated("batch"))
        .rejects(
            Event.newBuilder()
                .setSubjobRestored(
                    SubjobRestored.newBuilder().setArrayParent("3[].srv").setArrayIndex(1)),
            "no job 3[].srv");
  }

  private static Event.Builder subjobAltered(String id, Job.Builder changes) {
    return Event.newBuilder()
        .setSubjobAltered(
            SubjobAltered.newBuilder()
                .setJobId(id)
                .setChanges(JobDelta.newBuilder().setSet(changes))
                .addChanged("changed"));
  }

  @Test
  void queuesAreCreatedChangedAndDeleted() {
    new EventTable()
        .then(queueCreated("batch", "enabled", "True"), s -> assertQueue(s, "enabled", "True"))
        .rejects(queueCreated("batch"), "queue batch already exists")
        .then(queueSet("batch", "started", "True"), s -> assertQueue(s, "started", "True"))
        .then(queueUnset("batch", "enabled"), s -> assertQueue(s, "enabled", null))
        .rejects(queueSet("fast", "started", "True"), "no queue fast")
        .then(queueDeleted("batch"), s -> assertTrue(s.queue("batch").isEmpty()))
        .rejects(queueDeleted("batch"), "no queue batch");
  }

  private static void assertQueue(ClusterState s, String attribute, String expected) {
    assertEquals(
        Optional.ofNullable(expected),
        Optional.ofNullable(s.queue("batch").orElseThrow().getAttributesMap().get(attribute)));
  }

  @Test
  void aNodeThatRunsJobsCannotBeDeleted() {
    cluster()
        .rejects(nodeCreated("n1", 2), "node n1 already exists")
        .then(
            nodeUpdated(node("n1", 4).toBuilder().setOffline(true).build(), "state"),
            s -> assertTrue(s.node("n1").orElseThrow().getOffline()))
        .rejects(nodeUpdated(node("n9", 1)), "no node n9")
        .then(submitted(job(1)))
        .then(dispatched("1.srv", alloc("n1", 1)))
        .rejects(nodeDeleted("n1"), "node n1 still runs jobs")
        .then(exited("1.srv", 0, 1))
        .then(nodeDeleted("n1"), s -> assertTrue(s.node("n1").isEmpty()), cpus("n1", ""))
        .rejects(nodeDeleted("n1"), "no node n1");
  }

  @Test
  void nextJobNumberFollowsSubmissionsAndTheServerSetting() {
    cluster()
        .then(submitted(job(7)), nextJobNumber(8))
        .then(serverSet(ServerAttributeNames.NEXT_JOB_NUMBER, "100"), nextJobNumber(100))
        .then(submitted(job(8)), nextJobNumber(100))
        .then(
            serverSet("scheduling", "True"),
            nextJobNumber(100),
            s -> assertEquals(Optional.of("True"), s.serverAttribute("scheduling")),
            s -> assertTrue(s.serverAttribute(ServerAttributeNames.NEXT_JOB_NUMBER).isEmpty()))
        .then(serverUnset("scheduling"), s -> assertTrue(s.serverAttribute("scheduling").isEmpty()))
        .then(submitted(array(100, "1-2", 2)), nextJobNumber(101));
  }
}

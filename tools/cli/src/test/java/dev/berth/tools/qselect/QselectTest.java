package dev.berth.tools.qselect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.client.testing.FakeServer;
import dev.berth.proto.Holds;
import dev.berth.proto.Job;
import dev.berth.proto.JobList;
import dev.berth.proto.JobState;
import dev.berth.proto.Queue;
import dev.berth.proto.QueueList;
import dev.berth.proto.QueueStatus;
import dev.berth.proto.ResourceRequest;
import dev.berth.proto.Response;
import dev.berth.tools.testing.Run;
import java.util.List;
import org.junit.jupiter.api.Test;

class QselectTest {
  private static Job job(String id, String user, JobState state, String... resources) {
    ResourceRequest.Builder r = ResourceRequest.newBuilder();
    for (int i = 0; i < resources.length; i += 2) {
      r.putValues(resources[i], resources[i + 1]);
    }
    return Job.newBuilder()
        .setId(id)
        .setName("job" + id.charAt(0))
        .setEuser(user)
        .setOwner(user + "@login1")
        .setState(state)
        .setQueue(id.startsWith("3") ? "long" : "batch")
        .setRerunnable(!id.startsWith("2"))
        .setResources(r)
        .build();
  }

  private static final List<Job> JOBS =
      List.of(
          job(
              "1.srv",
              "alice",
              JobState.RUNNING,
              "walltime",
              "01:00:00",
              "mem",
              "2gb",
              "nodes",
              "2:ppn=4"),
          job("2.srv", "bob", JobState.QUEUED, "walltime", "00:10:00", "nodes", "n1+n2+n3")
              .toBuilder()
              .setAccount("proj")
              .build(),
          job("3.srv", "alice", JobState.HELD).toBuilder()
              .setHolds(Holds.newBuilder().setUser(true).setOther(true))
              .setPriority(10)
              .build(),
          job("4[].srv", "alice", JobState.QUEUED).toBuilder().setArrayRequest("0-1").build(),
          job("4[0].srv", "alice", JobState.QUEUED).toBuilder().setArrayParent("4[].srv").build());

  private static FakeServer server() {
    return FakeServer.named(
        "srv",
        r ->
            switch (r.getBodyCase()) {
              case STAT_JOBS ->
                  Response.newBuilder().setJobs(JobList.newBuilder().addAllJobs(JOBS)).build();
              case STAT_QUEUES ->
                  r.getStatQueues().getNames(0).equals("long")
                      ? Response.newBuilder()
                          .setQueues(
                              QueueList.newBuilder()
                                  .addQueues(
                                      QueueStatus.newBuilder()
                                          .setQueue(Queue.newBuilder().setName("long"))))
                          .build()
                      : FakeServer.error(dev.berth.proto.Error.Code.UNKNOWN_QUEUE, "unknown queue");
              default -> FakeServer.ack();
            });
  }

  private static String select(String... args) {
    Run run = Run.of(Qselect::run, server(), "qselect", args);
    assertEquals(0, run.status(), run.err());
    return run.out();
  }

  @Test
  void everyJobTheCallerSeesWithSubjobsButNotTheirArray() {
    assertEquals("1.srv\n2.srv\n3.srv\n4[0].srv\n", select());
  }

  @Test
  void criteriaAsTorquesWithTheirOperators() {
    assertEquals("1.srv\n3.srv\n4[0].srv\n", select("-u", "alice"));
    assertEquals("2.srv\n", select("-u", "carol,bob@login1"));
    assertEquals("1.srv\n", select("-s", "R"));
    assertEquals("2.srv\n3.srv\n4[0].srv\n", select("-s", ".ne.R"));
    assertEquals("3.srv\n", select("-h", "ou"), "the hold set exactly");
    assertEquals("", select("-h", "u"));
    assertEquals("1.srv\n", select("-l", "walltime.gt.00:30:00"));
    assertEquals("2.srv\n3.srv\n4[0].srv\n", select("-l", "walltime.lt.00:30:00"), "none is less");
    assertEquals("1.srv\n", select("-l", "mem.ge.1gb,walltime.eq.3600"));
    assertEquals("2.srv\n", select("-l", "nodes.eq.3"), "node counts: n1+n2+n3 is 3");
    assertEquals("2.srv\n", select("-A", "proj"));
    assertEquals("3.srv\n", select("-p", ".gt.5"));
    assertEquals("2.srv\n", select("-r", "n"));
    assertEquals("3.srv\n", select("-q", "long"));
    assertEquals("1.srv\n2.srv\n3.srv\n4[0].srv\n", select("-q", "@srv"));
    assertEquals("1.srv\n", select("-N", "job1"));
  }

  @Test
  void badValuesAreRefusedInTorquesWords() {
    for (String[] args :
        List.of(
            new String[] {"-s", "X"},
            new String[] {"-h", "ux"},
            new String[] {"-r", "maybe"},
            new String[] {"-l", "walltime=1:00:00"},
            new String[] {"-l", "walltime.gt.soon"})) {
      Run run = Run.of(Qselect::run, server(), "qselect", args);
      assertEquals(2, run.status(), String.join(" ", args));
      assertTrue(
          run.err().startsWith("qselect: illegal " + args[0] + " value\nusage: qselect"),
          run.err());
    }
    Run queue = Run.of(Qselect::run, server(), "qselect", "-q", "nosuch");
    assertEquals("qselect: Unknown queue destination\n", queue.err());
    Run usage = Run.of(Qselect::run, server(), "qselect", "-x");
    assertEquals(2, usage.status());
    assertTrue(usage.err().contains("usage: qselect [-a [op]date_time]"), usage.err());
  }
}

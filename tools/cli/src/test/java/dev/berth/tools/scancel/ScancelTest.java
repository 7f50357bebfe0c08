package dev.berth.tools.scancel;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.berth.client.testing.FakeServer;
import dev.berth.proto.Job;
import dev.berth.proto.JobList;
import dev.berth.proto.JobState;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.tools.testing.Run;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** scancel: which jobs it cancels or signals, and what it says when it cannot. */
class ScancelTest {
  private static Job job(String id, long number, String user, JobState state) {
    return Job.newBuilder()
        .setId(id)
        .setNumber(number)
        .setEuser(user)
        .setName("j" + number)
        .setQueue("batch")
        .setState(state)
        .build();
  }

  private static final List<Job> JOBS =
      List.of(
          job("12.srv", 12, "alice", JobState.RUNNING),
          job("13.srv", 13, "alice", JobState.QUEUED),
          job("14.srv", 14, "bob", JobState.QUEUED),
          job("15.srv", 15, "alice", JobState.COMPLETED),
          job("16[].srv", 16, "alice", JobState.QUEUED).toBuilder().setArrayRequest("1-2").build(),
          job("16[1].srv", 16, "alice", JobState.QUEUED).toBuilder()
              .setArrayParent("16[].srv")
              .setArrayIndex(1)
              .build(),
          job("16[2].srv", 16, "alice", JobState.QUEUED).toBuilder()
              .setArrayParent("16[].srv")
              .setArrayIndex(2)
              .build());

  private final FakeServer server =
      new FakeServer(
          r ->
              switch (r.getBodyCase()) {
                case STAT_JOBS ->
                    Response.newBuilder().setJobs(JobList.newBuilder().addAllJobs(JOBS)).build();
                case DELETE -> delete(r.getDelete().getJobId());
                default -> FakeServer.ack();
              });

  /** The server's answer: it completes a short id with its name, as the real one does. */
  private static Response delete(String id) {
    String full = id.contains(".") ? id : id + ".srv";
    Job job = JOBS.stream().filter(j -> j.getId().equals(full)).findFirst().orElse(null);
    if (job == null) {
      return FakeServer.error(dev.berth.proto.Error.Code.UNKNOWN_JOB, "Unknown Job Id " + full);
    }
    if (job.getState() == JobState.COMPLETED) {
      return FakeServer.error(
          dev.berth.proto.Error.Code.BAD_STATE, "job " + full + " has already completed");
    }
    return job.getEuser().equals("alice")
        ? FakeServer.ack()
        : FakeServer.error(
            dev.berth.proto.Error.Code.PERMISSION,
            "Unauthorized Request: alice may not delete job " + full);
  }

  private Run scancel(String... args) {
    return Run.of(Scancel::run, server, Map.of("TZ", "UTC", "USER", "alice"), "scancel", args);
  }

  private List<String> sent() {
    return server.requests().stream()
        .filter(r -> r.getBodyCase() != Request.BodyCase.STAT_JOBS)
        .map(
            r ->
                r.hasDelete()
                    ? "delete " + r.getDelete().getJobId()
                    : "signal " + r.getSignal().getJobId() + " " + r.getSignal().getSignal())
        .toList();
  }

  @Test
  void idsAloneAreDeletedAsTheyAreNamedWithoutAListing() {
    Run r = scancel("13", "16_2", "16", "15", "99");
    assertEquals(0, r.status(), r.err());
    assertEquals("", r.err(), "an ended job and one the server does not know are done");
    assertEquals(
        List.of(
            "delete 13",
            "delete 16[2]",
            "delete 16",
            "delete 16[]",
            "delete 15",
            "delete 99",
            "delete 99[]"),
        sent());
    assertEquals(
        0,
        server.requests().stream()
            .filter(q -> q.getBodyCase() == Request.BodyCase.STAT_JOBS)
            .count());
  }

  @Test
  void filtersTakeEveryJobNotEndedTheyMatch() {
    assertEquals(0, scancel("--me", "-t", "PD").status());
    assertEquals(List.of("delete 13.srv", "delete 16[1].srv", "delete 16[2].srv"), sent());
  }

  @Test
  void aSignalInsteadOfTheCancel() {
    assertEquals(0, scancel("-s", "usr1", "12").status());
    assertEquals(List.of("signal 12.srv USR1"), sent());
  }

  @Test
  void failuresInSlurmsWords() {
    Run r = scancel("14", "99");
    assertEquals(1, r.status());
    assertEquals(
        "scancel: error: Kill job error on job id 14: Unauthorized Request: alice may not"
            + " delete job 14.srv\n",
        r.err(),
        "an id of no job, alone, is taken as done (as Slurm 22.05's scancel, measured)");
    Run quiet = scancel("99");
    assertEquals(0, quiet.status());
    assertEquals("", quiet.err());
    Run filtered = scancel("-t", "PD", "99");
    assertEquals(1, filtered.status());
    assertEquals(
        "scancel: error: Kill job error on job id 99: Invalid job id specified\n", filtered.err());
    assertEquals(1, scancel("-s", "USR1", "99").status(), "a signal to no job fails");
    Run none = scancel();
    assertEquals(1, none.status());
    assertEquals("scancel: error: No job identification provided\n", none.err());
    Run refused = scancel("-b", "12");
    assertEquals(1, refused.status());
    assertEquals(
        "scancel: error: --batch is not supported by Berth's scancel yet (docs/slurm.md lists"
            + " what is)\n",
        refused.err());
  }
}

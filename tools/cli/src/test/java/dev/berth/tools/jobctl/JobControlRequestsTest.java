package dev.berth.tools.jobctl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.client.testing.FakeServer;
import dev.berth.proto.DeleteJob;
import dev.berth.proto.Error;
import dev.berth.proto.HoldJob;
import dev.berth.proto.JobList;
import dev.berth.proto.JobState;
import dev.berth.proto.ReleaseJob;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.proto.SignalJob;
import dev.berth.tools.testing.Run;
import dev.berth.tools.testing.SampleJobs;
import java.util.List;
import org.junit.jupiter.api.Test;

/** qdel, qhold, qrls and qsig: the requests they send and the lines they print. */
class JobControlRequestsTest {
  /** Knows jobs 12 and 13 on server srv.cluster.org; 13 belongs to someone else. */
  private static FakeServer server() {
    return FakeServer.named(
        "srv.cluster.org",
        request -> {
          String id =
              switch (request.getBodyCase()) {
                case DELETE -> request.getDelete().getJobId();
                case HOLD -> request.getHold().getJobId();
                case RELEASE -> request.getRelease().getJobId();
                case SIGNAL -> request.getSignal().getJobId();
                default -> "";
              };
          if (id.equals("12.srv.cluster.org")) {
            return FakeServer.ack();
          }
          if (id.equals("13.srv.cluster.org")) {
            return FakeServer.error(Error.Code.PERMISSION, "");
          }
          return FakeServer.error(Error.Code.UNKNOWN_JOB, "");
        });
  }

  @Test
  void qdelSendsCanonicalIdsAndReportsEachFailure() {
    FakeServer server = server();
    Run run = Run.of(Qdel::run, server, "qdel", "12.srv", "13", "99", "1x");
    assertEquals(
        List.of(
            delete("12.srv.cluster.org", false),
            delete("13.srv.cluster.org", false),
            delete("99.srv.cluster.org", false)),
        server.commandRequests());
    assertEquals(
        "qdel: Unauthorized Request 13.srv.cluster.org\n"
            + "qdel: Unknown Job Id Error 99.srv.cluster.org\n"
            + "qdel: illegally formed job identifier: 1x\n",
        run.err());
    assertEquals(1, run.status(), "the last failure decides, as in Torque");
    assertEquals("", run.out());
  }

  @Test
  void qdelExitsWithTheLastServerError() {
    Run run = Run.of(Qdel::run, server(), "qdel", "99", "12");
    assertEquals(153, run.status(), "an earlier failure is not forgotten by a later success");
  }

  @Test
  void qdelPurge() {
    FakeServer server = server();
    Run run = Run.of(Qdel::run, server, "qdel", "-p", "12");
    assertEquals(0, run.status(), run.err());
    assertEquals(List.of(delete("12.srv.cluster.org", true)), server.commandRequests());
  }

  @Test
  void qdelOptionRules() {
    for (String[] args :
        List.of(
            new String[] {},
            new String[] {"-p", "-W", "5", "12"},
            new String[] {"-W", "5s", "12"},
            new String[] {"-m", "a=b", "12"},
            new String[] {"-x", "12"})) {
      FakeServer server = server();
      Run run = Run.of(Qdel::run, server, "qdel", args);
      assertEquals(2, run.status(), String.join(" ", args));
      assertTrue(run.err().contains("usage: qdel [{ -p | -W delay | -m message}]"), run.err());
      assertEquals(0, server.connections());
    }
    Run delay = Run.of(Qdel::run, server(), "qdel", "-W", "30", "12");
    assertEquals(0, delay.status());
    assertTrue(delay.err().startsWith("qdel: warning: -W is not supported"), delay.err());
  }

  @Test
  void qdelAllDeletesWhatIsNotEndingAndSkipsOthersJobs() {
    FakeServer server = server();
    server.handler(
        request -> {
          if (request.hasStatServer()) {
            return FakeServer.error(Error.Code.PERMISSION, "");
          }
          if (request.hasStatJobs()) {
            return Response.newBuilder()
                .setJobs(
                    JobList.newBuilder()
                        .addJobs(SampleJobs.running().setId("12.srv.cluster.org"))
                        .addJobs(SampleJobs.queued().setId("13.srv.cluster.org"))
                        .addJobs(
                            SampleJobs.queued()
                                .setId("11.srv.cluster.org")
                                .setState(JobState.COMPLETED)))
                .build();
          }
          String id = request.getDelete().getJobId();
          return id.startsWith("12.")
              ? FakeServer.ack()
              : FakeServer.error(Error.Code.PERMISSION, "");
        });
    Run run = Run.of(Qdel::run, server, "qdel", "all");
    assertEquals(0, run.status(), run.err());
    assertEquals("", run.err(), "jobs of others are passed over in silence");
    assertEquals(
        List.of(delete("12.srv.cluster.org", false), delete("13.srv.cluster.org", false)),
        server.commandRequests().subList(1, 3),
        "the completed job is left alone");
  }

  @Test
  void qholdAndQrlsSendHoldTypes() {
    FakeServer server = server();
    assertEquals(0, Run.of(Qhold::run, server, "qhold", "-h", "uo", "12").status());
    assertEquals(0, Run.of(Qhold::run, server, "qhold", "12").status());
    assertEquals(0, Run.of(Qrls::run, server, "qrls", "-h", "s", "12").status());
    assertEquals(
        List.of(
            Request.newBuilder()
                .setHold(HoldJob.newBuilder().setJobId("12.srv.cluster.org").setHoldTypes("uo"))
                .build(),
            Request.newBuilder()
                .setHold(HoldJob.newBuilder().setJobId("12.srv.cluster.org"))
                .build(),
            Request.newBuilder()
                .setRelease(
                    ReleaseJob.newBuilder().setJobId("12.srv.cluster.org").setHoldTypes("s"))
                .build()),
        server.commandRequests());
  }

  @Test
  void qholdRejectsBadHoldTypes() {
    Run run = Run.of(Qhold::run, server(), "qhold", "-h", "x", "12");
    assertEquals(2, run.status());
    assertEquals(
        "qhold: illegal -h value\nusage: qhold [-h hold_list] job_identifier...\n", run.err());
    Run release = Run.of(Qrls::run, server(), "qrls", "-h", "", "12");
    assertEquals(2, release.status());
    assertTrue(release.err().endsWith("usage: qrls [-h {uos}] job_identifier...\n"));
  }

  @Test
  void qrlsReportsUnknownJobs() {
    Run run = Run.of(Qrls::run, server(), "qrls", "77");
    assertEquals(153, run.status());
    assertEquals("qrls: Unknown Job Id Error 77.srv.cluster.org\n", run.err());
  }

  @Test
  void qsigPassesTheSignalThroughAsGiven() {
    FakeServer server = server();
    Run.of(Qsig::run, server, "qsig", "12");
    Run.of(Qsig::run, server, "qsig", "-s", "USR1", "12");
    Run.of(Qsig::run, server, "qsig", "-a", "-s", "9", "12");
    Run.of(Qsig::run, server, "qsig", "-s", "suspend", "12");
    assertEquals(
        List.of("SIGTERM", "USR1", "9", "suspend"),
        server.commandRequests().stream().map(r -> r.getSignal().getSignal()).toList());
    assertEquals(
        Request.newBuilder()
            .setSignal(SignalJob.newBuilder().setJobId("12.srv.cluster.org").setSignal("SIGTERM"))
            .build(),
        server.commandRequests().get(0));
  }

  @Test
  void qsigUsageAndUnreachable() {
    Run usage = Run.of(Qsig::run, server(), "qsig", "-s");
    assertEquals(2, usage.status());
    assertEquals(
        "qsig: option requires an argument -- 's'\nusage: qsig [-a] [-s signal] job_identifier...\n",
        usage.err());
    Run down = Run.of(Qsig::run, FakeServer.unreachable(), "qsig", "12");
    assertEquals(1, down.status());
    assertTrue(down.err().startsWith("qsig: cannot talk to the Berth server"), down.err());
  }

  private static Request delete(String id, boolean purge) {
    return Request.newBuilder()
        .setDelete(DeleteJob.newBuilder().setJobId(id).setPurge(purge))
        .build();
  }
}

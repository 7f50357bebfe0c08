package dev.berth.tools.qstat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.client.testing.FakeServer;
import dev.berth.proto.Error;
import dev.berth.proto.Job;
import dev.berth.proto.JobHistory;
import dev.berth.proto.JobList;
import dev.berth.proto.JobState;
import dev.berth.proto.QueueList;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.proto.ServerStatus;
import dev.berth.proto.StatJobs;
import dev.berth.tools.testing.Run;
import dev.berth.tools.testing.SampleJobs;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class QstatTest {
  private static final Job RUNNING = SampleJobs.running().build();
  private static final Job BOBS =
      SampleJobs.queued().setId("13.srv").setOwner("bob@login1").setName("sim").build();
  private static final Job DONE =
      SampleJobs.running().setId("11.srv").setState(JobState.COMPLETED).setQueue("short").build();

  /** A server with jobs 11 (completed), 12 (running) and 13 (bob's, queued). */
  private static FakeServer server() {
    return new FakeServer(QstatTest::answer);
  }

  private static Response answer(Request request) {
    switch (request.getBodyCase()) {
      case STAT_SERVER:
        return Response.newBuilder()
            .setServer(ServerStatus.newBuilder().setName("srv").putAttributes("comment", "hello"))
            .build();
      case STAT_JOBS:
        List<Job> all = List.of(DONE, RUNNING, BOBS);
        JobList.Builder list = JobList.newBuilder().setServer("srv");
        List<String> ids = request.getStatJobs().getJobIdsList();
        for (Job job : all) {
          if (ids.isEmpty() || ids.contains(job.getId())) {
            list.addJobs(job);
          }
        }
        if (!ids.isEmpty() && list.getJobsCount() == 0) {
          return FakeServer.error(Error.Code.UNKNOWN_JOB, "no such job");
        }
        return Response.newBuilder().setJobs(list).build();
      case STAT_QUEUES:
        if (request.getStatQueues().getNamesList().contains("nosuch")) {
          return FakeServer.error(Error.Code.UNKNOWN_QUEUE, "Unknown queue");
        }
        return Response.newBuilder()
            .setQueues(
                QueueList.newBuilder()
                    .setServer("srv")
                    .addQueues(QueueServerFormatsTest.batch())
                    .addQueues(QueueServerFormatsTest.gpu()))
            .build();
      case JOB_HISTORY:
        return Response.newBuilder()
            .setJobs(JobList.newBuilder().addJobs(DONE).addJobs(DONE.toBuilder().setId("9.srv")))
            .build();
      default:
        return FakeServer.error(Error.Code.UNKNOWN_REQUEST, "unexpected " + request.getBodyCase());
    }
  }

  private static Run qstat(FakeServer server, String... args) {
    return Run.of(Qstat::run, server, "qstat", args);
  }

  @Test
  void defaultListingShowsEveryJobTheServerReturns() {
    FakeServer server = server();
    Run run = qstat(server);
    assertEquals(0, run.status(), run.err());
    assertEquals(
        JobTable.HEADER
            + "11.srv                    STDIN            alice           00:02:05 C short          \n"
            + "12.srv                    STDIN            alice           00:02:05 R batch          \n"
            + "13.srv                    sim              bob                    0 Q batch          \n",
        run.out());
    assertEquals("", run.err());
    assertEquals(
        List.of(Request.newBuilder().setStatJobs(StatJobs.newBuilder().setBrief(true)).build()),
        server.requests(),
        "one request for the table's fields, no server lookup when no job id was given");
    assertEquals(1, server.closed(), "the connection is closed");
  }

  @Test
  void historyAsksForFinishedJobsOnceAndShowsThemInTheUsualLayouts() {
    FakeServer server = server();
    Run run = qstat(server, "-H", "11", "short");
    assertEquals(0, run.status(), run.err());
    assertEquals(
        JobTable.HEADER
            + "11.srv                    STDIN            alice           00:02:05 C short          \n"
            + "9.srv                     STDIN            alice           00:02:05 C short          \n",
        run.out());
    assertEquals(
        JobHistory.newBuilder().addJobIds("11.srv").build(),
        server.requests().get(server.requests().size() - 1).getJobHistory());
    FakeServer users = server();
    assertTrue(qstat(users, "-H", "-u", "alice").out().contains("\n11.srv "), "-a's layout");
    assertEquals(List.of("alice"), users.requests().get(0).getJobHistory().getUsersList());
    assertTrue(qstat(server(), "-H", "-f").out().startsWith("Job Id: 11.srv\n"));
    assertTrue(qstat(server(), "-H", "-F", "json").out().contains("\"9.srv\":{"));
    assertTrue(qstat(server(), "-H", "nosuchqueue").out().isEmpty(), "a queue operand selects");
    Run conflict = qstat(server(), "-H", "-Q");
    assertEquals(2, conflict.status());
    assertTrue(conflict.err().contains("-H incompatible"), conflict.err());
    Run notCompleted = qstat(server(), "-H", "-c");
    assertEquals(2, notCompleted.status(), "-c would leave out every finished job");
    assertTrue(notCompleted.err().contains("-H incompatible"), notCompleted.err());
  }

  @Test
  void jobIdsAreCanonicalAndUnknownOnesReportedAfterTheListing() {
    FakeServer server = server();
    Run run = qstat(server, "12", "99.srv", "13.srv");
    assertEquals(153, run.status(), "PBSE_UNKJOBID % 256");
    assertEquals(
        JobTable.HEADER
            + "12.srv                    STDIN            alice           00:02:05 R batch          \n"
            + "13.srv                    sim              bob                    0 Q batch          \n",
        run.out(),
        "one header for all operands");
    assertEquals("qstat: Unknown Job Id Error 99.srv\n", run.err());
    assertEquals(
        List.of("12.srv", "99.srv", "13.srv"),
        server.commandRequests().stream().map(r -> r.getStatJobs().getJobIds(0)).toList());
  }

  @Test
  void malformedJobIdExitsOne() {
    Run run = qstat(server(), "12x");
    assertEquals(1, run.status());
    assertEquals("qstat: illegally formed job identifier: 12x\n", run.err());
    assertEquals("", run.out());
  }

  @Test
  void alternateListingWithNodes() {
    Run run = qstat(server(), "-a", "-n", "12");
    assertEquals(0, run.status(), run.err());
    assertEquals(
        AltJobTable.header(
                "srv", "hello", new AltJobTable.Style(true, false, false, false, SizeUnit.AS_GIVEN))
            + "12.srv                  alice       batch    STDIN              4242     1      2     "
            + "  --   01:00:00 R  00:05:00\n"
            + "   n1/0-1\n",
        run.out());
  }

  @Test
  void userFilterAndStateFilters() {
    Run bobs = qstat(server(), "-u", "bob");
    assertTrue(bobs.out().contains("13.srv  "), bobs.out());
    assertTrue(!bobs.out().contains("12.srv") && !bobs.out().contains("11.srv"), bobs.out());
    Run notRunning = qstat(server(), "-i");
    assertTrue(notRunning.out().contains("13.srv") && !notRunning.out().contains("12.srv"));
    Run noCompleted = qstat(server(), "-c");
    assertTrue(!noCompleted.out().contains("11.srv") && noCompleted.out().contains("12.srv"));
    Run queue = qstat(server(), "short@srv");
    assertEquals(
        JobTable.HEADER
            + "11.srv                    STDIN            alice           00:02:05 C short          \n",
        queue.out());
  }

  @Test
  void subjobsAreAskedForWithT() {
    FakeServer server = server();
    qstat(server, "-t");
    assertTrue(server.requests().get(0).getStatJobs().getIncludeSubjobs());
  }

  @Test
  void fullListing() {
    FakeServer server = server();
    Run run = qstat(server, "-f", "12");
    assertEquals(JobDocumentsTest.RUNNING_FULL, run.out());
    assertFalse(server.requests().get(0).getStatJobs().getBrief(), "the whole jobs are asked for");
  }

  @Test
  void onlyTheFullListingAndTheDocumentsAskForTheWholeJobs() {
    for (List<String> args :
        List.<List<String>>of(
            List.of(), List.of("-a"), List.of("-n", "-1"), List.of("-t"), List.of("-s"))) {
      FakeServer server = server();
      qstat(server, args.toArray(String[]::new));
      assertTrue(server.requests().get(0).getStatJobs().getBrief(), args.toString());
    }
    for (List<String> args : List.of(List.of("-f"), List.of("-x"), List.of("-f", "-F", "json"))) {
      FakeServer server = server();
      qstat(server, args.toArray(String[]::new));
      assertFalse(server.requests().get(0).getStatJobs().getBrief(), args.toString());
    }
  }

  @Test
  void emptyListingPrintsNothingButXmlAndJsonPrintEmptyDocuments() {
    FakeServer empty =
        new FakeServer(
            request ->
                Response.newBuilder().setJobs(JobList.newBuilder().setServer("srv")).build());
    Run text = qstat(empty);
    assertEquals(0, text.status());
    assertEquals("", text.out());
    assertEquals("<?xml version=\"1.0\"?>\n<Data></Data>\n", qstat(empty, "-x").out());
    assertEquals(
        "{\n    \"timestamp\":1796032800,\n    \"pbs_version\":\"test-1.0\",\n"
            + "    \"pbs_server\":\"srv\",\n    \"Jobs\":{}\n}\n",
        qstat(empty, "-F", "json").out());
  }

  @Test
  void queuesServerAndTheirErrors() {
    Run queues = qstat(server(), "-Q");
    assertEquals(
        QueueFormats.header()
            + QueueFormats.row(QueueServerFormatsTest.batch())
            + QueueFormats.row(QueueServerFormatsTest.gpu()),
        queues.out());
    Run alt = qstat(server(), "-q");
    assertTrue(alt.out().startsWith("\nserver: srv\n\nQueue            Memory"), alt.out());
    Run missing = qstat(server(), "-Q", "nosuch");
    assertEquals(15020 % 256, missing.status());
    assertEquals("qstat: Unknown queue nosuch\n", missing.err());
    Run serverTable = qstat(server(), "-B");
    assertEquals(
        ServerFormats.header()
            + "srv                  0     0     0     0     0     0     0     0     0 Active    \n",
        serverTable.out());
    Run json = qstat(server(), "-Q", "-F", "json", "gpu");
    assertTrue(json.out().contains("    \"Queue\":{\n        \"batch\":{"), json.out());
    assertTrue(
        json.out().contains("\"resources_max\":{\n                \"mem\":\"16gb\""), json.out());
  }

  @Test
  void usageErrorsExitTwoWithoutTalkingToTheServer() {
    FakeServer server = server();
    Run run = qstat(server, "-a", "-f");
    assertEquals(2, run.status());
    assertTrue(run.err().startsWith("qstat: conflicting options.\n -f incompatible"), run.err());
    assertTrue(run.err().contains("usage: \n"), run.err());
    assertEquals(0, server.connections());
  }

  @Test
  void unreachableServerExitsOne() {
    Run run = qstat(FakeServer.unreachable());
    assertEquals(1, run.status());
    assertTrue(
        run.err().startsWith("qstat: cannot talk to the Berth server at /run/berth/server.sock: "),
        run.err());
  }

  @Test
  void serverErrorOnAListingUsesItsCode() {
    FakeServer refusing =
        new FakeServer(request -> FakeServer.error(Error.Code.PERMISSION, "Unauthorized Request"));
    Run run = qstat(refusing);
    assertEquals(15007 % 256, run.status());
    assertEquals("qstat: Unauthorized Request\n", run.err());
  }

  @Test
  void versionFlag() {
    Run run = Run.of(Qstat::run, server(), Map.of(), "qstat", "--version");
    assertEquals(0, run.status());
    assertEquals("Version: test-1.0\n", run.err());
  }
}

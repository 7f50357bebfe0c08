package dev.berth.tools.tracejob;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.client.testing.FakeServer;
import dev.berth.proto.Error;
import dev.berth.proto.Event;
import dev.berth.proto.Holds;
import dev.berth.proto.Job;
import dev.berth.proto.JobAltered;
import dev.berth.proto.JobDelta;
import dev.berth.proto.JobDispatched;
import dev.berth.proto.JobExited;
import dev.berth.proto.JobHeld;
import dev.berth.proto.JobKillRequested;
import dev.berth.proto.JobPurged;
import dev.berth.proto.JobResumed;
import dev.berth.proto.JobStarted;
import dev.berth.proto.JobSubmitted;
import dev.berth.proto.JobSuspended;
import dev.berth.proto.NodeAllocation;
import dev.berth.proto.Request;
import dev.berth.proto.ResourcesUsed;
import dev.berth.proto.Response;
import dev.berth.proto.SubjobAltered;
import dev.berth.proto.TraceJob;
import dev.berth.proto.TraceReply;
import dev.berth.tools.testing.Run;
import dev.berth.tools.testing.SampleJobs;
import dev.berth.tools.testing.TerminalSafety;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

class TracejobTest {
  private static final long SUBMIT_MS = SampleJobs.CTIME * 1000 + 123;
  private static final long START_MS = SampleJobs.START * 1000;
  private static final long END = SampleJobs.START + 3601;

  static List<Event> lifeOfJob12() {
    ResourcesUsed used =
        ResourcesUsed.newBuilder()
            .setCput(125)
            .setMem(3 * 1024 * 1024)
            .setVmem(10 * 1024 * 1024)
            .setWalltime(3601)
            .build();
    return List.of(
        Event.newBuilder()
            .setSeq(1)
            .setTime(SUBMIT_MS)
            .setActor("alice@login1")
            .setJobSubmitted(JobSubmitted.newBuilder().setJob(SampleJobs.queued()))
            .build(),
        Event.newBuilder()
            .setSeq(2)
            .setTime(START_MS)
            .setActor("scheduler")
            .setJobDispatched(
                JobDispatched.newBuilder()
                    .setJobId("12.srv")
                    .addExecNodes(NodeAllocation.newBuilder().setNode("n1").addCpus(0).addCpus(1)))
            .build(),
        Event.newBuilder()
            .setSeq(3)
            .setTime(START_MS + 250)
            .setActor("node:n1")
            .setJobStarted(
                JobStarted.newBuilder()
                    .setJobId("12.srv")
                    .setSessionId(4242)
                    .setStartTime(SampleJobs.START))
            .build(),
        Event.newBuilder()
            .setSeq(4)
            .setTime(END * 1000 + 500)
            .setActor("node:n1")
            .setJobExited(
                JobExited.newBuilder()
                    .setJobId("12.srv")
                    .setExitStatus(271)
                    .setResourcesUsed(used)
                    .setEndTime(END)
                    .setReason("walltime"))
            .build(),
        Event.newBuilder()
            .setSeq(5)
            .setTime((END + 300) * 1000)
            .setActor("server")
            .setJobPurged(JobPurged.newBuilder().setJobId("12.srv"))
            .build());
  }

  private static final String START_RECORD =
      "user=alice group=users jobname=STDIN queue=batch ctime=1796032200 qtime=1796032200"
          + " etime=1796032200 start=1796032500 owner=alice@login1 exec_host=n1/0-1"
          + " Resource_List.nodect=1 Resource_List.nodes=1:ppn=2 Resource_List.walltime=01:00:00";
  private static final String USAGE =
      "resources_used.cput=00:02:05 resources_used.mem=3072kb resources_used.vmem=10240kb"
          + " resources_used.walltime=01:00:01";

  static final String TRACE_12 =
      "\nJob: 12.srv\n\n"
          + "11/30/2026 09:50:00.123 S    enqueuing into batch, state 1 hop 1\n"
          + "11/30/2026 09:50:00.123 S    Job Queued at request of alice@login1, owner = alice@login1,"
          + " job name = STDIN, queue = batch\n"
          + "11/30/2026 09:50:00  A    queue=batch\n"
          + "11/30/2026 09:55:00.000 S    Job Run at request of scheduler on exec_host n1/0-1\n"
          + "11/30/2026 09:55:00.250 S    Started, pid = 4242\n"
          + "11/30/2026 09:55:00  A    "
          + START_RECORD
          + "\n"
          + "11/30/2026 10:55:01.500 S    walltime 3601 exceeded limit 3600\n"
          + "11/30/2026 10:55:01.500 S    Exit_status=271 "
          + USAGE
          + "\n"
          + "11/30/2026 10:55:01  A    "
          + START_RECORD
          + " session=4242 end=1796036101 Exit_status=271 "
          + USAGE
          + "\n"
          + "11/30/2026 11:00:01.000 S    dequeuing from batch, state COMPLETE\n";

  @Test
  void lifeOfAJobInTorquesTracejobLines() {
    assertEquals(
        TRACE_12,
        TraceFormat.text(
            "12.srv", lifeOfJob12(), ZoneOffset.UTC, new TraceFormat.Style(true, true, 0)));
  }

  @Test
  void suspensionAndResumptionWithTheReason() {
    List<Event> events =
        List.of(
            Event.newBuilder()
                .setTime(SUBMIT_MS)
                .setActor("scheduler")
                .setJobSuspended(
                    JobSuspended.newBuilder()
                        .setJobId("12.srv")
                        .setSuspendedFor("13.srv")
                        .setReason("suspended: preempted by job 13.srv of queue express"))
                .build(),
            Event.newBuilder()
                .setTime(SUBMIT_MS + 60_000)
                .setActor("scheduler")
                .setJobResumed(JobResumed.newBuilder().setJobId("12.srv"))
                .build());
    assertEquals(
        "\nJob: 12.srv\n\n"
            + "11/30/2026 09:50:00.123 S    Job suspended at request of scheduler: suspended:"
            + " preempted by job 13.srv of queue express\n"
            + "11/30/2026 09:51:00.123 S    Job resumed at request of scheduler\n",
        TraceFormat.text("12.srv", events, ZoneOffset.UTC, new TraceFormat.Style(true, true, 0)));
  }

  @Test
  void deletionHoldsAndFilters() {
    List<Event> events =
        List.of(
            Event.newBuilder()
                .setTime(SUBMIT_MS)
                .setActor("alice@login1")
                .setJobHeld(
                    JobHeld.newBuilder()
                        .setJobId("12.srv")
                        .setHolds(Holds.newBuilder().setUser(true)))
                .build(),
            Event.newBuilder()
                .setTime(SUBMIT_MS)
                .setActor("root@login1")
                .setJobKillRequested(JobKillRequested.newBuilder().setJobId("12.srv"))
                .build());
    assertEquals(
        "\nJob: 12.srv\n\n"
            + "11/30/2026 09:50:00.123 S    Holds u set at request of alice@login1\n"
            + "11/30/2026 09:50:00.123 S    Job deleted at request of root@login1\n"
            + "11/30/2026 09:50:00.123 S    Job sent signal SIGTERM on delete\n"
            + "11/30/2026 09:50:00  A    requestor=root@login1\n",
        TraceFormat.text("12.srv", events, ZoneOffset.UTC, new TraceFormat.Style(true, true, 0)));
    assertEquals(
        "\nJob: 12.srv\n\n11/30/2026 09:50:00  A    requestor=root@login1\n",
        TraceFormat.text("12.srv", events, ZoneOffset.UTC, new TraceFormat.Style(false, true, 0)));
    assertEquals(
        "",
        TraceFormat.text(
            "12.srv", List.of(), ZoneOffset.UTC, new TraceFormat.Style(true, true, 0)));
  }

  @Test
  void namesAndReasonsAreShownEscaped() {
    List<Event> events =
        List.of(
            Event.newBuilder()
                .setTime(SUBMIT_MS)
                .setActor("alice@login1")
                .setJobSubmitted(JobSubmitted.newBuilder().setJob(TerminalSafety.hostileJob()))
                .build(),
            Event.newBuilder()
                .setTime(SUBMIT_MS)
                .setActor("node:n1")
                .setJobExited(
                    JobExited.newBuilder()
                        .setJobId("12.srv")
                        .setReason("node lost\n" + TerminalSafety.FORGED + "\u001b[0m"))
                .build());
    for (int columns : new int[] {0, 80}) {
      String text =
          TraceFormat.text(
              "12.srv", events, ZoneOffset.UTC, new TraceFormat.Style(true, true, columns));
      TerminalSafety.assertSafe(text);
      assertTrue(text.contains("job name = evil\\x1b[2J\\nJob_Owner"), text);
    }
  }

  @Test
  void aCommentTheServerSetsIsShownWhole() {
    Event noted =
        Event.newBuilder()
            .setTime(SUBMIT_MS)
            .setActor("node:n1")
            .setJobAltered(
                JobAltered.newBuilder()
                    .setJob(SampleJobs.queued().setComment("node n1 cannot read it"))
                    .addChanged("comment"))
            .build();
    assertEquals(
        "\nJob: 12.srv\n\n11/30/2026 09:50:00.123 S    Job Modified at request of node:n1:"
            + " comment = node n1 cannot read it\n",
        TraceFormat.text(
            "12.srv", List.of(noted), ZoneOffset.UTC, new TraceFormat.Style(true, true, 0)));
  }

  @Test
  void aSubjobsMoveAndNoteReadFromWhatChanged() {
    Event moved =
        Event.newBuilder()
            .setTime(SUBMIT_MS)
            .setActor("bob@login1")
            .setSubjobAltered(
                SubjobAltered.newBuilder()
                    .setJobId("12[3].srv")
                    .setChanges(JobDelta.newBuilder().setSet(Job.newBuilder().setQueue("long")))
                    .addChanged("queue"))
            .build();
    Event noted =
        moved.toBuilder()
            .setActor("node:n1")
            .setSubjobAltered(
                SubjobAltered.newBuilder()
                    .setJobId("12[3].srv")
                    .setChanges(
                        JobDelta.newBuilder()
                            .setSet(Job.newBuilder().setComment("node n1 cannot read it")))
                    .addChanged("comment"))
            .build();
    assertEquals(
        "\nJob: 12[3].srv\n\n"
            + "11/30/2026 09:50:00.123 S    Job moved to long at request of bob@login1\n"
            + "11/30/2026 09:50:00.123 S    Job Modified at request of node:n1:"
            + " comment = node n1 cannot read it\n",
        TraceFormat.text(
            "12[3].srv",
            List.of(moved, noted),
            ZoneOffset.UTC,
            new TraceFormat.Style(true, true, 0)));
  }

  @Test
  void wrapsLikeTorquesLineWrap() {
    assertEquals("aaa bbb\n" + " ".repeat(26) + "ccc\n", TraceFormat.wrap("aaa bbb ccc", 26, 34));
    assertEquals("aaaaaaaaaaaa bb\n", TraceFormat.wrap("aaaaaaaaaaaa bb", 26, 0));
    assertEquals(
        "aaaaaaaaaaaa\n" + " ".repeat(26) + "bb\n",
        TraceFormat.wrap("aaaaaaaaaaaa bb", 26, 34),
        "a word longer than the width runs on to the next blank");
  }

  private static FakeServer server() {
    return FakeServer.named(
        "srv",
        request -> {
          String id = request.getTraceJob().getJobId();
          if (id.equals("12.srv")) {
            return Response.newBuilder()
                .setTrace(TraceReply.newBuilder().addAllEvents(lifeOfJob12()))
                .build();
          }
          return FakeServer.error(Error.Code.UNKNOWN_JOB, "");
        });
  }

  @Test
  void commandPrintsTheTraceAndReportsUnknownJobs() {
    FakeServer server = server();
    Run run = Run.of(Tracejob::run, server, "tracejob", "12", "99");
    assertEquals(TRACE_12, run.out());
    assertEquals("tracejob: Unknown Job Id Error 99.srv\n", run.err());
    assertEquals(153, run.status());
    assertEquals(
        Request.newBuilder().setTraceJob(TraceJob.newBuilder().setJobId("12.srv")).build(),
        server.commandRequests().get(0));
  }

  @Test
  void commandOptions() {
    Run noAccounting = Run.of(Tracejob::run, server(), "tracejob", "-a", "-n", "3", "12");
    assertEquals(0, noAccounting.status());
    assertTrue(!noAccounting.out().contains("  A    "), noAccounting.out());
    Run usage = Run.of(Tracejob::run, server(), "tracejob");
    assertEquals(2, usage.status());
    assertTrue(usage.err().startsWith("usage: tracejob"), usage.err());
    Run badWidth = Run.of(Tracejob::run, server(), "tracejob", "-w", "wide", "12");
    assertEquals(2, badWidth.status());
  }

  @Test
  void json() {
    Run run = Run.of(Tracejob::run, server(), "tracejob", "-F", "json", "12");
    assertEquals(0, run.status(), run.err());
    String out = run.out();
    assertTrue(
        out.startsWith(
            "{\n    \"timestamp\":1796032800,\n    \"pbs_version\":\"test-1.0\",\n"
                + "    \"pbs_server\":\"srv\",\n    \"Jobs\":{\n        \"12.srv\":{\n"
                + "            \"events\":[\n                {\n"
                + "                    \"seq\":1,\n"
                + "                    \"time\":\"11/30/2026 09:50:00.123\",\n"
                + "                    \"epoch_ms\":1796032200123,\n"
                + "                    \"actor\":\"alice@login1\",\n"
                + "                    \"event\":\"job_submitted\",\n"
                + "                    \"messages\":[\n"
                + "                        \"enqueuing into batch, state 1 hop 1\",\n"),
        out);
    assertTrue(out.contains("\"accounting\":\"queue=batch\""), out);
    assertTrue(out.endsWith("            ]\n        }\n    }\n}\n"), out);
  }
}

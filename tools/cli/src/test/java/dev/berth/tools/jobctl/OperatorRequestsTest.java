package dev.berth.tools.jobctl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.client.testing.FakeServer;
import dev.berth.proto.CheckpointJob;
import dev.berth.proto.Error;
import dev.berth.proto.MoveJob;
import dev.berth.proto.OrderJobs;
import dev.berth.proto.Request;
import dev.berth.proto.RerunJob;
import dev.berth.proto.RunJobNow;
import dev.berth.tools.testing.Run;
import java.util.List;
import org.junit.jupiter.api.Test;

/** qrun, qrerun, qmove, qorder and qchkpt: the requests they send and the lines they print. */
class OperatorRequestsTest {
  /**
   * Server srv.cluster.org: job 12 goes through, 13 is running (a bad state for what needs a queued
   * job), anything else is unknown; qchkpt is answered as Berth's server answers it.
   */
  private static FakeServer server() {
    return FakeServer.named(
        "srv.cluster.org",
        request -> {
          if (request.hasCheckpoint()) {
            return FakeServer.error(Error.Code.INVALID_REQUEST, "job is not checkpointable");
          }
          String id =
              switch (request.getBodyCase()) {
                case RUN_JOB -> request.getRunJob().getJobId();
                case RERUN -> request.getRerun().getJobId();
                case MOVE -> request.getMove().getJobId();
                case ORDER -> request.getOrder().getJobId();
                default -> "";
              };
          return switch (id) {
            case "12.srv.cluster.org" -> FakeServer.ack();
            case "13.srv.cluster.org" -> FakeServer.error(Error.Code.BAD_STATE, "");
            default -> FakeServer.error(Error.Code.UNKNOWN_JOB, "");
          };
        });
  }

  private static Request run(String id, String... hosts) {
    return Request.newBuilder()
        .setRunJob(RunJobNow.newBuilder().setJobId(id).addAllHosts(List.of(hosts)))
        .build();
  }

  @Test
  void qrunSendsTheHostsInOrderForEachJob() {
    FakeServer server = server();
    Run run = Run.of(Qrun::run, server, "qrun", "-H", "n2+n1", "12", "12.srv");
    assertEquals(0, run.status(), run.err());
    assertEquals("", run.out() + run.err());
    assertEquals(
        List.of(run("12.srv.cluster.org", "n2", "n1"), run("12.srv.cluster.org", "n2", "n1")),
        server.commandRequests());
    FakeServer plain = server();
    assertEquals(0, Run.of(Qrun::run, plain, "qrun", "-a", "12").status());
    assertEquals(List.of(run("12.srv.cluster.org")), plain.commandRequests());
  }

  @Test
  void qrunReportsEachFailureAndExitsWithTheLast() {
    Run run = Run.of(Qrun::run, server(), "qrun", "99", "13", "1x");
    assertEquals(
        "qrun: Unknown Job Id Error 99.srv.cluster.org\n"
            + "qrun: Request invalid for state of job 13.srv.cluster.org\n"
            + "qrun: illegally formed job identifier: 1x\n",
        run.err());
    assertEquals(1, run.status());
    assertEquals(170, Run.of(Qrun::run, server(), "qrun", "13").status());
  }

  @Test
  void qrunRefusesAnEmptyHostListBeforeConnecting() {
    for (String hosts : List.of("", "n1+", "+n2", "n1++n2")) {
      FakeServer server = server();
      Run run = Run.of(Qrun::run, server, "qrun", "-H", hosts, "12");
      assertEquals(2, run.status(), hosts);
      assertEquals(
          "qrun: illegal -H value\nusage: qrun [-a] [-H host] job_identifier...\n", run.err());
      assertEquals(0, server.connections());
    }
    Run none = Run.of(Qrun::run, server(), "qrun", "-a");
    assertEquals(2, none.status());
    assertEquals("usage: qrun [-a] [-H host] job_identifier...\n", none.err());
  }

  @Test
  void qrerunTakesTorquesDashFAndAsksTheSame() {
    FakeServer server = server();
    assertEquals(0, Run.of(Qrerun::run, server, "qrerun", "12").status());
    assertEquals(0, Run.of(Qrerun::run, server, "qrerun", "-f", "12").status());
    assertEquals(
        List.of(
            Request.newBuilder()
                .setRerun(RerunJob.newBuilder().setJobId("12.srv.cluster.org"))
                .build(),
            Request.newBuilder()
                .setRerun(RerunJob.newBuilder().setJobId("12.srv.cluster.org"))
                .build()),
        server.commandRequests());
    Run unknown = Run.of(Qrerun::run, server(), "qrerun", "99");
    assertEquals(153, unknown.status());
    assertEquals("qrerun: Unknown Job Id Error 99.srv.cluster.org\n", unknown.err());
  }

  @Test
  void qrerunRefusesAllBeforeSendingAnything() {
    for (String all : List.of("all", "ALL")) {
      FakeServer server = server();
      Run run = Run.of(Qrerun::run, server, "qrerun", "12", all);
      assertEquals(1, run.status());
      assertEquals(
          "qrerun: \"all\" is not supported: name the jobs (qselect -s R | xargs qrerun)\n",
          run.err());
      assertEquals(0, server.connections(), "not even job 12 is rerun");
    }
    Run usage = Run.of(Qrerun::run, server(), "qrerun", "-m", "x", "12");
    assertEquals(2, usage.status());
    assertEquals(
        "qrerun: invalid option -- 'm'\nusage: qrerun [-f] job_identifier...\n", usage.err());
  }

  @Test
  void qmoveSendsTheDestinationWithEachJob() {
    FakeServer server = server();
    Run run = Run.of(Qmove::run, server, "qmove", "long@srv", "12", "99");
    assertEquals(153, run.status());
    assertEquals("qmove: Unknown Job Id Error 99.srv.cluster.org\n", run.err());
    assertEquals(
        List.of(move("12.srv.cluster.org", "long@srv"), move("99.srv.cluster.org", "long@srv")),
        server.commandRequests());
    FakeServer other = server();
    assertEquals(0, Run.of(Qmove::run, other, "qmove", "@srv", "12").status());
    assertEquals(List.of(move("12.srv.cluster.org", "@srv")), other.commandRequests());
  }

  @Test
  void qmoveChecksTheDestinationsFormAndItsOperands() {
    for (String destination : List.of("", "a b", "q@", "@", "q#1", "a@b@c")) {
      FakeServer server = server();
      Run run = Run.of(Qmove::run, server, "qmove", destination, "12");
      assertEquals(2, run.status(), destination);
      assertEquals("qmove: illegally formed destination: " + destination + "\n", run.err());
      assertEquals(0, server.connections());
    }
    Run usage = Run.of(Qmove::run, server(), "qmove", "long");
    assertEquals(2, usage.status());
    assertEquals("usage: qmove destination job_identifier...\n", usage.err());
  }

  @Test
  void qorderSendsBothCanonicalIdsInOneRequest() {
    FakeServer server = server();
    Run run = Run.of(Qorder::run, server, "qorder", "12", "14.srv");
    assertEquals(0, run.status(), run.err());
    assertEquals(
        List.of(
            Request.newBuilder()
                .setOrder(
                    OrderJobs.newBuilder()
                        .setJobId("12.srv.cluster.org")
                        .setOtherJobId("14.srv.cluster.org"))
                .build()),
        server.commandRequests());
  }

  @Test
  void qorderNamesTheFirstJobInAServerError() {
    Run run = Run.of(Qorder::run, server(), "qorder", "13", "12");
    assertEquals(170, run.status());
    assertEquals("qorder: Request invalid for state of job 13.srv.cluster.org\n", run.err());
  }

  @Test
  void qorderChecksBothIdsBeforeSending() {
    FakeServer server = server();
    Run run = Run.of(Qorder::run, server, "qorder", "12", "1x");
    assertEquals(1, run.status());
    assertEquals("qorder: illegally formed job identifier: 1x\n", run.err());
    assertEquals(List.of(), server.commandRequests());
    for (String[] args : List.of(new String[] {"12"}, new String[] {"12", "13", "14"})) {
      Run usage = Run.of(Qorder::run, server(), "qorder", args);
      assertEquals(2, usage.status());
      assertEquals("usage: qorder job_identifier job_identifier\n", usage.err());
    }
  }

  @Test
  void qchkptGetsTorquesAnswerForEveryJob() {
    FakeServer server = server();
    Run run = Run.of(Qchkpt::run, server, "qchkpt", "12", "13");
    assertEquals(156, run.status());
    assertEquals(
        "qchkpt: job is not checkpointable 12.srv.cluster.org\n"
            + "qchkpt: job is not checkpointable 13.srv.cluster.org\n",
        run.err());
    assertEquals(
        Request.newBuilder()
            .setCheckpoint(CheckpointJob.newBuilder().setJobId("12.srv.cluster.org"))
            .build(),
        server.commandRequests().get(0));
    Run usage = Run.of(Qchkpt::run, server(), "qchkpt");
    assertEquals(2, usage.status());
    assertEquals("usage: qchkpt job_identifier...\n", usage.err());
  }

  @Test
  void unreachableServer() {
    Run down = Run.of(Qrun::run, FakeServer.unreachable(), "qrun", "12");
    assertEquals(1, down.status());
    assertTrue(down.err().startsWith("qrun: cannot talk to the Berth server"), down.err());
    Run order = Run.of(Qorder::run, FakeServer.unreachable(), "qorder", "12", "13");
    assertEquals(1, order.status());
  }

  private static Request move(String id, String destination) {
    return Request.newBuilder()
        .setMove(MoveJob.newBuilder().setJobId(id).setDestination(destination))
        .build();
  }
}

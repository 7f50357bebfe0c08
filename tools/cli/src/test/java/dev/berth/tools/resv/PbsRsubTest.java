package dev.berth.tools.resv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.client.testing.FakeServer;
import dev.berth.proto.CreateReservation;
import dev.berth.proto.Error;
import dev.berth.proto.Reservation;
import dev.berth.proto.ReservationList;
import dev.berth.proto.ReservationStatus;
import dev.berth.proto.Response;
import dev.berth.tools.testing.FakeCli;
import dev.berth.tools.testing.Run;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PbsRsubTest {
  private static final long NOW = FakeCli.NOW; // Mon Nov 30 10:00:00 2026 UTC
  private static final String USAGE =
      "usage: pbs_rsub [-R start_time] [-E end_time] [-D duration] [-N reservation_name]\n"
          + "                [-U auth_user_list] -l nodes=spec[,walltime=duration]\n";

  /** Confirms every request as R12.srv, with a warning. */
  private static FakeServer server() {
    return new FakeServer(
        r ->
            r.hasCreateReservation()
                ? Response.newBuilder()
                    .setReservations(
                        ReservationList.newBuilder()
                            .setServer("srv")
                            .addReservations(
                                ReservationStatus.newBuilder()
                                    .setReservation(
                                        Reservation.newBuilder()
                                            .setId("R12.srv")
                                            .setState(Reservation.State.CONFIRMED)))
                            .addWarnings("job 5.srv on n1 may still run at 12:00\u001b[2J"))
                    .build()
                : FakeServer.error(Error.Code.UNKNOWN_REQUEST, "unexpected"));
  }

  private static CreateReservation sent(FakeServer server) {
    assertEquals(1, server.requests().size());
    return server.requests().get(0).getCreateReservation();
  }

  @Test
  void printsTheIdAndStateAndTheWarningsOnStderr() {
    FakeServer server = server();
    Run run =
        Run.of(
            PbsRsub::run,
            server,
            "pbs_rsub",
            "-R",
            "1200",
            "-D",
            "1:00:00",
            "-N",
            "maint",
            "-U",
            "alice, bob,",
            "-l",
            "nodes=2:ppn=8");
    assertEquals(0, run.status(), run.err());
    assertEquals("R12.srv CONFIRMED\n", run.out());
    assertEquals("pbs_rsub: warning: job 5.srv on n1 may still run at 12:00\\x1b[2J\n", run.err());
    assertEquals(
        CreateReservation.newBuilder()
            .setStart(NOW + 7200)
            .setDuration(3600)
            .setNodes("2:ppn=8")
            .setName("maint")
            .addUsers("alice")
            .addUsers("bob")
            .build(),
        sent(server));
  }

  @Test
  void startDefaultsToNowAndAnEndWithoutADateFollowsTheStart() {
    FakeServer server = server();
    Run run = Run.of(PbsRsub::run, server, "pbs_rsub", "-E", "0930", "-l", "nodes=n1+n2");
    assertEquals(0, run.status(), run.err());
    assertEquals(
        CreateReservation.newBuilder().setEnd(NOW + 86400 - 1800).setNodes("n1+n2").build(),
        sent(server));

    server = server();
    Run.of(PbsRsub::run, server, "pbs_rsub", "-R", "1200", "-E", "1100", "-l", "nodes=1");
    assertEquals(NOW + 7200, sent(server).getStart());
    assertEquals(NOW + 86400 + 3600, sent(server).getEnd(), "11:00 after a 12:00 start: tomorrow");
  }

  @Test
  void datesAreReadInTheCallersZone() {
    FakeServer server = server();
    Run run =
        Run.of(
            PbsRsub::run,
            server,
            Map.of("TZ", "Europe/Zurich"),
            "pbs_rsub",
            "-R",
            "202611301200",
            "-E",
            "202611301300.30",
            "-l",
            "nodes=1");
    assertEquals(0, run.status(), run.err());
    assertEquals(NOW + 3600, sent(server).getStart());
    assertEquals(NOW + 7230, sent(server).getEnd());
  }

  @Test
  void walltimeIsTheDurationAndBothMayBeGivenWithAnEnd() {
    FakeServer server = server();
    Run.of(PbsRsub::run, server, "pbs_rsub", "-l", "nodes=1,walltime=90", "-E", "1200");
    assertEquals(90, sent(server).getDuration());
    assertEquals(NOW + 7200, sent(server).getEnd(), "the server judges whether they agree");
  }

  @Test
  void usageErrorsSendNothing() {
    assertUsage("pbs_rsub: -l nodes= is required\n", "-D", "60");
    assertUsage(
        "pbs_rsub: give an end time (-E) or a duration (-D or -l walltime=)\n",
        "-R",
        "1200",
        "-l",
        "nodes=1");
    assertUsage(
        "pbs_rsub: -l mem: a reservation takes only nodes= and walltime=\n",
        "-l",
        "nodes=1,mem=4gb",
        "-D",
        "60");
    assertUsage(
        "pbs_rsub: -l wd: resource request must be name=value\n", "-l", "nodes=1,wd", "-D", "60");
    assertUsage(
        "pbs_rsub: -R 12:00: expected [[[[CC]YY]MM]DD]hhmm[.SS], e.g. 202309220900 or 0930\n",
        "-R",
        "12:00",
        "-D",
        "60",
        "-l",
        "nodes=1");
    assertUsage("pbs_rsub: -E 2460: no such date or time\n", "-E", "2460", "-l", "nodes=1");
    assertUsage("pbs_rsub: -D 0: the duration must be positive\n", "-D", "0", "-l", "nodes=1");
    assertUsage(
        "pbs_rsub: -D: time value 'soon' is not [[[DD:]HH:]MM:]SS (field 'soon')\n",
        "-D",
        "soon",
        "-l",
        "nodes=1");
    assertUsage("pbs_rsub: unexpected argument 'n1'\n", "-D", "60", "-l", "nodes=1", "n1");
    assertUsage("pbs_rsub: invalid option -- 'q'\n", "-q", "@other");
  }

  private static void assertUsage(String error, String... args) {
    FakeServer server = server();
    Run run = Run.of(PbsRsub::run, server, "pbs_rsub", args);
    assertEquals(2, run.status(), run.err());
    assertEquals(error + USAGE, run.err());
    assertEquals("", run.out());
    assertEquals(List.of(), server.requests());
  }

  @Test
  void serverErrorsExitWithTheirCode() {
    FakeServer server =
        new FakeServer(
            r ->
                FakeServer.error(
                    Error.Code.PERMISSION, "alice@h may not make reservations: operators only"));
    Run run = Run.of(PbsRsub::run, server, "pbs_rsub", "-D", "60", "-l", "nodes=1");
    assertEquals(159, run.status());
    assertEquals("pbs_rsub: alice@h may not make reservations: operators only\n", run.err());
    assertEquals("", run.out());
  }

  @Test
  void anUnreachableServerExitsOne() {
    Run run =
        Run.of(PbsRsub::run, FakeServer.unreachable(), "pbs_rsub", "-D", "60", "-l", "nodes=1");
    assertEquals(1, run.status());
    assertTrue(run.err().startsWith("pbs_rsub: "), run.err());
  }
}

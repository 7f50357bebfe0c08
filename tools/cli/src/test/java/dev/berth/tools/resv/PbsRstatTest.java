package dev.berth.tools.resv;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.berth.client.testing.FakeServer;
import dev.berth.core.ControlCharacters;
import dev.berth.proto.Error;
import dev.berth.proto.Reservation;
import dev.berth.proto.ReservationList;
import dev.berth.proto.ReservationStatus;
import dev.berth.proto.Response;
import dev.berth.proto.StatReservations;
import dev.berth.tools.testing.FakeCli;
import dev.berth.tools.testing.Run;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PbsRstatTest {
  private static final long NOW = FakeCli.NOW; // Mon Nov 30 10:00:00 2026 UTC
  private static final long DAY = 86400;

  /** Today 12:00-13:00, for alice and bob, with jobs in its queue. */
  private static final ReservationStatus TODAY =
      ReservationStatus.newBuilder()
          .setReservation(
              Reservation.newBuilder()
                  .setId("R12.srv")
                  .setName("maint")
                  .setOwner("root@head")
                  .setQueue("R12")
                  .setStart(NOW + 7200)
                  .setEnd(NOW + 10800)
                  .addNodes("n1")
                  .addNodes("n2")
                  .setNodesRequest("2")
                  .setState(Reservation.State.CONFIRMED)
                  .setCtime(NOW - 60))
          .addUsers("alice")
          .addUsers("bob")
          .putStateCount("Q", 1)
          .putStateCount("R", 2)
          .build();

  /** Next year, deleted already, with a long id. */
  private static final ReservationStatus NEXT_YEAR =
      ReservationStatus.newBuilder()
          .setReservation(
              Reservation.newBuilder()
                  .setId("R123456.srv.cluster.org")
                  .setOwner("root@head")
                  .setQueue("R123456")
                  .setStart(NOW + 36 * DAY)
                  .setEnd(NOW + 37 * DAY)
                  .setNodesRequest("n3")
                  .setState(Reservation.State.FINISHED)
                  .setCtime(NOW)
                  .setEndReason("deleted by root@head"))
          .build();

  private static FakeServer server(ReservationStatus... reservations) {
    ReservationList list =
        ReservationList.newBuilder()
            .setServer("srv")
            .addAllReservations(List.of(reservations))
            .build();
    return new FakeServer(
        r ->
            r.hasStatReservations()
                ? Response.newBuilder().setReservations(list).build()
                : FakeServer.error(Error.Code.UNKNOWN_REQUEST, "unexpected"));
  }

  @Test
  void theDefaultIsOpenPbsShortTable() {
    Run run = Run.of(PbsRstat::run, server(TODAY, NEXT_YEAR), "pbs_rstat");
    assertEquals(0, run.status(), run.err());
    assertEquals(
        "Resv ID    Queue    User     State             Start / Duration / End              \n"
            + "---------------------------------------------------------------------\n"
            + "R12.srv    R12      alice,bo CO          Today 12:00 / 3600 / Today 13:00      \n"
            + "R123456.sr R123456           FN    Tue Jan 05 2027 10:00 / 86400 / Wed Jan 06 2027"
            + " 10:00\n",
        run.out());
    assertEquals("", run.err());
  }

  @Test
  void briefListsTheIdsAndTheIdsGoAsTyped() {
    FakeServer server = server(TODAY, NEXT_YEAR);
    Run run = Run.of(PbsRstat::run, server, "pbs_rstat", "-f", "-B", "R12", "R123456.srv");
    assertEquals(0, run.status(), run.err());
    assertEquals("Resv ID: R12.srv\nResv ID: R123456.srv.cluster.org\n", run.out());
    assertEquals(
        StatReservations.newBuilder().addIds("R12").addIds("R123456.srv").build(),
        server.requests().get(0).getStatReservations());
  }

  @Test
  void fullShowsEveryAttributeInTheCallersZone() {
    Run run =
        Run.of(
            PbsRstat::run,
            server(TODAY, NEXT_YEAR),
            Map.of("TZ", "Europe/Zurich"),
            "pbs_rstat",
            "-f");
    assertEquals(0, run.status(), run.err());
    assertEquals(
        "Resv ID: R12.srv\n"
            + "    Reserve_Name = maint\n"
            + "    Reserve_Owner = root@head\n"
            + "    reserve_state = RESV_CONFIRMED\n"
            + "    reserve_start = Mon Nov 30 13:00:00 2026\n"
            + "    reserve_end = Mon Nov 30 14:00:00 2026\n"
            + "    reserve_duration = 3600\n"
            + "    queue = R12\n"
            + "    Resource_List.nodes = 2\n"
            + "    resv_nodes = n1+n2\n"
            + "    Authorized_Users = alice,bob\n"
            + "    server = srv\n"
            + "    ctime = Mon Nov 30 10:59:00 2026\n"
            + "    state_count = Transit:0 Queued:1 Held:0 Waiting:0 Running:2 Exiting:0"
            + " Complete:0 \n"
            + "\n"
            + "Resv ID: R123456.srv.cluster.org\n"
            + "    Reserve_Owner = root@head\n"
            + "    reserve_state = RESV_FINISHED\n"
            + "    reserve_start = Tue Jan  5 11:00:00 2027\n"
            + "    reserve_end = Wed Jan  6 11:00:00 2027\n"
            + "    reserve_duration = 86400\n"
            + "    queue = R123456\n"
            + "    Resource_List.nodes = n3\n"
            + "    server = srv\n"
            + "    ctime = Mon Nov 30 11:00:00 2026\n"
            + "    end_reason = deleted by root@head\n"
            + "    state_count = Transit:0 Queued:0 Held:0 Waiting:0 Running:0 Exiting:0"
            + " Complete:0 \n"
            + "\n",
        run.out());
  }

  @Test
  void noReservationsPrintNothing() {
    for (String layout : List.of("-S", "-B", "-f")) {
      Run run = Run.of(PbsRstat::run, server(), "pbs_rstat", layout);
      assertEquals(0, run.status(), run.err());
      assertEquals("", run.out());
    }
  }

  @Test
  void valuesCannotForgeLinesOrReachTheTerminal() {
    ReservationStatus hostile =
        TODAY.toBuilder()
            .setReservation(
                TODAY.getReservation().toBuilder()
                    .setId("R1.srv\u001b]0;x")
                    .setName("a\nReserve_Owner = alice")
                    .setEndReason("\u202egnol"))
            .setUsers(0, "\u001b[31m")
            .build();
    FakeServer server = server(hostile);
    String full = Run.of(PbsRstat::run, server, "pbs_rstat", "-f").out();
    String brief = Run.of(PbsRstat::run, server, "pbs_rstat", "-B").out();
    String table = Run.of(PbsRstat::run, server, "pbs_rstat").out();
    for (String out : List.of(full, brief, table)) {
      assertEquals(-1, ControlCharacters.find(out.replace("\n", "")), out);
    }
    assertEquals("Resv ID: R1.srv\\x1b]0;x\n", brief);
    assertEquals("    Reserve_Name = a\\nReserve_Owner = alice", full.lines().toList().get(1));
  }

  @Test
  void serverErrorsExitWithTheirCode() {
    FakeServer server = new FakeServer(r -> FakeServer.error(Error.Code.UNKNOWN_RESERVATION, ""));
    Run run = Run.of(PbsRstat::run, server, "pbs_rstat", "R5");
    assertEquals(236, run.status());
    assertEquals("pbs_rstat: Unknown Reservation Id\n", run.err());
    assertEquals("", run.out());
  }

  @Test
  void aBadOptionIsAUsageError() {
    FakeServer server = server(TODAY);
    Run run = Run.of(PbsRstat::run, server, "pbs_rstat", "-x");
    assertEquals(2, run.status());
    assertEquals(
        "pbs_rstat: invalid option -- 'x'\nusage: pbs_rstat [-B | -S | -f] [resv_id...]\n",
        run.err());
    assertEquals(List.of(), server.requests());
  }
}

package dev.berth.tools.resv;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.berth.client.testing.FakeServer;
import dev.berth.proto.DeleteReservation;
import dev.berth.proto.Error;
import dev.berth.proto.Request;
import dev.berth.tools.testing.Run;
import java.util.List;
import org.junit.jupiter.api.Test;

class PbsRdelTest {
  /** Deletes R12; R13 is someone else's; nothing else exists. */
  private static FakeServer server() {
    return new FakeServer(
        r ->
            switch (r.getDeleteReservation().getId()) {
              case "R12", "R12.srv" -> FakeServer.ack();
              case "R13" ->
                  FakeServer.error(
                      Error.Code.PERMISSION, "alice@h may not delete reservation R13.srv");
              default -> FakeServer.error(Error.Code.UNKNOWN_RESERVATION, "");
            });
  }

  @Test
  void oneRequestPerIdAndNothingPrintedOnSuccess() {
    FakeServer server = server();
    Run run = Run.of(PbsRdel::run, server, "pbs_rdel", "R12", "R12.srv");
    assertEquals(0, run.status(), run.err());
    assertEquals("", run.out() + run.err());
    assertEquals(List.of(delete("R12"), delete("R12.srv")), server.requests());
  }

  @Test
  void everyIdIsTriedAndTheLastFailureDecides() {
    FakeServer server = server();
    Run run = Run.of(PbsRdel::run, server, "pbs_rdel", "R5", "R13", "R12", "R6\u001b");
    assertEquals(
        List.of(delete("R5"), delete("R13"), delete("R12"), delete("R6\u001b")), server.requests());
    assertEquals(
        "pbs_rdel: Unknown Reservation Id R5\n"
            + "pbs_rdel: alice@h may not delete reservation R13.srv\n"
            + "pbs_rdel: Unknown Reservation Id R6\\x1b\n",
        run.err());
    assertEquals(236, run.status());
    assertEquals("", run.out());
  }

  @Test
  void withoutIdsItIsAUsageError() {
    FakeServer server = server();
    Run run = Run.of(PbsRdel::run, server, "pbs_rdel");
    assertEquals(2, run.status());
    assertEquals("usage: pbs_rdel resv_identifier...\n", run.err());
    assertEquals(List.of(), server.requests());
    assertEquals(2, Run.of(PbsRdel::run, server, "pbs_rdel", "-q", "x", "R12").status());
  }

  private static Request delete(String id) {
    return Request.newBuilder()
        .setDeleteReservation(DeleteReservation.newBuilder().setId(id))
        .build();
  }
}

package dev.berth.server.query;

import static dev.berth.server.testing.Driver.ALICE;
import static dev.berth.server.testing.Driver.BOB;
import static dev.berth.server.testing.Driver.attr;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.core.AttributeNames;
import dev.berth.proto.AttachJob;
import dev.berth.proto.AttachReply;
import dev.berth.proto.Error;
import dev.berth.proto.Letter;
import dev.berth.proto.Node;
import dev.berth.proto.Response;
import dev.berth.security.Identity;
import dev.berth.security.Role;
import dev.berth.security.seal.InsecureSeal;
import dev.berth.server.command.Caller;
import dev.berth.server.testing.Driver;
import java.time.Clock;
import org.junit.jupiter.api.Test;

class TerminalPermitsTest {
  private final Driver d = Driver.withTwoNodes();
  private final TerminalPermits permits =
      new TerminalPermits(
          new InsecureSeal(new Identity(Role.SERVER, "head"), Clock.systemUTC()), Driver.SERVER);

  private Response attach(Caller caller, String id) {
    return permits.answer(d.state, caller, AttachJob.newBuilder().setJobId(id).build()).build();
  }

  private String interactive() {
    return d.submit(ALICE, attr(AttributeNames.INTERACTIVE, "True"));
  }

  /** Node n1 as its mom reports it, with a terminal port. */
  private void terminalPorts() {
    for (String name : new String[] {"n1", "n2"}) {
      Node n = d.state.node(name).orElseThrow();
      d.hello(n.toBuilder().setTerminalAddress("10.0.0." + name.charAt(1) + ":4711").build());
    }
  }

  @Test
  void aWaitingJobSaysWhereItIsAndGivesNoPermitYet() {
    terminalPorts();
    String id = interactive();
    AttachReply queued = attach(ALICE, id).getAttach();
    assertEquals("Q", queued.getState());
    assertFalse(queued.hasPermit());
    d.schedule();
    AttachReply dispatched = attach(ALICE, id).getAttach();
    assertEquals("R", dispatched.getState());
    assertTrue(dispatched.getAddress().isEmpty(), "not before the mother superior started it");
  }

  @Test
  void theOwnerGetsAPermitSealedForTheMotherSuperiorOnceItStarted() throws Exception {
    terminalPorts();
    String id = interactive();
    d.schedule();
    d.started(id);
    String node = d.motherSuperior(id);
    AttachReply reply = attach(ALICE, id.substring(0, id.indexOf('.'))).getAttach();
    assertEquals(node, reply.getNode());
    assertEquals("10.0.0." + node.charAt(1) + ":4711", reply.getAddress());
    Letter letter = Letter.parseFrom(reply.getPermit().getLetter());
    assertEquals(node, letter.getTo());
    assertEquals(id, letter.getTerminalPermit().getJobId());
    assertEquals("alice", letter.getTerminalPermit().getUser());
    assertTrue(reply.getCaCertificates().isEmpty(), "an insecure server has no CA to give");
  }

  @Test
  void noOneButTheOwnerAndOnlyForAnInteractiveJobOnANodeWithATerminalPort() {
    String id = interactive();
    d.schedule();
    d.started(id);
    assertEquals(Error.Code.SYSTEM, attach(ALICE, id).getError().getCode(), "no terminal port");
    terminalPorts();
    assertEquals(Error.Code.UNKNOWN_JOB, attach(BOB, id).getError().getCode(), "hidden from bob");
    d.setServer(Driver.ROOT, attr("query_other_jobs", "True"));
    Response bobs = attach(BOB, id);
    assertEquals(Error.Code.PERMISSION, bobs.getError().getCode());
    assertTrue(bobs.getError().getMessage().contains("only its owner may attach"));
    Response roots = attach(Driver.ROOT, id);
    assertEquals(Error.Code.PERMISSION, roots.getError().getCode(), "not even a manager");
    String batch = d.submit(ALICE);
    assertEquals(Error.Code.BAD_STATE, attach(ALICE, batch).getError().getCode());
    d.runToEnd(id, 0);
    assertEquals(Error.Code.BAD_STATE, attach(ALICE, id).getError().getCode(), "ended");
  }
}

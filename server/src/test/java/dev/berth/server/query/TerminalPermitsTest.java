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
import dev.berth.security.pki.CertificateAuthority;
import dev.berth.security.pki.Credential;
import dev.berth.security.seal.InsecureSeal;
import dev.berth.security.seal.Seal;
import dev.berth.security.seal.SignedSeal;
import dev.berth.server.command.Caller;
import dev.berth.server.testing.Driver;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TerminalPermitsTest {
  @TempDir static Path pki;
  private static SignedSeal server;
  private static Seal momOfN1;

  private final Driver d = Driver.withTwoNodes();
  private final TerminalPermits permits = new TerminalPermits(server, Driver.SERVER);

  @BeforeAll
  static void credentials() throws Exception {
    CertificateAuthority ca =
        CertificateAuthority.create(
            pki.resolve("ca"), "permits-test", Duration.ofDays(1), Clock.systemUTC());
    server = new SignedSeal(credential(ca, new Identity(Role.SERVER, "head")), Clock.systemUTC());
    momOfN1 = new SignedSeal(credential(ca, new Identity(Role.MOM, "n1")), Clock.systemUTC());
  }

  private static Credential credential(CertificateAuthority ca, Identity who) throws Exception {
    Path dir = pki.resolve(who.role().word() + "-" + who.name());
    ca.issue(who, List.of(), Duration.ofDays(1), dir);
    return Credential.load(dir, Clock.systemUTC());
  }

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
    assertTrue(
        reply.getCaCertificates().toStringUtf8().startsWith("-----BEGIN CERTIFICATE-----"),
        "the CA, for qsub to check the mom's certificate against");
    if (node.equals("n1")) {
      Seal.Opened opened = momOfN1.open(reply.getPermit()); // the mom takes the server's seal
      assertEquals(Role.SERVER, opened.from().role());
    }
  }

  @Test
  void anInsecureClusterGivesNoPermits() {
    terminalPorts();
    String id = interactive();
    d.schedule();
    d.started(id);
    TerminalPermits insecure =
        new TerminalPermits(
            new InsecureSeal(new Identity(Role.SERVER, "head"), Clock.systemUTC()), Driver.SERVER);
    Response r =
        insecure.answer(d.state, ALICE, AttachJob.newBuilder().setJobId(id).build()).build();
    assertEquals(Error.Code.SYSTEM, r.getError().getCode());
    assertTrue(r.getError().getMessage().contains("--insecure"), r.toString());
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

package dev.berth.tools.qsub.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.io.IOException;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * qsub -I in a secure cluster: TLS to the terminal port, trusting only the CA the server sent, and
 * only the mom of the job's node. Anyone else who answers there (another node's mom, a server,
 * something the cluster's CA did not sign) gets nothing, not even the permit.
 */
class MomTerminalTest {
  private static TestPki.Ca ca;
  private static TestPki.Ca stranger;

  private final InteractiveSessions session = InteractiveSessions.atTerminal();

  @BeforeAll
  static void pki() throws Exception {
    ca = TestPki.ca("cluster");
    stranger = TestPki.ca("elsewhere");
  }

  /** The server qsub asked in the last {@link #attach}: its requests, the deletes among them. */
  private ScriptedServer server;

  private int attach(TestPki.Credential shown, ByteString trusted, StandInPort.Script script)
      throws Exception {
    try (StandInPort mom = new StandInPort(shown.serverContext(), script)) {
      server = new ScriptedServer(r -> InteractiveSessions.running(mom.address(), trusted));
      return session.run(server);
    }
  }

  private static final StandInPort.Script READY_AND_DONE =
      peer -> {
        peer.ready();
        peer.output("hello from n01\r\n");
        peer.exit(0);
      };

  @Test
  void theMomOfTheJobsNodeIsTrusted() throws Exception {
    assertEquals(0, attach(ca.issue("urn:berth:mom:n01"), ca.pem(), READY_AND_DONE));
    assertEquals("", session.stderr());
    assertTrue(session.stdout().contains("hello from n01\r\n"), session.stdout());
  }

  @Test
  void everyCaCertificateTheServerSentIsTrusted() throws Exception {
    ByteString both = TestPki.pem(stranger.certificate(), ca.certificate());
    assertEquals(0, attach(ca.issue("urn:berth:mom:n01"), both, READY_AND_DONE));
  }

  @Test
  void anotherNodesMomIsRefused() throws Exception {
    assertEquals(1, attach(ca.issue("urn:berth:mom:n02"), ca.pem(), READY_AND_DONE));
    assertTrue(
        session
            .stderr()
            .matches(
                "qsub: refusing the terminal of job 7\\.srv at 127\\.0\\.0\\.1:\\d+: the"
                    + " certificate there names urn:berth:mom:n02, not urn:berth:mom:n01 \\(the"
                    + " mom of node n01\\)\n"
                    + "qsub: deleting job 7\\.srv, which cannot start without its terminal\n"),
        session.stderr());
    assertTrue(!session.stdout().contains("ready"), session.stdout());
    assertEquals(1, server.deletes().size(), "a job qsub cannot attach to holds its nodes in vain");
  }

  @Test
  void aServerCredentialIsNotAMom() throws Exception {
    assertEquals(1, attach(ca.issue("urn:berth:server:n01"), ca.pem(), READY_AND_DONE));
    assertTrue(
        session.stderr().contains("names urn:berth:server:n01, not urn:berth:mom:n01"),
        session.stderr());
  }

  @Test
  void aCertificateOfAnotherCaIsRefused() throws Exception {
    assertEquals(1, attach(stranger.issue("urn:berth:mom:n01"), ca.pem(), READY_AND_DONE));
    assertTrue(
        session.stderr().startsWith("qsub: cannot reach the terminal of job 7.srv on n01 at "),
        session.stderr());
  }

  @Test
  void thePermitIsShownOnlyToTheRightMom() throws Exception {
    TestPki.Credential other = ca.issue("urn:berth:mom:n02");
    try (StandInPort mom = new StandInPort(other.serverContext(), READY_AND_DONE)) {
      session.run(new ScriptedServer(r -> InteractiveSessions.running(mom.address(), ca.pem())));
      dev.berth.proto.TerminalIn shown;
      try {
        shown = mom.attach();
      } catch (Exception e) {
        shown = null; // the handshake or the read failed on the stand-in's side
      }
      assertNull(shown, "the client hung up before sending anything");
    }
  }

  @Test
  void aCertificateMustNameExactlyOneBerthIdentity() throws Exception {
    assertEquals(
        "the certificate there names no Berth identity, not urn:berth:mom:n01 (the mom of node"
            + " n01)",
        assertThrows(
                MomTerminal.WrongPeerException.class,
                () -> MomTerminal.checkIsMomOf("n01", ca.issue().certificate()))
            .getMessage());
    assertTrue(
        assertThrows(
                MomTerminal.WrongPeerException.class,
                () ->
                    MomTerminal.checkIsMomOf(
                        "n01", ca.issue("urn:berth:mom:n01", "urn:berth:mom:n02").certificate()))
            .getMessage()
            .contains("names several Berth identities"));
    MomTerminal.checkIsMomOf("n01", ca.issue("urn:berth:mom:n01").certificate());
    MomTerminal.checkIsMomOf(
        "n01", ca.issue("urn:berth:mom:n01", "https://n01.example.org").certificate());
  }

  @Test
  void unreadableCaCertificatesAreReported() {
    IOException e =
        assertThrows(
            IOException.class, () -> MomTerminal.context(ByteString.copyFromUtf8("not a PEM")));
    assertTrue(
        e.getMessage().startsWith("the cluster's CA certificates cannot be read"), e.getMessage());
  }

  @Test
  void addresses() throws Exception {
    InetSocketAddress v4 = MomTerminal.parse("127.0.0.1:15004");
    assertEquals(15004, v4.getPort());
    assertEquals("127.0.0.1", v4.getHostString());
    assertEquals("0:0:0:0:0:0:0:1", MomTerminal.parse("[::1]:15004").getAddress().getHostAddress());
    assertThrows(IOException.class, () -> MomTerminal.parse("n01"));
    assertThrows(IOException.class, () -> MomTerminal.parse("n01:"));
    assertThrows(IOException.class, () -> MomTerminal.parse("n01:99999"));
  }
}

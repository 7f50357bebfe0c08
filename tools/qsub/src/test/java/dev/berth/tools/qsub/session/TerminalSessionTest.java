package dev.berth.tools.qsub.session;

import static dev.berth.tools.qsub.session.InteractiveSessions.PERMIT;
import static dev.berth.tools.qsub.session.InteractiveSessions.WINDOW;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.proto.TerminalIn;
import dev.berth.proto.TerminalOut;
import dev.berth.proto.WindowSize;
import java.io.ByteArrayOutputStream;
import org.junit.jupiter.api.Test;

/** The session on a stand-in for the mom's terminal port, over plain TCP (an insecure cluster). */
class TerminalSessionTest {
  private InteractiveSessions session = InteractiveSessions.atTerminal();

  private int run(StandInPort mom) {
    return session.run(
        new ScriptedServer(
            r -> InteractiveSessions.running(mom.address(), StandInPort.caCertificates())));
  }

  @Test
  void attachesShowsTheOutputAndEndsWithTheJobsStatus() throws Exception {
    try (StandInPort mom =
        new StandInPort(
            peer -> {
              peer.ready();
              peer.output("$ ");
              peer.output("exit 3\r\n");
              peer.exit(3);
            })) {
      assertEquals(3, run(mom), session.stderr());
      TerminalIn attach = mom.attach();
      assertEquals(PERMIT, attach.getAttach().getPermit());
      assertEquals("xterm-256color", attach.getAttach().getTerm());
      assertEquals(WINDOW, attach.getAttach().getWindow());
      mom.played();
    }
    assertEquals(
        "qsub: waiting for job 7.srv to start\n"
            + "qsub: job 7.srv ready\n\n"
            + "$ exit 3\r\n"
            + "\nqsub: job 7.srv completed\n",
        session.stdout());
    assertEquals("", session.stderr());
    assertEquals(1, session.terminal.rawEntered);
    assertEquals(1, session.terminal.rawRestored);
  }

  @Test
  void aRefusalIsShownAndTheTerminalIsLeftAlone() throws Exception {
    try (StandInPort mom =
        new StandInPort(
            peer ->
                peer.send(
                    TerminalOut.newBuilder()
                        .setRefused(
                            "the permit was sealed 900 s ago; ask the server for a new one")))) {
      assertEquals(1, run(mom));
    }
    assertEquals(
        "qsub: the permit was sealed 900 s ago; ask the server for a new one\n", session.stderr());
    assertEquals(0, session.terminal.rawEntered);
  }

  @Test
  void aLostConnectionRestoresTheTerminal() throws Exception {
    try (StandInPort mom = new StandInPort(peer -> peer.ready())) {
      assertEquals(1, run(mom));
    }
    assertEquals("qsub: lost the connection to job 7.srv (the node closed it)\n", session.stderr());
    assertEquals(1, session.terminal.rawEntered);
    assertEquals(1, session.terminal.rawRestored);
  }

  @Test
  void keystrokesGoToTheJobAndTheEndOfATerminalIsAHangup() throws Exception {
    session.stdin("ls\n");
    ByteArrayOutputStream typed = new ByteArrayOutputStream();
    try (StandInPort mom =
        new StandInPort(
            peer -> {
              peer.ready();
              for (TerminalIn in = peer.read(); !in.getHangup(); in = peer.read()) {
                in.getInput().writeTo(typed);
              }
              peer.exit(0);
            })) {
      assertEquals(0, run(mom), session.stderr());
      mom.played();
    }
    assertEquals("ls\n", typed.toString(UTF_8));
  }

  @Test
  void inputThatIsNotATerminalIsSentAsItIsThenCtrlD() throws Exception {
    session = new InteractiveSessions(new FakeTerminal(false, null)).stdin("echo one\necho two\n");
    ByteArrayOutputStream typed = new ByteArrayOutputStream();
    try (StandInPort mom =
        new StandInPort(
            peer -> {
              peer.ready();
              while (!typed.toString(UTF_8).endsWith("\u0004")) {
                TerminalIn in = peer.read();
                assertTrue(in.hasInput(), in.toString());
                in.getInput().writeTo(typed);
              }
              peer.exit(0);
            })) {
      assertEquals(0, run(mom), session.stderr());
      assertEquals(
          TerminalSession.DEFAULT_WINDOW,
          mom.attach().getAttach().getWindow(),
          "Torque's 20x80 when there is no size to be had");
      mom.played();
    }
    assertEquals("echo one\necho two\n\u0004", typed.toString(UTF_8));
    assertEquals(0, session.terminal.rawEntered, "no terminal to put into raw mode");
  }

  @Test
  void aResizedWindowIsPassedOn() throws Exception {
    WindowSize bigger = WindowSize.newBuilder().setRows(60).setColumns(200).build();
    TerminalIn[] seen = new TerminalIn[1];
    try (StandInPort mom =
        new StandInPort(
            peer -> {
              peer.ready();
              session.terminal.resize(bigger);
              seen[0] = peer.read();
              peer.exit(0);
            })) {
      assertEquals(0, run(mom), session.stderr());
      mom.played();
    }
    assertEquals(bigger, seen[0].getWindow());
  }

  @Test
  void outputOfManyFramesArrivesWhole() throws Exception {
    String block = "x".repeat(64 << 10);
    try (StandInPort mom =
        new StandInPort(
            peer -> {
              peer.ready();
              for (int i = 0; i < 4; i++) {
                peer.output(block);
              }
              peer.exit(0);
            })) {
      assertEquals(0, run(mom), session.stderr());
    }
    assertTrue(session.stdout().contains(block.repeat(4) + "\nqsub: job 7.srv completed\n"));
  }

  @Test
  void aSignalledJobExitsAsAShellReportsIt() {
    assertEquals(0, TerminalSession.exitStatus(0));
    assertEquals(255, TerminalSession.exitStatus(255));
    assertEquals(137, TerminalSession.exitStatus(256 + 9));
    assertEquals(143, TerminalSession.exitStatus(256 + 15));
    assertEquals(1, TerminalSession.exitStatus(-11));
    assertEquals(1, TerminalSession.exitStatus(256));
  }

  @Test
  void anUnreachablePortIsReported() throws Exception {
    String address;
    try (java.net.ServerSocket closed = new java.net.ServerSocket(0)) {
      address = "127.0.0.1:" + closed.getLocalPort();
    }
    int status =
        session.run(
            new ScriptedServer(
                r -> InteractiveSessions.running(address, StandInPort.caCertificates())));
    assertEquals(1, status);
    assertTrue(
        session
            .stderr()
            .startsWith("qsub: cannot reach the terminal of job 7.srv on n01 at " + address + ": "),
        session.stderr());
  }
}

package dev.berth.tools.qsub;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.client.Invocation;
import dev.berth.client.LocalFiles;
import dev.berth.client.Origin;
import dev.berth.client.testing.FakeServer;
import dev.berth.proto.Ack;
import dev.berth.proto.AttachReply;
import dev.berth.proto.Error;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.proto.SubmitJob;
import dev.berth.proto.SubmitReply;
import dev.berth.tools.qsub.session.FakeTerminal;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * qsub -I and -x: Torque's rules for the options, what is sent, and the start of the wait (the
 * session itself is tested in the session package).
 */
class InteractiveQsubTest {
  private static final Response SUBMITTED =
      Response.newBuilder().setSubmitted(SubmitReply.newBuilder().setJobId("42.head")).build();
  private static final Response DELETED =
      Response.newBuilder()
          .setError(
              Error.newBuilder().setCode(Error.Code.UNKNOWN_JOB).setMessage("Unknown Job Id 42"))
          .build();

  @TempDir Path dir;
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();
  private boolean onTerminal = true;
  private boolean stdinRead;
  private final FakeTerminal terminal = new FakeTerminal(true, null);
  private FakeServer server = new FakeServer(r -> r.hasSubmit() ? SUBMITTED : DELETED);

  private int qsub(String... args) {
    InputStream stdin =
        new InputStream() {
          @Override
          public int read() {
            stdinRead = true;
            return -1;
          }
        };
    Origin origin =
        new Origin(
            () -> SubmitPlace.HOST,
            ZoneOffset.UTC,
            onTerminal,
            LocalFiles.PROCESS,
            null,
            () -> "sub-1");
    Invocation inv =
        new Invocation(
            "qsub",
            List.of(args),
            SubmitPlace.ENV,
            dir,
            stdin,
            new PrintStream(out, true, UTF_8),
            new PrintStream(err, true, UTF_8),
            origin);
    return Qsub.run(inv, SubmitPlace.CTX, server, terminal);
  }

  private String file(String name, String text) throws Exception {
    Files.writeString(dir.resolve(name), text, UTF_8);
    return name;
  }

  private SubmitJob submitted() {
    return server.requests().get(0).getSubmit();
  }

  private Map<String, String> sent() {
    return SubmitPlace.byName(submitted().getAttributesList());
  }

  private String stderr() {
    return err.toString(UTF_8);
  }

  @Test
  void anInteractiveJobIsSentWithoutAScriptAndItsIdIsNotPrinted() {
    assertEquals(1, qsub("-I", "-l", "nodes=1:ppn=4"));
    assertEquals("True", sent().get("interactive"));
    assertNull(sent().get("inter_cmd"));
    assertEquals("STDIN", sent().get("Job_Name"));
    assertTrue(submitted().getScript().isEmpty(), "the terminal is the script");
    assertFalse(stdinRead, "standard input is the session's, not a script");
    assertEquals("qsub: waiting for job 42.head to start\n", out.toString(UTF_8));
    assertEquals("qsub: job 42.head apparently deleted\n", stderr());
    Request attach = server.requests().get(1);
    assertEquals("42.head", attach.getAttach().getJobId());
  }

  @Test
  void interactiveThroughWIsTheSame() {
    assertEquals(1, qsub("-W", "interactive=true"));
    assertEquals("True", sent().get("interactive"));
    assertFalse(stdinRead);
  }

  @Test
  void aScriptIsReadForItsDirectivesOnly() throws Exception {
    assertEquals(1, qsub("-I", file("s.pbs", "#PBS -l walltime=1:00:00 -N inter\nsleep 1\n")));
    assertEquals("1:00:00", sent().get("Resource_List.walltime"));
    assertEquals("inter", sent().get("Job_Name"));
    assertTrue(submitted().getScript().isEmpty());
  }

  @Test
  void aDirectiveCanMakeTheJobInteractive() throws Exception {
    assertEquals(1, qsub(file("s.pbs", "#PBS -I\n#PBS -N inter\n")));
    assertEquals("True", sent().get("interactive"));
    assertTrue(submitted().getScript().isEmpty());
  }

  @Test
  void withoutATerminalTorquesMessageAndNothingIsSent() {
    onTerminal = false;
    assertEquals(1, qsub("-I"));
    assertEquals(
        "qsub:\tstandard input and output must be a terminal for \n"
            + "\tinteractive job submission\n",
        stderr());
    assertEquals(0, server.connections());
    assertFalse(stdinRead);
  }

  @Test
  void anInteractiveJobCannotBeAnArray() {
    assertEquals(2, qsub("-I", "-t", "1-3"));
    assertEquals(
        "qsub: interactive job can not be job array.\nqsub: no job was submitted\n", stderr());
    assertEquals(0, server.connections());
  }

  @Test
  void xNeedsIBeforeIt() {
    assertEquals(2, qsub("-x", "-I", "hostname"));
    assertEquals(
        "qsub: '-x' invalid on non-interactive job\nqsub: no job was submitted\n", stderr());
    assertEquals(0, server.connections());
  }

  @Test
  void xNeedsACommand() {
    assertEquals(2, qsub("-I", "-x"));
    assertEquals(
        "qsub: '-x' used without a script specified\nqsub: no job was submitted\n", stderr());
    assertFalse(stdinRead);
  }

  @Test
  void xRunsACommandThatIsNoFileAndNeedsNoTerminal() {
    onTerminal = false;
    assertEquals(1, qsub("-I", "-x", "hostname -f"));
    assertEquals("hostname -f", sent().get("inter_cmd"));
    assertEquals("True", sent().get("interactive"));
    assertEquals("hostname", sent().get("Job_Name"));
    assertTrue(submitted().getScript().isEmpty());
    assertFalse(stdinRead, "stdin is for the command");
  }

  @Test
  void xReadsAScriptFileForItsDirectives() throws Exception {
    assertEquals(1, qsub("-I", "-x", file("run.sh", "#!/bin/sh\n#PBS -N fromfile\n./a.out\n")));
    assertEquals(
        "'" + dir.resolve("run.sh").toAbsolutePath() + "'",
        sent().get("inter_cmd"),
        "the job runs in its working directory: the file goes by its absolute path");
    assertEquals("fromfile", sent().get("Job_Name"));
    assertTrue(submitted().getScript().isEmpty());
  }

  @Test
  void xTakesABinaryWithoutLookingForDirectives() throws Exception {
    Files.write(dir.resolve("tool"), new byte[] {0x7f, 'E', 'L', 'F', 0, 0, 1});
    assertEquals(1, qsub("-I", "-x", "tool"));
    assertEquals("tool", sent().get("Job_Name"));
    assertEquals("'" + dir.resolve("tool").toAbsolutePath() + "'", sent().get("inter_cmd"));
  }

  @Test
  void xRefusesControlCharactersInTheCommand() {
    assertEquals(2, qsub("-I", "-x", "echo a\nrm -rf b"));
    assertTrue(
        stderr().startsWith("qsub: -x: the command holds the control character \\n"), stderr());
  }

  @Test
  void x11ForwardingIsNotAvailable() {
    assertEquals(2, qsub("-I", "-X"));
    assertTrue(stderr().startsWith("qsub: -X is not supported: X11 forwarding"), stderr());
  }

  @Test
  void ctrlCWhileWaitingDeletesTheJob() {
    terminal.answer("y");
    server =
        new FakeServer(
            r -> {
              if (r.hasSubmit()) {
                return SUBMITTED;
              }
              if (r.hasDelete()) {
                return Response.newBuilder().setAck(Ack.getDefaultInstance()).build();
              }
              terminal.interrupt();
              return Response.newBuilder()
                  .setAttach(AttachReply.newBuilder().setState("Q"))
                  .build();
            });
    assertEquals(0, qsub("-I"));
    assertEquals(
        "qsub: waiting for job 42.head to start\n"
            + "Do you wish to terminate the job and exit (y|[n])? Job 42.head is being deleted\n",
        out.toString(UTF_8));
    assertEquals(
        "42.head", server.requests().get(server.requests().size() - 1).getDelete().getJobId());
    assertEquals(1, server.connections(), "the wait asks on the connection the job was sent on");
  }
}

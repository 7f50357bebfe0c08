package dev.berth.tools.qsub;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.client.Connector;
import dev.berth.client.Invocation;
import dev.berth.client.ServerUnavailableException;
import dev.berth.client.testing.FakeServer;
import dev.berth.proto.Error;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.proto.SubmitReply;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** qsub end to end against an in-memory server. */
class QsubTest {
  private static final Response SUBMITTED =
      Response.newBuilder().setSubmitted(SubmitReply.newBuilder().setJobId("42.head")).build();

  @TempDir Path dir;
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();
  private final FakeServer server = new FakeServer(r -> SUBMITTED);
  private byte[] stdin = new byte[0];
  private SubmitContext ctx;

  /** qsub runs in the test's directory, which takes the job's output (OutputChecks). */
  @BeforeEach
  void place() {
    ctx = new SubmitContext(dir, SubmitPlace.HOST, SubmitPlace.ENV, SubmitPlace.CLOCK);
  }

  private int qsub(Connector connector, String... args) {
    Invocation inv =
        new Invocation(
            "qsub",
            List.of(args),
            ctx.env(),
            dir,
            new ByteArrayInputStream(stdin),
            new PrintStream(out, true, UTF_8),
            new PrintStream(err, true, UTF_8));
    return Qsub.run(inv, ctx, connector);
  }

  private int qsub(String... args) {
    return qsub(server, args);
  }

  private String script(String name, String text) throws Exception {
    Files.writeString(dir.resolve(name), text, UTF_8);
    return name;
  }

  private Map<String, String> sent() {
    return SubmitPlace.byName(server.requests().get(0).getSubmit().getAttributesList());
  }

  private String stderr() {
    return err.toString(UTF_8);
  }

  @Test
  void submitsTheScriptAndPrintsTheJobId() throws Exception {
    String text = "#!/bin/bash\n#PBS -N hello\n#PBS -l walltime=1:00\necho hi";
    int status = qsub(script("job.sh", text));
    assertEquals(0, status, stderr());
    assertEquals("42.head\n", out.toString(UTF_8));
    assertEquals("", stderr());
    Request request = server.requests().get(0);
    assertArrayEquals(text.getBytes(UTF_8), request.getSubmit().getScript().toByteArray());
    assertEquals("hello", sent().get("Job_Name"));
    assertEquals("1:00", sent().get("Resource_List.walltime"));
    assertEquals("job.sh", sent().get("submit_args"));
    assertEquals(1, server.closed());
  }

  @Test
  void scriptFromStdinIsNamedStdin() {
    stdin = "sleep 1\n".getBytes(UTF_8);
    assertEquals(0, qsub("-q", "short"));
    assertEquals("STDIN", sent().get("Job_Name"));
    assertEquals("short", sent().get("destination"));
    assertEquals("-q short", sent().get("submit_args"));
  }

  @Test
  void theCommandLineWinsOverTheScript() throws Exception {
    String file = script("a.pbs", "#PBS -N script -l nodes=2,walltime=1:00:00 -m b\n");
    assertEquals(0, qsub("-N", "cmd", "-l", "walltime=2:00:00", file));
    Map<String, String> sent = sent();
    assertEquals("cmd", sent.get("Job_Name"));
    assertEquals("2", sent.get("Resource_List.nodes"));
    assertEquals("2:00:00", sent.get("Resource_List.walltime"));
    assertEquals("b", sent.get("Mail_Points"));
  }

  @Test
  void quietKeepsTheJobIdToItself() throws Exception {
    assertEquals(0, qsub("-z", script("a.pbs", "true\n")));
    assertEquals("", out.toString(UTF_8));
    assertEquals(1, server.requests().size());
  }

  @Test
  void aServerErrorIsReportedWithItsCode() throws Exception {
    FakeServer refusing =
        new FakeServer(
            r ->
                Response.newBuilder()
                    .setError(
                        Error.newBuilder()
                            .setCode(Error.Code.UNKNOWN_QUEUE)
                            .setMessage("Unknown queue nosuch"))
                    .build());
    int status = qsub(refusing, "-q", "nosuch", script("a.pbs", "true\n"));
    assertEquals(15020 % 256, status);
    assertEquals("qsub: submit error (Unknown queue nosuch)\n", stderr());
    assertEquals("", out.toString(UTF_8));
  }

  @Test
  void withStandbysListedALostReplyIsAskedAgainWithTheSameSubmissionId() throws Exception {
    Map<String, String> env = new HashMap<>(ctx.env());
    env.put("BERTH_SERVER", "/a/server.sock,/b/server.sock");
    ctx = new SubmitContext(ctx.cwd(), ctx.host(), env, ctx.clock());
    int[] calls = {0};
    FakeServer flaky =
        new FakeServer(r -> SUBMITTED) {
          @Override
          protected Response answer(Request request) throws ServerUnavailableException {
            Response answer = super.answer(request);
            if (++calls[0] == 1) {
              throw new ServerUnavailableException(
                  Path.of("/a/server.sock"), new IOException("the server closed the connection"));
            }
            return answer;
          }
        };
    assertEquals(0, qsub(flaky, script("a.pbs", "true\n")));
    assertEquals("42.head\n", out.toString(UTF_8));
    assertEquals(2, flaky.requests().size());
    String id = flaky.requests().get(0).getSubmit().getSubmissionId();
    assertEquals(36, id.length(), "a random UUID: " + id);
    assertEquals(id, flaky.requests().get(1).getSubmit().getSubmissionId());
  }

  @Test
  void withStandbysListedAServerSteppingDownIsAskedAgain() throws Exception {
    Map<String, String> env = new HashMap<>(ctx.env());
    env.put("BERTH_SERVER", "/a/server.sock,/b/server.sock");
    ctx = new SubmitContext(ctx.cwd(), ctx.host(), env, ctx.clock());
    Response down =
        Response.newBuilder()
            .setError(
                Error.newBuilder()
                    .setCode(Error.Code.SERVER_DOWN)
                    .setMessage("the server's journal failed: fenced"))
            .build();
    FakeServer steppingDown = new FakeServer(r -> flakyCalls++ == 0 ? down : SUBMITTED);
    assertEquals(0, qsub(steppingDown, script("a.pbs", "true\n")));
    assertEquals("42.head\n", out.toString(UTF_8));
    assertEquals(2, steppingDown.requests().size());
    assertEquals(
        steppingDown.requests().get(0).getSubmit().getSubmissionId(),
        steppingDown.requests().get(1).getSubmit().getSubmissionId());
  }

  private int flakyCalls;

  @Test
  void withOneServerALostReplyIsReportedNotRetried() throws Exception {
    FakeServer broken =
        new FakeServer(r -> SUBMITTED) {
          @Override
          protected Response answer(Request request) throws ServerUnavailableException {
            throw new ServerUnavailableException(
                Path.of("/a/server.sock"), new IOException("the server closed the connection"));
          }
        };
    assertEquals(1, qsub(broken, script("a.pbs", "true\n")));
    assertEquals(1, broken.requests().size());
    assertTrue(stderr().contains("closed the connection"), stderr());
    assertTrue(
        stderr()
            .contains(
                "the job may have been submitted (submission id "
                    + broken.requests().get(0).getSubmit().getSubmissionId()
                    + ")"),
        stderr());
  }

  @Test
  void anUnreachableServerExitsOne() throws Exception {
    int status = qsub(FakeServer.unreachable(), script("a.pbs", "true\n"));
    assertEquals(1, status);
    assertTrue(stderr().startsWith("qsub: cannot talk to the Berth server"), stderr());
  }

  @Test
  void crlfScriptIsRefusedBeforeConnecting() throws Exception {
    int status = qsub(script("dos.pbs", "#!/bin/sh\r\n#PBS -N a\r\necho\r\n"));
    assertEquals(2, status);
    assertEquals(
        "qsub: script is written in DOS/Windows text format (CRLF line endings); convert it with"
            + " dos2unix\nqsub: no job was submitted\n",
        stderr());
    assertEquals(0, server.connections());
  }

  @Test
  void directiveErrorsNameTheirLinesAndNothingIsSent() throws Exception {
    String file = script("bad.pbs", "#!/bin/bash\n#PBS -l wd\n#PBS -p 5000\n#PBS -N\n");
    assertEquals(2, qsub(file));
    assertEquals(
        "qsub: directive on line 2: -l wd: resource request must be name=value\n"
            + "qsub: directive on line 3: -p 5000: priority must be between -1024 and 1023\n"
            + "qsub: directive on line 4: option requires an argument -- 'N'\n"
            + "qsub: no job was submitted\n",
        stderr());
    assertEquals(0, server.connections());
  }

  @Test
  void commandLineErrorsComeFirst() throws Exception {
    String file = script("bad.pbs", "#PBS -m x\n");
    assertEquals(2, qsub("-J", "1-10", file));
    assertTrue(stderr().startsWith("qsub: -J is not supported: "), stderr());
    assertTrue(stderr().contains("\nqsub: directive on line 1: -m x: use n"), stderr());
  }

  @Test
  void warningsDoNotStopTheSubmission() throws Exception {
    String file = script("n.pbs", "#PBS -n 2000K_S_MoO3\nmpirun x\n#PBS -N late\n");
    assertEquals(0, qsub(file));
    assertEquals("True", sent().get("node_exclusive"));
    assertEquals("n.pbs", sent().get("Job_Name"));
    assertEquals(
        "qsub: warning: directive on line 1: '2000K_S_MoO3' is not an option and is ignored (-n"
            + " means node-exclusive and takes no value; for a job name use -N)\n"
            + "qsub: warning: #PBS directive on line 3 is ignored: directives must come before the"
            + " first command (line 2)\n",
        stderr());
  }

  @Test
  void prefixFromTheCommandLine() throws Exception {
    String file = script("c.pbs", "#MY -N mine\n#PBS -N theirs\n");
    assertEquals(0, qsub("-C", "#MY", file));
    assertEquals("mine", sent().get("Job_Name"));
  }

  @Test
  void prefixFromTheEnvironment() throws Exception {
    Map<String, String> env = new HashMap<>(SubmitPlace.ENV);
    env.put("PBS_DPREFIX", "#MY");
    ctx = new SubmitContext(dir, SubmitPlace.HOST, env, SubmitPlace.CLOCK);
    assertEquals(0, qsub(script("c.pbs", "#MY -N mine\n#PBS -N theirs\n")));
    assertEquals("mine", sent().get("Job_Name"));
  }

  @Test
  void emptyPrefixIgnoresDirectives() throws Exception {
    assertEquals(0, qsub("-C", "", script("c.pbs", "#PBS -N theirs\n")));
    assertEquals("c.pbs", sent().get("Job_Name"));
  }

  @Test
  void versionPrintsAndExitsZero() {
    assertEquals(0, qsub("--version"));
    assertTrue(out.toString(UTF_8).startsWith("Version: "), out.toString(UTF_8));
    assertTrue(server.requests().isEmpty());
    assertEquals(0, qsub("--about"));
    assertEquals(2, qsub("--frobnicate"));
  }

  @Test
  void usageErrors() throws Exception {
    assertEquals(2, qsub("-Z"));
    assertTrue(stderr().startsWith("qsub: invalid option -- 'Z'\nusage: qsub"), stderr());
    assertEquals(2, qsub(script("a.pbs", "true\n"), "extra"));
    assertTrue(stderr().contains("only one job script may be given"), stderr());
    assertEquals(2, qsub("missing.pbs"));
    assertTrue(stderr().contains("qsub: job script missing.pbs does not exist"), stderr());
    assertEquals(0, server.connections());
  }
}

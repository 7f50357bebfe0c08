package dev.berth.tools.qsub;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.client.Invocation;
import dev.berth.client.testing.FakeServer;
import dev.berth.proto.Ack;
import dev.berth.proto.AlterJob;
import dev.berth.proto.Error;
import dev.berth.proto.Response;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class QalterTest {
  private static final Response ACK =
      Response.newBuilder().setAck(Ack.getDefaultInstance()).build();

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();
  private FakeServer server = new FakeServer(r -> ACK);

  private int qalter(String... args) {
    Invocation inv =
        new Invocation(
            "qalter",
            List.of(args),
            SubmitPlace.ENV,
            SubmitPlace.CWD,
            new ByteArrayInputStream(new byte[0]),
            new PrintStream(out, true, UTF_8),
            new PrintStream(err, true, UTF_8));
    return Qalter.run(inv, SubmitPlace.CTX, server);
  }

  private String stderr() {
    return err.toString(UTF_8);
  }

  @Test
  void sendsOneAlterPerJobWithTheQsubMapping() {
    int status =
        qalter("-l", "walltime=2:00:00", "-N", "renamed", "-o", "new.out", "12", "13.head");
    assertEquals(0, status, stderr());
    assertEquals(1, server.connections());
    assertEquals(2, server.requests().size());
    AlterJob first = server.requests().get(0).getAlter();
    assertEquals("12", first.getJobId());
    assertEquals("13.head", server.requests().get(1).getAlter().getJobId());
    assertEquals(
        Map.of(
            "Job_Name", "renamed",
            "Output_Path", "login1.example.org:/home/alice/work/new.out",
            "Resource_List.walltime", "2:00:00"),
        SubmitPlace.byName(first.getAttributesList()));
    assertEquals("", out.toString(UTF_8));
  }

  @Test
  void holdTakesAHoldList() {
    assertEquals(0, qalter("-h", "uo", "7"));
    assertEquals(
        Map.of("Hold_Types", "uo"),
        SubmitPlace.byName(server.requests().get(0).getAlter().getAttributesList()));
  }

  @Test
  void badValuesAreRefusedBeforeSending() {
    assertEquals(2, qalter("-p", "2000", "-m", "z", "7"));
    assertTrue(stderr().startsWith("qalter: -p 2000: priority must be"), stderr());
    assertTrue(stderr().contains("qalter: -m z: use n"), stderr());
    assertEquals(0, server.connections());
  }

  @Test
  void usageProblems() {
    assertEquals(2, qalter("-N", "x"));
    assertTrue(stderr().startsWith("qalter: no job id given\nusage: qalter"), stderr());
    assertEquals(2, qalter("12"));
    assertTrue(stderr().contains("qalter: nothing to change"), stderr());
    assertEquals(2, qalter("-N", "x", "abc"));
    assertTrue(stderr().contains("'abc' is not a job id"), stderr());
    assertEquals(2, qalter("-v", "A=1", "12"));
    assertTrue(stderr().contains("qalter: invalid option -- 'v'"), stderr());
    assertEquals(0, server.connections());
  }

  @Test
  void aFailedJobSetsTheExitStatusButTheOthersAreStillAltered() {
    server =
        new FakeServer(
            r ->
                r.getAlter().getJobId().equals("12")
                    ? Response.newBuilder()
                        .setError(
                            Error.newBuilder()
                                .setCode(Error.Code.UNKNOWN_JOB)
                                .setMessage("Unknown Job Id 12.head"))
                        .build()
                    : ACK);
    assertEquals(15001 % 256, qalter("-N", "x", "12", "13"));
    assertEquals(2, server.requests().size());
    assertEquals("qalter: cannot alter job 12: Unknown Job Id 12.head\n", stderr());
  }

  @Test
  void unreachableServer() {
    Invocation inv =
        new Invocation(
            "qalter",
            List.of("-N", "x", "12"),
            SubmitPlace.ENV,
            SubmitPlace.CWD,
            new ByteArrayInputStream(new byte[0]),
            new PrintStream(out, true, UTF_8),
            new PrintStream(err, true, UTF_8));
    assertEquals(1, Qalter.run(inv, SubmitPlace.CTX, FakeServer.unreachable()));
  }
}

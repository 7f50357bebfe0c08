package dev.berth.tools.tm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import dev.berth.proto.TmError;
import dev.berth.proto.TmExited;
import dev.berth.proto.TmOutput;
import dev.berth.proto.TmRequest;
import dev.berth.proto.TmResponse;
import dev.berth.proto.TmSpawned;
import dev.berth.tools.tm.FakeTm.Script;
import dev.berth.tools.tm.TmProcess.Result;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The commands' side of tm.proto against a task manager the test drives by hand: answers in any
 * order, refusals, answers of the wrong kind, a connection that ends, frames over the limit and
 * bytes that are no frame.
 */
class TmProtocolTest {
  @TempDir Path dir;
  private Path socket;
  private ServerSocketChannel server;
  private SocketChannel peer;
  private InputStream fromCommand;
  private OutputStream toCommand;

  @BeforeEach
  void listen() throws IOException {
    socket = dir.resolve("tm.sock");
    server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    server.bind(UnixDomainSocketAddress.of(socket));
  }

  @AfterEach
  void close() throws IOException {
    if (peer != null) {
      peer.close();
    }
    server.close();
  }

  /** Starts the command and takes its connection. */
  private TmProcess start(String command, String... args) throws IOException {
    TmProcess process =
        TmProcess.start(dir, Map.of("BERTH_TM_SOCKET", socket.toString()), "", command, args);
    peer = server.accept();
    fromCommand = Channels.newInputStream(peer);
    toCommand = Channels.newOutputStream(peer);
    return process;
  }

  private TmRequest request() throws IOException {
    return TmRequest.parseDelimitedFrom(fromCommand);
  }

  private void answer(TmResponse.Builder response) throws IOException {
    response.build().writeDelimitedTo(toCommand);
  }

  /** Reads the nodes request and answers: a job 12.head on n1 with two slots. */
  private void nodes() throws IOException {
    TmRequest nodes = request();
    assertEquals(TmRequest.BodyCase.NODES, nodes.getBodyCase());
    answer(TmResponse.newBuilder().setId(nodes.getId()).setNodes(FakeTm.job("n1:2")));
  }

  private void spawned(TmRequest spawn, int task) throws IOException {
    answer(
        TmResponse.newBuilder()
            .setId(spawn.getId())
            .setSpawned(TmSpawned.newBuilder().setTaskId(task).setNode("n1")));
  }

  private void output(TmRequest spawn, int task, String text) throws IOException {
    answer(
        TmResponse.newBuilder()
            .setId(spawn.getId())
            .setOutput(
                TmOutput.newBuilder()
                    .setTaskId(task)
                    .setStream(1)
                    .setData(ByteString.copyFromUtf8(text))));
  }

  /** Task 7's output on stdout. */
  private static TmResponse.Builder output(TmRequest spawn, String text) {
    return TmResponse.newBuilder()
        .setId(spawn.getId())
        .setOutput(
            TmOutput.newBuilder().setTaskId(7).setStream(1).setData(ByteString.copyFromUtf8(text)));
  }

  private void exited(TmRequest wait, int status) throws IOException {
    answer(
        TmResponse.newBuilder()
            .setId(wait.getId())
            .setExited(
                TmExited.newBuilder()
                    .setTaskId(wait.getWait().getTaskId())
                    .setNode("n1")
                    .setExitStatus(status)));
  }

  private static TmResponse.Builder error(long id, String message) {
    return TmResponse.newBuilder().setId(id).setError(TmError.newBuilder().setMessage(message));
  }

  /** Reads requests until a wait, checking the stdin of its task was closed before it. */
  private TmRequest waitRequest() throws IOException {
    TmRequest input = request();
    assertEquals(TmRequest.BodyCase.INPUT, input.getBodyCase());
    assertTrue(input.getInput().getEof());
    TmRequest wait = request();
    assertEquals(TmRequest.BodyCase.WAIT, wait.getBodyCase());
    assertEquals(input.getInput().getTaskId(), wait.getWait().getTaskId());
    return wait;
  }

  @Test
  void answersFindTheirRequestsInAnyOrder() throws Exception {
    TmProcess pbsdsh = start("pbsdsh", "-v", "hostname");
    nodes();
    TmRequest first = request();
    TmRequest second = request();
    assertEquals(0, first.getSpawn().getVnode());
    assertEquals(1, second.getSpawn().getVnode());
    spawned(second, 8);
    output(second, 8, "from 8\n");
    spawned(first, 7);
    output(first, 7, "from 7\n");
    TmRequest waitFirst = waitRequest();
    TmRequest waitSecond = waitRequest();
    assertEquals(7, waitFirst.getWait().getTaskId());
    assertEquals(8, waitSecond.getWait().getTaskId());
    exited(waitSecond, 2);
    exited(waitFirst, 0);
    Result run = pbsdsh.await();
    assertEquals(2, run.status());
    assertEquals("from 8\nfrom 7\n", run.out());
    // starts and ends are reported in the targets' order, whatever order the answers came in
    assertEquals(
        "pbsdsh: task 7 started on n1 (vnode 0)\n"
            + "pbsdsh: task 8 started on n1 (vnode 1)\n"
            + "pbsdsh: task 7 on n1 exited with status 0\n"
            + "pbsdsh: task 8 on n1 exited with status 2\n",
        run.err());
  }

  @Test
  void aRefusedConnectionSaysWhy() throws Exception {
    for (String command : new String[] {"pbsdsh", "pbs_tmrsh"}) {
      TmProcess process = start(command, "n1", "true");
      answer(TmResponse.newBuilder().setError(TmError.newBuilder().setMessage("not this job's")));
      peer.close();
      Result run = process.await();
      assertEquals(command.equals("pbsdsh") ? 1 : 255, run.status());
      assertEquals(command + ": cannot get the job's nodes: refused: not this job's\n", run.err());
    }
  }

  @Test
  void aRefusingFakeTaskManagerIsReportedToo() throws Exception {
    server.close();
    Files.delete(socket);
    try (FakeTm tm = FakeTm.start(dir, FakeTm.job("n1:1"), spawn -> Script.exits(0))) {
      tm.refuse("refused process 42 (uid 1000): it is not a process of this job");
      Result run =
          TmProcess.run(dir, Map.of("BERTH_TM_SOCKET", socket.toString()), "", "pbsdsh", "true");
      assertEquals(1, run.status());
      assertEquals(
          "pbsdsh: cannot get the job's nodes: refused: refused process 42 (uid 1000): it is not"
              + " a process of this job\n",
          run.err());
    }
    server = ServerSocketChannel.open(StandardProtocolFamily.UNIX); // for close()
  }

  @Test
  void anAnswerOfTheWrongKindFailsTheRequest() throws Exception {
    TmProcess pbsdsh = start("pbsdsh", "true");
    TmRequest nodes = request();
    answer(
        TmResponse.newBuilder()
            .setId(nodes.getId())
            .setSpawned(TmSpawned.newBuilder().setTaskId(1)));
    Result run = pbsdsh.await();
    assertEquals(1, run.status());
    assertEquals(
        "pbsdsh: cannot get the job's nodes: the task manager answered request "
            + nodes.getId()
            + " with SPAWNED instead of NODES\n",
        run.err());
  }

  @Test
  void anErrorAnsweringAWaitIsReported() throws Exception {
    TmProcess pbsdsh = start("pbsdsh", "-n", "1", "true");
    nodes();
    spawned(request(), 7);
    answer(error(waitRequest().getId(), "no task 7"));
    Result run = pbsdsh.await();
    assertEquals(1, run.status());
    assertEquals("pbsdsh: cannot wait for task 7 on n1: no task 7\n", run.err());

    TmProcess tmrsh = start("pbs_tmrsh", "-n", "n1", "true");
    nodes();
    spawned(request(), 7);
    answer(error(waitRequest().getId(), "no task 7"));
    run = tmrsh.await();
    assertEquals(255, run.status());
    assertEquals("pbs_tmrsh: cannot wait for the task on n1: no task 7\n", run.err());
  }

  @Test
  void theConnectionsEndFailsWhatWaits() throws Exception {
    TmProcess pbsdsh = start("pbsdsh", "true");
    nodes();
    TmRequest first = request();
    request();
    spawned(first, 7);
    waitRequest();
    peer.close();
    Result run = pbsdsh.await();
    assertEquals(1, run.status());
    assertEquals(
        "pbsdsh: cannot start true on n1: the task manager closed the connection\n"
            + "pbsdsh: lost the connection to the task manager: the task manager closed the"
            + " connection\n",
        run.err());

    TmProcess tmrsh = start("pbs_tmrsh", "-n", "n1", "true");
    nodes();
    spawned(request(), 7);
    waitRequest();
    peer.close();
    run = tmrsh.await();
    assertEquals(255, run.status());
    assertEquals(
        "pbs_tmrsh: lost the connection to the task manager: the task manager closed the"
            + " connection\n",
        run.err());
  }

  @Test
  void aFrameOverTheLimitEndsTheConnection() throws Exception {
    TmProcess pbsdsh = start("pbsdsh", "true");
    request();
    CodedOutputStream frame = CodedOutputStream.newInstance(toCommand);
    frame.writeUInt32NoTag(5_000_000); // announced, never sent: the command must not wait for it
    frame.writeRawBytes(new byte[100]);
    frame.flush();
    Result run = pbsdsh.await();
    assertEquals(1, run.status());
    assertEquals(
        "pbsdsh: cannot get the job's nodes: the task manager sent a frame of 5000000 bytes,"
            + " over the limit of 4194304\n",
        run.err());
  }

  @Test
  void aFrameUpToTheLimitIsRelayed() throws Exception {
    TmProcess tmrsh = start("pbs_tmrsh", "-n", "n1", "cat");
    nodes();
    TmRequest spawn = request();
    spawned(spawn, 7);
    int size = 4 << 20;
    String data = "x".repeat(size - 32);
    data += "y".repeat(size - output(spawn, data).build().getSerializedSize());
    TmResponse biggest = output(spawn, data).build();
    assertEquals(size, biggest.getSerializedSize());
    answer(biggest.toBuilder());
    exited(waitRequest(), 0);
    Result run = tmrsh.await();
    assertEquals(0, run.status(), run.err());
    assertEquals(data, run.out());
  }

  @Test
  void garbageEndsTheConnection() throws Exception {
    TmProcess pbsdsh = start("pbsdsh", "true");
    request();
    toCommand.write(new byte[] {3, (byte) 0xff, (byte) 0xff, (byte) 0xff}); // a truncated tag
    Result run = pbsdsh.await();
    assertEquals(1, run.status());
    assertEquals(
        "pbsdsh: cannot get the job's nodes: the task manager sent a malformed message\n",
        run.err());

    TmProcess tmrsh = start("pbs_tmrsh", "n1", "true");
    request();
    byte[] endless = new byte[12];
    Arrays.fill(endless, (byte) 0x80); // a length that never ends
    toCommand.write(endless);
    run = tmrsh.await();
    assertEquals(255, run.status());
    assertEquals(
        "pbs_tmrsh: cannot get the job's nodes: the task manager sent a malformed frame length\n",
        run.err());
  }

  @Test
  void fieldsThisVersionDoesNotKnowAreSkipped() throws Exception {
    server.close();
    Files.delete(socket);
    try (FakeTm tm =
        FakeTm.start(
            dir,
            FakeTm.job("n1:1", "n2:1"),
            spawn -> spawn.getRelayOutput() ? Script.echoes() : Script.exits(0))) {
      tm.addUnknownFields();
      Map<String, String> env = Map.of("BERTH_TM_SOCKET", socket.toString());
      Result run = TmProcess.run(dir, env, "hello\n", "pbs_tmrsh", "n2", "cat");
      assertEquals(0, run.status(), run.err());
      assertEquals("hello\n", run.out());
      run = TmProcess.run(dir, env, "", "pbsdsh", "-o", "-v", "true");
      assertEquals(0, run.status(), run.err());
      assertEquals(
          "pbsdsh: task 1 started on n1 (vnode 0)\npbsdsh: task 2 started on n2 (vnode 1)\n",
          run.err());
    }
    server = ServerSocketChannel.open(StandardProtocolFamily.UNIX); // for close()
  }
}

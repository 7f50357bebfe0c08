package dev.berth.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.google.protobuf.ByteString;
import dev.berth.proto.TmError;
import dev.berth.proto.TmNode;
import dev.berth.proto.TmNodeList;
import dev.berth.proto.TmOutput;
import dev.berth.proto.TmRequest;
import dev.berth.proto.TmResponse;
import dev.berth.proto.TmSpawn;
import dev.berth.proto.TmSpawned;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TmClientTest {
  @TempDir Path dir;
  private ServerSocketChannel server;
  private SocketChannel peer;
  private InputStream fromClient;
  private OutputStream toClient;
  private TmClient client;
  private final List<TmOutput> outputs = new CopyOnWriteArrayList<>();

  @BeforeEach
  void connect() throws IOException {
    Path socket = dir.resolve("tm.sock");
    server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    server.bind(UnixDomainSocketAddress.of(socket));
    client = TmClient.connect(socket, outputs::add);
    peer = server.accept();
    fromClient = Channels.newInputStream(peer);
    toClient = Channels.newOutputStream(peer);
  }

  @AfterEach
  void close() throws IOException {
    client.close();
    peer.close();
    server.close();
  }

  private void answer(TmResponse.Builder response) throws IOException {
    response.build().writeDelimitedTo(toClient);
  }

  private static Throwable failure(CompletableFuture<?> future) {
    return assertThrows(ExecutionException.class, () -> future.get(10, TimeUnit.SECONDS))
        .getCause();
  }

  @Test
  void answersFindTheirRequestsInAnyOrderAndOutputGoesToTheListener() throws Exception {
    CompletableFuture<TmNodeList> nodes = client.nodes();
    CompletableFuture<TmSpawned> spawn =
        client.spawn(TmSpawn.newBuilder().setNode("n1").addArgv("true").build());
    TmRequest first = TmRequest.parseDelimitedFrom(fromClient);
    TmRequest second = TmRequest.parseDelimitedFrom(fromClient);
    assertEquals(1, first.getId());
    assertEquals(TmRequest.BodyCase.NODES, first.getBodyCase());
    assertEquals(2, second.getId());
    assertEquals("n1", second.getSpawn().getNode());

    answer(
        TmResponse.newBuilder()
            .setId(2)
            .setSpawned(TmSpawned.newBuilder().setTaskId(7).setNode("n1")));
    TmOutput output =
        TmOutput.newBuilder()
            .setTaskId(7)
            .setStream(1)
            .setData(ByteString.copyFromUtf8("hi\n"))
            .build();
    answer(TmResponse.newBuilder().setId(2).setOutput(output));
    answer(
        TmResponse.newBuilder()
            .setId(1)
            .setNodes(
                TmNodeList.newBuilder()
                    .setJobId("1.head")
                    .addNodes(TmNode.newBuilder().setName("n1"))));

    assertEquals(7, spawn.get(10, TimeUnit.SECONDS).getTaskId());
    assertEquals("1.head", nodes.get(10, TimeUnit.SECONDS).getJobId());
    assertEquals(List.of(output), outputs);
  }

  @Test
  void refusalsCarryTheServersMessage() throws Exception {
    CompletableFuture<Void> signal = client.signal(3, 15);
    TmRequest request = TmRequest.parseDelimitedFrom(fromClient);
    assertEquals(15, request.getSignal().getSignal());
    answer(
        TmResponse.newBuilder()
            .setId(request.getId())
            .setError(TmError.newBuilder().setMessage("no task 3")));
    Throwable cause = failure(signal);
    assertInstanceOf(TmException.class, cause);
    assertEquals("no task 3", cause.getMessage());
  }

  @Test
  void inputIsSentAndNeverAnswered() throws Exception {
    client.input(4, "data".getBytes(), true);
    TmRequest request = TmRequest.parseDelimitedFrom(fromClient);
    assertEquals(4, request.getInput().getTaskId());
    assertEquals("data", request.getInput().getData().toStringUtf8());
    assertEquals(true, request.getInput().getEof());
  }

  @Test
  void theConnectionsEndFailsEveryWaitingRequestAndLaterOnes() throws Exception {
    CompletableFuture<?> wait = client.waitFor(1);
    TmRequest.parseDelimitedFrom(fromClient);
    peer.close();
    assertInstanceOf(IOException.class, failure(wait));
    assertInstanceOf(IOException.class, failure(client.nodes()));
  }

  @Test
  void aRefusedConnectionSaysWhy() throws Exception {
    CompletableFuture<TmNodeList> nodes = client.nodes();
    answer(
        TmResponse.newBuilder()
            .setError(TmError.newBuilder().setMessage("it is not a process of this job")));
    peer.close();
    Throwable cause = failure(nodes);
    assertInstanceOf(IOException.class, cause);
    assertEquals("refused: it is not a process of this job", cause.getMessage());
  }

  @Test
  void anAnswerOfTheWrongKindFailsTheRequest() throws Exception {
    CompletableFuture<TmNodeList> nodes = client.nodes();
    TmRequest request = TmRequest.parseDelimitedFrom(fromClient);
    answer(
        TmResponse.newBuilder()
            .setId(request.getId())
            .setSpawned(TmSpawned.newBuilder().setTaskId(1)));
    assertInstanceOf(IOException.class, failure(nodes));
  }
}

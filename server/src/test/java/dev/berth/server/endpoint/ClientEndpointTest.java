package dev.berth.server.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.CodedInputStream;
import dev.berth.proto.Ack;
import dev.berth.proto.Error;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.proto.StatServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The endpoint on a real socket, with a handler the test controls. Every connection here is the
 * test's own user, trusted by nobody, so these are the per-connection and per-user rules; the
 * integration tests pit real users against each other.
 */
@Timeout(60)
class ClientEndpointTest {
  @TempDir Path dir;

  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
  private final List<SocketChannel> clients = new ArrayList<>();
  private ClientEndpoint endpoint;

  @AfterEach
  void close() throws IOException {
    for (SocketChannel c : clients) {
      c.close();
    }
    if (endpoint != null) {
      endpoint.close();
    }
  }

  @Test
  void aClientThatSendsRequestsWithoutReadingIsThrottledThenDropped() throws Exception {
    AtomicInteger handled = new AtomicInteger();
    start(
        "stall=500ms",
        (request, caller) -> {
          handled.incrementAndGet();
          return CompletableFuture.completedFuture(ack("x".repeat(10_000)));
        });
    SocketChannel flood = connect();
    ByteArrayOutputStream requests = new ByteArrayOutputStream();
    for (int i = 1; i <= 1000; i++) {
      stat(i).writeDelimitedTo(requests);
    }
    write(flood, requests.toByteArray()); // all of it fits the socket; none of the replies is read
    awaitLine("throttling a connection of user " + me() + ": it sends requests without reading");
    awaitLine(
        "dropped a connection of user "
            + me()
            + ": it read none of its replies for longer than stall=500ms");
    assertTrue(handled.get() < 1000, "it stopped reading after " + handled.get() + " requests");
    assertAnswers();
  }

  @Test
  void connectionsOverTheUsersLimitAreRefusedWithTheReason() throws Exception {
    start("user_connections=2", immediate());
    SocketChannel first = connect();
    connect();
    SocketChannel third = connect();
    Response refusal = read(third);
    assertEquals(Error.Code.SYSTEM, refusal.getError().getCode());
    assertEquals(
        "too many connections: user " + me() + " has 2 connections open (limit user_connections=2)",
        refusal.getError().getMessage());
    assertEquals(-1, third.read(ByteBuffer.allocate(1)));
    awaitLine("refused a connection: user " + me() + " has 2 connections open");
    first.close();
    awaitAnswers(); // once the server has seen the first go, a new one is welcome
  }

  @Test
  void aUserWithTooManyRequestsInProgressWaitsForOneToFinish() throws Exception {
    BlockingQueue<CompletableFuture<Response>> inProgress = new LinkedBlockingQueue<>();
    start(
        "user_requests=2",
        (request, caller) -> {
          CompletableFuture<Response> answer = new CompletableFuture<>();
          inProgress.add(answer);
          return answer;
        });
    List<SocketChannel> three = List.of(connect(), connect(), connect());
    for (SocketChannel c : three) {
      send(c, stat(1));
    }
    awaitLine(
        "throttling a connection of user "
            + me()
            + ": 2 of its requests are in progress (limit user_requests=2)");
    assertEquals(2, inProgress.size(), "the third waits");
    inProgress.take().complete(ack("done"));
    assertNotNull(inProgress.poll(10, TimeUnit.SECONDS), "the third starts once one is done");
    assertNotNull(inProgress.poll(10, TimeUnit.SECONDS));
    assertEquals(0, inProgress.size());
  }

  @Test
  void aConnectionOverTheUsersBufferWaitsUntilAnotherGivesItsBytesBack() throws Exception {
    start("frame=4k,user_buffer=8k", immediate());
    SocketChannel a = connect();
    SocketChannel b = connect();
    write(a, new byte[] {(byte) 0x80, 0x01}); // a 128-byte frame that never comes
    write(b, new byte[] {(byte) 0x80, 0x01});
    SocketChannel c = connect();
    awaitLine(
        "throttling a connection of user "
            + me()
            + ": its requests hold 8 KiB (limit user_buffer=8 KiB)");
    send(c, stat(5));
    a.close();
    assertEquals(5, read(c).getId(), "served once a's buffer was given back");
  }

  @Test
  void aDeclaredLengthCostsNothingUntilTheBytesArrive() throws Exception {
    start("frame=32k,user_buffer=64k", immediate()); // 16 connections' first buffers
    for (int i = 0; i < 15; i++) {
      write(connect(), new byte[] {(byte) 0x80, (byte) 0x80, 0x02}); // 32 KiB announced
    }
    awaitAnswers(); // had each taken what it announced, nothing would be left for this one
  }

  @Test
  void aClientThatStopsSendingStillGetsItsAnswer() throws Exception {
    start("", immediate());
    SocketChannel c = connect();
    send(c, stat(3));
    c.shutdownOutput();
    assertEquals(3, read(c).getId());
    assertEquals(-1, c.read(ByteBuffer.allocate(1)));
  }

  @Test
  void aBrokenAnswerEndsItsConnectionOnlyAndGivesItsRequestBack() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    start(
        "user_requests=1",
        (request, caller) ->
            CompletableFuture.completedFuture(calls.incrementAndGet() == 1 ? null : ack("ok")));
    SocketChannel broken = connect();
    send(broken, stat(1));
    assertEquals(-1, broken.read(ByteBuffer.allocate(1)), "closed, not answered");
    awaitAnswers(); // the only request slot came back
  }

  @Test
  void anErrorStopsTheSocketAndIsReported() throws Exception {
    OutOfMemoryError oom = new OutOfMemoryError("simulated");
    start(
        "",
        (request, caller) -> {
          throw oom;
        });
    send(connect(), stat(1));
    assertSame(oom, endpoint.failure().toCompletableFuture().get(10, TimeUnit.SECONDS));
    assertFalse(Files.exists(endpoint.socket()), "no socket that accepts and never answers");
    assertThrows(IOException.class, this::connect);
  }

  private void start(String limits, ClientEndpoint.Handler handler) throws IOException {
    endpoint =
        new ClientEndpoint(
            dir.resolve("s.sock"),
            handler,
            ClientLimits.defaults(1L << 30).with(limits),
            "host",
            Set.of(), // the test's user, root or not, is an ordinary user here
            lines::add);
  }

  private static ClientEndpoint.Handler immediate() {
    return (request, caller) -> CompletableFuture.completedFuture(ack("ok"));
  }

  private static Response ack(String message) {
    return Response.newBuilder().setAck(Ack.newBuilder().setMessage(message)).build();
  }

  private static Request stat(long id) {
    return Request.newBuilder().setId(id).setStatServer(StatServer.getDefaultInstance()).build();
  }

  private static String me() {
    return System.getProperty("user.name");
  }

  private void awaitLine(String start) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    List<String> seen = new ArrayList<>();
    while (System.nanoTime() < deadline) {
      String line = lines.poll(100, TimeUnit.MILLISECONDS);
      if (line != null && line.startsWith(start)) {
        return;
      }
      if (line != null) {
        seen.add(line);
      }
    }
    throw new AssertionError("no line starting '" + start + "'; saw " + seen);
  }

  /** A new connection gets an answer. */
  private void assertAnswers() throws IOException {
    SocketChannel c = connect();
    send(c, stat(42));
    assertEquals(42, read(c).getId());
    c.close();
  }

  /** A new connection gets an answer, once the server has caught up with what went before. */
  private void awaitAnswers() throws IOException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (true) {
      SocketChannel c = connect();
      Object refused;
      try {
        send(c, stat(42));
        Response r = read(c);
        if (!r.hasError()) {
          assertEquals(42, r.getId());
          return;
        }
        refused = r;
      } catch (IOException closed) {
        // A refusal closes the connection, maybe before the request went: a broken pipe.
        refused = closed;
      } finally {
        c.close();
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("still refused: " + refused);
      }
      Thread.sleep(20);
    }
  }

  private SocketChannel connect() throws IOException {
    SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX);
    c.connect(UnixDomainSocketAddress.of(dir.resolve("s.sock")));
    clients.add(c);
    return c;
  }

  private static void send(SocketChannel c, Request r) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    r.writeDelimitedTo(out);
    write(c, out.toByteArray());
  }

  private static void write(SocketChannel c, byte[] bytes) throws IOException {
    ByteBuffer b = ByteBuffer.wrap(bytes);
    while (b.hasRemaining()) {
      c.write(b);
    }
  }

  private static Response read(SocketChannel c) throws IOException {
    Response r = readFrame(Channels.newInputStream(c));
    if (r == null) {
      throw new IOException("closed without an answer");
    }
    return r;
  }

  private static Response readFrame(InputStream in) throws IOException {
    int first = in.read();
    if (first < 0) {
      return null;
    }
    int size = CodedInputStream.readRawVarint32(first, in);
    return Response.parseFrom(in.readNBytes(size));
  }
}

package dev.berth.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.proto.Request;
import dev.berth.proto.Response;
import dev.berth.proto.StatServer;
import dev.berth.proto.SubmitReply;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Connections to an active server among standbys, over real Unix sockets. */
class BerthClientTest {
  @TempDir Path dir;
  private final List<ServerSocketChannel> listeners = new ArrayList<>();
  private final List<SocketChannel> accepted = new ArrayList<>();

  /** A socket that accepts connections and never answers: a paused server. */
  private Path paused(String name) throws IOException {
    Path socket = dir.resolve(name);
    ServerSocketChannel s = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    s.bind(UnixDomainSocketAddress.of(socket));
    listeners.add(s);
    return socket;
  }

  /** A socket whose server answers every request with job {@code jobId}. */
  private Path answering(String name, String jobId) throws IOException {
    Path socket = paused(name);
    ServerSocketChannel s = listeners.get(listeners.size() - 1);
    Thread t =
        new Thread(
            () -> {
              try {
                while (true) {
                  SocketChannel c = s.accept();
                  synchronized (accepted) {
                    accepted.add(c);
                  }
                  var in = Channels.newInputStream(c);
                  var out = Channels.newOutputStream(c);
                  Request r;
                  while ((r = Request.parseDelimitedFrom(in)) != null) {
                    Response.newBuilder()
                        .setId(r.getId())
                        .setSubmitted(SubmitReply.newBuilder().setJobId(jobId))
                        .build()
                        .writeDelimitedTo(out);
                  }
                }
              } catch (IOException closed) {
                // the test is over
              }
            });
    t.setDaemon(true);
    t.start();
    return socket;
  }

  @AfterEach
  void closeAll() throws IOException {
    for (ServerSocketChannel s : listeners) {
      s.close();
    }
    synchronized (accepted) {
      for (SocketChannel c : accepted) {
        c.close();
      }
    }
  }

  private static Request.Builder ping() {
    return Request.newBuilder().setStatServer(StatServer.getDefaultInstance());
  }

  @Test
  void aServerThatDoesNotAnswerInTimeIsTriedLast() throws Exception {
    Path stopped = paused("stopped.sock");
    Path active = answering("active.sock", "7.head");
    long begin = System.nanoTime();
    try (BerthClient c =
        BerthClient.connect(
            List.of(stopped, active), Duration.ofSeconds(5), Duration.ofMillis(300))) {
      assertEquals(stopped, c.socket(), "listed first, not known to fail yet");
      ServerUnavailableException e =
          assertThrows(ServerUnavailableException.class, () -> c.call(ping()));
      assertTrue(e.getMessage().contains("no reply within"), e.getMessage());
    }
    assertTrue(System.nanoTime() - begin < Duration.ofSeconds(5).toNanos(), "it did not hang");
    // a reply deadline that a busy machine meets: the active server answers, however slowly
    try (BerthClient c =
        BerthClient.connect(
            List.of(stopped, active), Duration.ofSeconds(5), Duration.ofSeconds(30))) {
      assertEquals(active, c.socket(), "the server that let us down is tried last");
      assertEquals("7.head", c.call(ping()).getSubmitted().getJobId());
    }
  }

  @Test
  void noListeningServerWithinThePatienceIsAClearError() {
    Path gone = dir.resolve("gone.sock");
    long begin = System.nanoTime();
    ServerUnavailableException e =
        assertThrows(
            ServerUnavailableException.class,
            () -> BerthClient.connect(List.of(gone, gone), Duration.ofMillis(600), null));
    assertTrue(System.nanoTime() - begin >= Duration.ofMillis(600).toNanos(), "it kept trying");
    assertTrue(e.getMessage().contains(gone + " or " + gone), e.getMessage());
  }
}

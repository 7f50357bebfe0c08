package dev.berth.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import com.google.protobuf.CodedInputStream;
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
import java.util.HexFormat;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Thousands of seeded random cases against the client socket (see {@link ProtocolFuzz}): each ends
 * with the server answering in well-formed frames and hanging up, and after each batch the server
 * still answers a normal request. The seed is printed; {@code -Dberth.fuzz.seed=N} runs the same
 * cases again, {@code -Dberth.fuzz.cases=N} runs more or fewer.
 */
@Tag("integration")
class ProtocolFuzzIT {
  private static final long SEED = Long.getLong("berth.fuzz.seed", System.nanoTime());
  private static final int CASES = Integer.getInteger("berth.fuzz.cases", 10_000);
  private static final int BATCH = 250;
  private static final long CASE_SECONDS = 20;

  private static final ScheduledExecutorService TIMER =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "fuzz-watchdog");
            t.setDaemon(true);
            return t;
          });

  static TestCluster cluster; // its own: the cases act as root, and some of them change things

  /** What the server answered, by error code or kind of reply, to show what the cases reach. */
  private static final Map<String, Integer> answers = new TreeMap<>();

  @BeforeAll
  static void start() throws IOException {
    cluster = TestCluster.start(false);
  }

  @AfterAll
  static void stop() throws IOException {
    cluster.close();
  }

  @Test
  void randomAndBrokenFramesNeverStopTheServerAnswering() throws IOException {
    System.out.println(
        "ProtocolFuzzIT: seed "
            + SEED
            + " (run these cases again with -Dberth.fuzz.seed="
            + SEED
            + ")");
    ProtocolFuzz fuzz = new ProtocolFuzz(SEED);
    long start = System.nanoTime();
    for (int i = 1; i <= CASES; i++) {
      ProtocolFuzz.Case c = fuzz.next();
      try {
        play(c.bytes());
      } catch (IOException | RuntimeException e) {
        fail(
            "case "
                + i
                + " of seed "
                + SEED
                + " ("
                + c.kind()
                + ": "
                + HexFormat.of().formatHex(c.bytes(), 0, Math.min(c.bytes().length, 200))
                + "): "
                + e,
            e);
      }
      if (i % BATCH == 0) {
        assertAnswers("after case " + i + " of seed " + SEED);
      }
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    System.out.printf(
        Locale.ROOT,
        "ProtocolFuzzIT: %d cases in %.1f s (%.0f cases/s); answers: %s%n",
        CASES,
        seconds,
        CASES / seconds,
        answers);
  }

  /**
   * Sends a case and stops sending; the server must answer and hang up, and whatever it sent before
   * it hung up must be whole response frames.
   */
  private static void play(byte[] bytes) throws IOException {
    try (SocketChannel c = connect()) {
      AtomicBoolean overdue = new AtomicBoolean();
      ScheduledFuture<?> watchdog =
          TIMER.schedule(
              () -> {
                overdue.set(true);
                closeQuietly(c);
              },
              CASE_SECONDS,
              TimeUnit.SECONDS);
      try {
        ByteArrayOutputStream received = new ByteArrayOutputStream();
        boolean reset = exchange(c, bytes, received);
        if (overdue.get()) {
          throw new AssertionError(
              "the server neither answered nor hung up in " + CASE_SECONDS + " s");
        }
        if (!reset) {
          parseResponses(received.toByteArray());
        }
      } finally {
        watchdog.cancel(false);
      }
    }
  }

  /**
   * Writes {@code bytes}, half-closes, and reads until the server hangs up. True if the hang-up was
   * a reset (the server closed with bytes of ours unread), which may have cost its last words.
   */
  private static boolean exchange(SocketChannel c, byte[] bytes, ByteArrayOutputStream received)
      throws IOException {
    try {
      ByteBuffer b = ByteBuffer.wrap(bytes);
      while (b.hasRemaining()) {
        c.write(b);
      }
      c.shutdownOutput();
    } catch (IOException hungUpAlready) {
      // it refused what it read so far; what it said is still to be read
    }
    ByteBuffer in = ByteBuffer.allocate(8192);
    try {
      while (c.read(in.clear()) >= 0) {
        received.write(in.array(), 0, in.position());
      }
      return false;
    } catch (IOException e) {
      if (!c.isOpen()) {
        return false; // the watchdog closed it: the caller says so
      }
      return true;
    }
  }

  private static void parseResponses(byte[] stream) throws IOException {
    CodedInputStream in = CodedInputStream.newInstance(stream);
    while (!in.isAtEnd()) {
      int size = in.readRawVarint32();
      Response r = Response.parseFrom(in.readRawBytes(size));
      answers.merge(
          r.hasError() ? r.getError().getCode().toString() : r.getBodyCase().toString(),
          1,
          Integer::sum);
    }
  }

  private static void assertAnswers(String when) throws IOException {
    try (SocketChannel c = connect()) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      Request.newBuilder()
          .setId(7)
          .setStatServer(StatServer.getDefaultInstance())
          .build()
          .writeDelimitedTo(out);
      c.write(ByteBuffer.wrap(out.toByteArray()));
      InputStream in = Channels.newInputStream(c);
      Response r = Response.parseDelimitedFrom(in);
      if (r == null) {
        fail("the server hung up on a normal request " + when);
      }
      assertEquals(TestCluster.SERVER, r.getServer().getName(), when + ": " + r);
    }
  }

  private static SocketChannel connect() throws IOException {
    SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX);
    c.connect(UnixDomainSocketAddress.of(cluster.socket));
    return c;
  }

  private static void closeQuietly(SocketChannel c) {
    try {
      c.close();
    } catch (IOException ignored) {
      // closed already
    }
  }
}

package dev.berth.mom.tm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.google.protobuf.ByteString;
import dev.berth.mom.os.NativeLibrary;
import dev.berth.mom.os.PeerCredentials;
import dev.berth.proto.TmError;
import dev.berth.proto.TmInput;
import dev.berth.proto.TmNodeList;
import dev.berth.proto.TmNodes;
import dev.berth.proto.TmRequest;
import dev.berth.proto.TmResponse;
import dev.berth.proto.TmSpawn;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.SocketException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The task manager's budgets on the real socket and endpoints, with small limits: what a request
 * holds follows what its process sent, never the length it announced; a job's connections hold no
 * more than the job's budget while another job's requests are answered; requests that do not arrive
 * in time, cost too much or are too large are refused with the reason; answers left unread cut
 * their connection; refusals are logged a line at a time; and the accept loop outlives running out
 * of file descriptors.
 */
class TmLimitsTest {
  private static final long ME = ProcessHandle.current().pid();
  private static final int NOBODY = 65534;

  /** 64 KiB requests, 256 KiB a job, 8 connections a job, a 2 s deadline. */
  private static final TmLimits SMALL =
      new TmLimits(
          64 << 10,
          128 << 10,
          256 << 10,
          1 << 20,
          64 << 10,
          256 << 10,
          8,
          16,
          Duration.ofSeconds(2));

  @TempDir Path dir;
  private TmSocket socket;
  private final ListAppender<ILoggingEvent> log = new ListAppender<>();
  private final List<SocketChannel> channels = new ArrayList<>();

  /** A job's task manager that answers NODES (with {@code answer} bytes of error text, if set). */
  private static final class Answering implements TmEndpoint.Handler {
    final LinkedBlockingQueue<TmRequest> requests = new LinkedBlockingQueue<>();
    final LinkedBlockingQueue<Runnable> held = new LinkedBlockingQueue<>();
    final boolean keep;
    final int answer;
    TmEndpoint endpoint;

    Answering(boolean keep, int answer) {
      this.keep = keep;
      this.answer = answer;
    }

    @Override
    public void request(long connection, TmRequest request, Runnable done) {
      requests.add(request);
      if (answer > 0) {
        endpoint.send(
            connection,
            TmResponse.newBuilder()
                .setId(request.getId())
                .setError(TmError.newBuilder().setMessage("x".repeat(answer)))
                .build());
      } else if (answer == 0) {
        endpoint.send(
            connection,
            TmResponse.newBuilder()
                .setId(request.getId())
                .setNodes(TmNodeList.newBuilder().setJobId(endpoint.jobId()))
                .build());
      }
      if (keep) {
        held.add(done);
      } else {
        done.run();
      }
    }

    @Override
    public void closed(long connection) {}
  }

  @BeforeAll
  static void loadNative() {
    NativeLibrary.load(Path.of("target/native", NativeLibrary.FILE).toAbsolutePath());
  }

  @BeforeEach
  void open(TestInfo test) throws IOException {
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx--x--x"));
    ch.qos.logback.classic.Logger logger =
        (ch.qos.logback.classic.Logger)
            LoggerFactory.getLogger("tm-limits." + test.getTestMethod().orElseThrow().getName());
    log.start();
    logger.addAppender(log);
    socket = TmSocket.open(dir.resolve("n1"), logger, SMALL);
  }

  @AfterEach
  void close() throws IOException {
    for (SocketChannel c : channels) {
      c.close();
    }
    socket.close();
  }

  private TmEndpoint serve(String job, Predicate<PeerCredentials.Peer> admit, Answering handler) {
    handler.endpoint = socket.serve(job, admit, handler);
    return handler.endpoint;
  }

  private static Predicate<PeerCredentials.Peer> pid(long pid) {
    return peer -> peer.pid() == pid;
  }

  private SocketChannel connect() throws IOException {
    SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
    channels.add(channel);
    channel.connect(UnixDomainSocketAddress.of(socket.path()));
    return channel;
  }

  /** Sends the length of a frame of {@code size} bytes and {@code sent} bytes of its body. */
  private static void announce(SocketChannel c, int size, int sent) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (long v = size; ; v >>>= 7) {
      if (v < 0x80) {
        out.write((int) v);
        break;
      }
      out.write((int) (v & 0x7f) | 0x80);
    }
    out.write(new byte[sent]);
    write(c, out.toByteArray());
  }

  private static void write(SocketChannel c, byte[] bytes) throws IOException {
    ByteBuffer b = ByteBuffer.wrap(bytes);
    while (b.hasRemaining()) {
      c.write(b);
    }
  }

  private static byte[] frame(TmRequest request) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    request.writeDelimitedTo(out);
    return out.toByteArray();
  }

  private static TmRequest nodes(long id) {
    return TmRequest.newBuilder().setId(id).setNodes(TmNodes.getDefaultInstance()).build();
  }

  /**
   * The error the task manager said last before it closed the connection (a reset after it, when
   * the connection had sent more than was read, is the close).
   */
  private static String refusal(SocketChannel c) throws IOException {
    InputStream in = Channels.newInputStream(c);
    String last = null;
    try {
      for (TmResponse r; (r = TmResponse.parseDelimitedFrom(in)) != null; ) {
        last = r.getError().getMessage();
      }
    } catch (SocketException reset) {
      if (last == null) {
        throw reset;
      }
    }
    return last;
  }

  private List<String> lines() {
    synchronized (log) {
      return log.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
    }
  }

  private static void await(BooleanSupplier event, String what) throws InterruptedException {
    if (!within(Duration.ofSeconds(20), event)) {
      fail("not within 20 s: " + what);
    }
  }

  /** Runs a Python client as nobody: it sends {@code frame} and prints each answer's length. */
  private Process asNobody(String script, String... args) throws IOException {
    List<String> argv =
        new ArrayList<>(
            List.of(
                "setpriv",
                "--reuid=" + NOBODY,
                "--regid=" + NOBODY,
                "--clear-groups",
                "/usr/bin/python3",
                "-c",
                script,
                socket.path().toString()));
    argv.addAll(List.of(args));
    return new ProcessBuilder(argv).redirectErrorStream(true).start();
  }

  private static String output(Process p) throws Exception {
    String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(20, TimeUnit.SECONDS), said);
    return said;
  }

  /** Asks for the job's nodes once, as a process of another job would, and prints the answer. */
  private static final String ASK_NODES =
      "import socket,sys\n"
          + "s=socket.socket(socket.AF_UNIX)\n"
          + "s.connect(sys.argv[1])\n"
          + "s.sendall(bytes([4,8,1,0x52,0]))\n" // TmRequest{id: 1, nodes {}}, delimited
          + "sys.stdout.write(s.recv(4096).decode('utf-8','replace'))\n";

  @Test
  void whatARequestHoldsFollowsWhatWasSentNotWhatWasAnnounced() throws Exception {
    serve("1.srv", pid(ME), new Answering(false, -1));
    SocketChannel c = connect();
    announce(c, 64 << 10, 10);
    await(() -> socket.budget().bytes() == TmFrame.FIRST_CHUNK, "the first chunk taken");
    write(c, new byte[TmFrame.FIRST_CHUNK]);
    await(
        () -> socket.budget().bytes() == 3 * TmFrame.FIRST_CHUNK,
        "the next chunk, twice the first, taken once the first is full: "
            + socket.budget().bytes());
  }

  private static TmRequest input(long id, int bytes) {
    return TmRequest.newBuilder()
        .setId(id)
        .setInput(TmInput.newBuilder().setTaskId(1).setData(ByteString.copyFrom(new byte[bytes])))
        .build();
  }

  @Test
  void aRequestWaitsForRoomInItsJobsBudgetWhileAnotherJobIsAnswered() throws Exception {
    Answering heard = new Answering(true, -1);
    serve("1.srv", pid(ME), heard);
    serve("2.srv", peer -> peer.uid() == NOBODY, new Answering(false, 0));
    for (int i = 0; i < 4; i++) { // two on each of two connections: 240 KiB of 256 held
      write(i < 2 ? connect() : channels.get(i - 2), frame(input(i, 60 << 10)));
    }
    await(() -> heard.held.size() == 4, "four requests held");
    long held = socket.budget().bytes();
    SocketChannel late = connect();
    write(late, frame(input(5, 20 << 10)));

    String other = output(asNobody(ASK_NODES));
    assertTrue(other.contains("2.srv"), "job 2 is answered: " + other);
    assertEquals(
        "no room for a request within 2 s: the job's connections hold "
            + (held + TmFrame.FIRST_CHUNK + 2 * TmFrame.FIRST_CHUNK)
            + " bytes of requests (limit 256kb a job)",
        refusal(late));
    assertEquals(4, heard.requests.size(), "the late request never reached the job");
    heard.held.forEach(Runnable::run);
    await(() -> socket.budget().bytes() == 0, "everything given back");
  }

  @Test
  void connectionsAnnouncingTheLargestRequestHoldNoMoreThanTheJobsBudget() throws Exception {
    serve("1.srv", pid(ME), new Answering(false, -1));
    List<SocketChannel> job1 = new ArrayList<>();
    for (int i = 0; i < SMALL.jobConnections(); i++) {
      SocketChannel c = connect();
      announce(c, SMALL.frameBytes(), SMALL.frameBytes() - 1); // all but the last byte
      job1.add(c);
    }
    // Chunks of up to 32 KiB here: the job is full once less is left than any would take.
    await(
        () -> socket.budget().bytes() > SMALL.jobBytes() - 32 * 1024,
        "the job holding its budget: " + socket.budget().bytes());
    assertTrue(socket.budget().bytes() <= SMALL.jobBytes(), "" + socket.budget().bytes());
    assertTrue(
        refusal(connect()).startsWith("the job has 8 task manager connections open (limit 8"),
        "a ninth connection is refused");
    String waited = "no room for a request within 2 s: the job's connections hold ";
    String slow = "a request did not arrive whole within 2 s of its first byte";
    for (SocketChannel c : job1) {
      String why = refusal(c);
      assertTrue(why.startsWith(waited) || why.equals(slow), why);
    }
    await(
        () -> socket.budget().bytes() == 0 && socket.budget().connections() == 0,
        "everything given back");
  }

  @Test
  void aRequestOverTheLimitIsRefusedUnread() throws Exception {
    Answering heard = new Answering(false, -1);
    serve("1.srv", pid(ME), heard);
    SocketChannel c = connect();
    announce(c, (64 << 10) + 1, 0);
    assertEquals("a request of 65537 bytes is over the limit of 64kb", refusal(c));
    assertEquals(0, socket.budget().bytes());
    assertTrue(heard.requests.isEmpty());
  }

  @Test
  void aSpawnOfManySmallVariablesIsRefusedUnparsedForWhatItWouldCost() throws Exception {
    Answering heard = new Answering(false, -1);
    serve("1.srv", pid(ME), heard);
    TmSpawn.Builder spawn = TmSpawn.newBuilder().setNode("n1").addArgv("true");
    for (int i = 0; i < 1000; i++) {
      spawn.putEnv("V" + i, "");
    }
    SocketChannel c = connect();
    byte[] frame = frame(TmRequest.newBuilder().setId(2).setSpawn(spawn).build());
    assertTrue(frame.length < 64 << 10);
    write(c, frame);
    String why = refusal(c);
    assertTrue(
        why.matches(
            "a spawn of \\d+ bytes with 1001 arguments and environment variables counts as \\d+ bytes"
                + " \\(192 bytes each besides its own\\), over the limit of 64kb"),
        why);
    assertTrue(heard.requests.isEmpty());
    await(() -> socket.budget().bytes() == 0, "its bytes given back");
  }

  @Test
  void aRequestIsHeldUntilTheTaskManagerIsDoneWithItOrTheJobEnds() throws Exception {
    Answering heard = new Answering(true, -1);
    TmEndpoint job = serve("1.srv", pid(ME), heard);
    SocketChannel c = connect();
    write(c, frame(nodes(1)));
    Runnable done = heard.held.poll(10, TimeUnit.SECONDS);
    assertEquals(nodes(1).getSerializedSize(), socket.budget().bytes());
    done.run();
    done.run(); // once only
    assertEquals(0, socket.budget().bytes());

    write(c, frame(nodes(2)));
    heard.held.poll(10, TimeUnit.SECONDS); // never run: the job's end gives it back
    assertEquals(nodes(2).getSerializedSize(), socket.budget().bytes());
    job.close();
    assertEquals(0, socket.budget().bytes());
  }

  @Test
  void aConnectionThatLeavesItsAnswersUnreadIsCut() throws Exception {
    serve("1.srv", pid(ME), new Answering(false, 4 << 10));
    SocketChannel c = connect();
    byte[] frame = frame(nodes(1));
    ByteArrayOutputStream many = new ByteArrayOutputStream();
    for (int i = 0; i < 1000; i++) { // 4 MiB of answers: more than the socket and the budget hold
      many.write(frame);
    }
    write(c, many.toByteArray());
    await(
        () ->
            lines().stream().anyMatch(l -> l.contains("cut a connection that leaves its answers")),
        "the cut: " + lines());
    assertTrue(
        lines().stream()
            .anyMatch(
                l ->
                    l.matches(
                        "task manager of job 1\\.srv: cut a connection that leaves its answers"
                            + " unread: the job's connections have \\d+ bytes of answers unread"
                            + " \\(limit 64kb a job\\)")),
        "" + lines());
    try {
      Channels.newInputStream(c).transferTo(OutputStream.nullOutputStream());
    } catch (SocketException reset) {
      // the end, with requests it sent unread
    }
    await(() -> socket.budget().replies() == 0, "the answers' bytes given back");
  }

  @Test
  void processesOfNoJobAreRefusedWithOneLogLineForMany() throws Exception {
    serve("1.srv", pid(ME), new Answering(false, -1));
    String said =
        output(
            asNobody(
                "import socket,sys\n"
                    + "for i in range(200):\n"
                    + "  s=socket.socket(socket.AF_UNIX)\n"
                    + "  s.connect(sys.argv[1])\n"
                    + "  s.recv(4096)\n"
                    + "  s.close()\n"
                    + "print('refused 200')\n"));
    assertTrue(said.contains("refused 200"), said);
    List<String> refused =
        lines().stream()
            .filter(l -> l.contains("(uid 65534): it is not a process of a job"))
            .toList();
    assertEquals(1, refused.size(), "one line for 200 refusals in 10 s: " + lines());
  }

  /**
   * The mom runs out of file descriptors while a connection waits: the accept fails, is logged, and
   * is tried again until descriptors are back, when the connection is served.
   *
   * <p>The limit is lowered to the lowest free descriptor of this JVM, which the mom shares;
   * another thread that closes one below it in the meantime (the JDK's cleaner, for a stream a test
   * before left to the garbage collector) opens a hole the accept then takes. Such an attempt
   * proves nothing, and the test lowers the limit again, a few times at most.
   */
  @Test
  void theAcceptLoopOutlivesRunningOutOfFileDescriptors() throws Exception {
    Answering heard = new Answering(false, 0);
    serve("1.srv", pid(ME), heard);
    String soft = softLimit();
    SocketChannel c = null;
    for (int attempt = 1; c == null; attempt++) {
      SocketChannel waiting =
          SocketChannel.open(StandardProtocolFamily.UNIX); // its descriptor first
      channels.add(waiting);
      Process limit = lowerToLowestFree(soft);
      try {
        assertEquals('l', limit.getInputStream().read(), "the limit is lowered");
        waiting.connect(UnixDomainSocketAddress.of(socket.path()));
        if (within(
            Duration.ofSeconds(5),
            () -> lines().stream().anyMatch(l -> l.contains(": cannot accept a connection (")))) {
          c = waiting;
        } else {
          assertTrue(attempt < 5, "the accept never failed: " + lines());
        }
      } finally {
        limit.getOutputStream().write('\n');
        limit.getOutputStream().flush();
        assertTrue(limit.waitFor(10, TimeUnit.SECONDS));
      }
      assertEquals(0, limit.exitValue());
    }
    write(c, frame(nodes(3)));
    TmResponse answer = TmResponse.parseDelimitedFrom(Channels.newInputStream(c));
    assertEquals("1.srv", answer.getNodes().getJobId(), "served once descriptors are back");
  }

  /**
   * Lowers this JVM's open file limit to its lowest free descriptor (the next one the mom opens
   * fails), prints "lowered" and puts {@code soft} back once it reads a line.
   */
  private static Process lowerToLowestFree(String soft) throws IOException {
    return new ProcessBuilder(
            "sh",
            "-c",
            "n=0; for f in $(ls /proc/"
                + ME
                + "/fd | sort -n); do [ $f -eq $n ] && n=$((n+1)); done;"
                + " prlimit --pid "
                + ME
                + " --nofile=$n: && echo lowered && read again && prlimit --pid "
                + ME
                + " --nofile="
                + soft
                + ":")
        .start();
  }

  /** Whether {@code event} happens within {@code time}. */
  private static boolean within(Duration time, BooleanSupplier event) throws InterruptedException {
    long deadline = System.nanoTime() + time.toNanos();
    while (!event.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      Thread.sleep(10);
    }
    return true;
  }

  private static String softLimit() throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/self/limits"))) {
      if (line.startsWith("Max open files")) {
        return line.substring("Max open files".length()).trim().split("\\s+")[0];
      }
    }
    throw new IllegalStateException("no open file limit in /proc/self/limits");
  }

  @Test
  void theDefaultsFitASmallPartOfTheMomsHeap() {
    long heap = 1L << 30; // berth-mom.service's BERTH_HEAP
    assertTrue(
        TmLimits.DEFAULTS.worstCaseHeap() <= heap / 8,
        TmLimits.DEFAULTS.worstCaseHeap() + " bytes of a 1 GiB heap");
    assertEquals(2048, TmLimits.DEFAULTS.worstCaseThreads());
  }
}

package dev.berth.it;

import static dev.berth.it.TestUsers.ALICE;
import static dev.berth.it.TestUsers.BOB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.berth.mom.os.JobFiles;
import dev.berth.proto.Request;
import dev.berth.proto.StatServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The client socket under abuse by another local user. berth-bob, as a real process of his own so
 * that the server knows him by the kernel's word, opens hundreds of connections that each announce
 * a 16 MiB frame, and floods another with requests whose replies he never reads; berth-alice's
 * qstat still answers promptly, and the server, a real {@code berth serve} with the heap limit
 * ops/bin/berth gives it, keeps little for all of it.
 */
@Tag("integration")
class ProtocolAbuseIT {
  private static final String HEAP = "256m";
  private static final Duration PROMPT = Duration.ofSeconds(10);

  static Path home;
  static ServerProcess server;
  private final List<Process> attackers = new ArrayList<>();

  @BeforeAll
  static void start() throws IOException {
    TestUsers.ensure(ALICE, BOB);
    home = Files.createTempDirectory(Path.of("/tmp"), "berth-abuse-");
    Files.setPosixFilePermissions(home, PosixFilePermissions.fromString("rwxr-xr-x"));
    server =
        new ServerProcess(home)
            .environment("BERTH_HEAP", HEAP)
            // to see the drop soon
            .environment("BERTH_CLIENT_LIMITS", "stall=2s," + ServerProcess.SMALL_HEAP_LIMITS);
    assertTrue(server.start(), server.log());
  }

  @AfterAll
  static void stop() throws Exception {
    server.stop();
    JobFiles.removeTree(home);
  }

  @AfterEach
  void stopAttackers() throws IOException, InterruptedException {
    for (Process p : attackers) {
      p.getOutputStream().close(); // the attacker ends with its input
      p.descendants().forEach(ProcessHandle::destroyForcibly); // runuser does not pass a kill on
      p.destroyForcibly();
      p.waitFor();
    }
  }

  @Test
  void theServerRunsWithTheHeapLimitItWasGivenAndExitsWhenOutOfMemory() throws Exception {
    try (RemoteHeap heap = RemoteHeap.attach(server.pid())) {
      assertEquals(256L << 20, heap.max());
      assertEquals("true", heap.flag("ExitOnOutOfMemoryError"));
    }
  }

  @Test
  void anotherUsersFloodsDoNotKeepAlicesQstatWaiting() throws Exception {
    Duration before = qstatAs(ALICE);
    try (RemoteHeap heap = RemoteHeap.attach(server.pid())) {
      heap.resetPeak();
      int logFrom = server.log().length();
      attack("flood", "1000", HexFormat.of().formatHex(statServerFrame()));
      awaitLog(
          logFrom,
          "throttling a connection of user "
              + BOB
              + ": it sends requests without reading the replies");
      attack("announce", "300", Integer.toString(16 << 20)); // bob's other 63, and refusals
      awaitLog(
          logFrom,
          "refused a connection: user "
              + BOB
              + " has 64 connections open (limit user_connections=64)");
      Duration during = qstatAs(ALICE);
      awaitLog(
          logFrom,
          "dropped a connection of user "
              + BOB
              + ": it read none of its replies for longer than stall=2s");
      long peak = heap.peak();
      long live = heap.liveAfterGc(); // bob's connections are still open
      System.out.printf(
          Locale.ROOT,
          "client socket abuse (300 connections announcing 16 MiB, 1000 unread requests per"
              + " flood): alice's qstat took %.2f s before, %.2f s during; server heap peak %d MiB"
              + " (sum of the heap pools' peaks, limit %s), %d MiB live after a full GC%n",
          before.toMillis() / 1000.0,
          during.toMillis() / 1000.0,
          peak >> 20,
          HEAP,
          live >> 20);
      assertTrue(during.compareTo(PROMPT) < 0, "alice waited " + during);
      assertTrue(live < 64L << 20, "the server keeps " + (live >> 20) + " MiB");
      assertTrue(server.answers());
    }
  }

  /** Starts SocketAbuser as bob and waits until it says the attack is in place. */
  private void attack(String mode, String... args) throws Exception {
    Path classes =
        Path.of(SocketAbuser.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    List<String> argv =
        new ArrayList<>(
            List.of(
                "runuser",
                "-u",
                BOB,
                "--",
                ProcessHandle.current().info().command().orElse("java"),
                "-Xmx64m",
                "-cp",
                classes.toString(),
                SocketAbuser.class.getName(),
                mode,
                server.socket.toString()));
    argv.addAll(List.of(args));
    Path out = home.resolve(mode + ".out");
    Process p =
        new ProcessBuilder(argv)
            .directory(home.toFile())
            .redirectErrorStream(true)
            .redirectOutput(out.toFile())
            .start();
    attackers.add(p);
    await(
        () -> {
          String said = read(out);
          return !p.isAlive() ? "exited: " + said : said.isEmpty() ? null : said;
        },
        mode + " in place");
    assertTrue(p.isAlive(), read(out));
  }

  private Duration qstatAs(String user) {
    long start = System.nanoTime();
    TestCluster.Result r =
        TestCluster.runAs(server.socket, user, Path.of("/"), new byte[0], "qstat");
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    assertEquals(0, r.exit(), r.toString());
    return took;
  }

  private static void awaitLog(int from, String line) {
    await(() -> server.log().substring(from).contains(line) ? line : null, "log: " + line);
  }

  /** Waits up to 60 s for {@code event} to say something. */
  private static void await(Supplier<String> event, String what) {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (System.nanoTime() < deadline) {
      if (event.get() != null) {
        return;
      }
      TestCluster.sleep(100);
    }
    fail("no " + what + " within 60 s; the server's log:\n" + server.log());
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      return "";
    }
  }

  private static byte[] statServerFrame() throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Request.newBuilder()
        .setId(1)
        .setStatServer(StatServer.getDefaultInstance())
        .build()
        .writeDelimitedTo(out);
    return out.toByteArray();
  }
}

package dev.berth.bench;

import dev.berth.client.BerthClient;
import dev.berth.core.Hosts;
import dev.berth.daemon.BerthHome;
import dev.berth.proto.Response;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The journal on Kafka: a single-node KRaft broker started with {@code berth kafka start}, server
 * processes with {@code --journal kafka://...}, all secured as Berth is by default (mutual TLS with
 * credentials of one CA, ACLs on the broker). Measures durable submissions per second (each
 * answered after its transaction committed) and how long a standby takes to replace a SIGKILLed
 * active server, from the kill to the first submission the new one acknowledges.
 */
final class KafkaBench implements AutoCloseable {
  private static final int ROUNDS = 5;

  private final Path root;
  private final Path dir;
  private final List<BenchServer> servers = new ArrayList<>();
  private String journal;

  KafkaBench(Path root) throws IOException {
    this.root = root;
    this.dir = Files.createTempDirectory(Path.of("/tmp"), "berth-bench-kafka-");
  }

  void run() throws Exception {
    int port = Hosts.freeLoopbackPort();
    long begin = System.nanoTime();
    // Secured as berth kafka start secures a broker: the servers get copies of its home's CA.
    berth("ca", "create", "--home", dir.toString(), "--name", "berth bench", "--days", "2");
    berth("kafka", "start", "--home", dir.toString(), "--port", Integer.toString(port));
    System.out.printf(
        "%nKafka journal (one KRaft broker from the Maven artifacts, started in %.1f s):%n",
        (System.nanoTime() - begin) / 1e9);
    journal = "kafka://127.0.0.1:" + port + "/berth-bench";
    // Three servers as the admin guide sets them up: each with the same --join list of all.
    List<String> members = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      members.add("127.0.0.1:" + Hosts.freeLoopbackPort());
    }
    for (String member : members) {
      servers.add(
          BenchServer.sharing(
              root,
              new BerthHome(dir).authority(),
              "--journal",
              journal,
              "--port",
              member.substring(member.indexOf(':') + 1),
              "--join",
              String.join(",", members)));
    }
    BenchServer first = servers.get(0);
    first.start();
    first.acceptJobs();
    submissions(first);
    takeovers();
  }

  private void submissions(BenchServer server) throws InterruptedException {
    System.out.println("durable submissions (each answered after its transaction committed):");
    System.out.println("clients      jobs   seconds     jobs/s   p50 ms   p99 ms");
    for (int clients : new int[] {1, 8, 64}) {
      Submissions.Result r = Submissions.run(server.socket, clients, 2, 10);
      System.out.printf(
          "%7d %9d %9.1f %10.0f %8.2f %8.2f%n",
          r.clients(), r.jobs(), r.seconds(), r.perSecond(), r.p50(), r.p99());
    }
  }

  /**
   * Three servers (two standing by, so that the two left can tell a lost active server from a
   * partition); each round SIGKILLs the active one while a client submits in a loop, times the
   * takeover, and starts the killed server again as a standby.
   */
  private void takeovers() throws Exception {
    servers.get(1).startStandby();
    servers.get(2).startStandby();
    System.out.println(
        "takeover: SIGKILL of the active server to the first submission the next one acknowledged");
    double[] seconds = new double[ROUNDS];
    for (int round = 0; round < ROUNDS; round++) {
      BenchServer active = active();
      Prober prober = new Prober(servers.stream().map(s -> s.socket).toList());
      prober.start();
      Thread.sleep(1000);
      long kill = System.nanoTime();
      active.kill();
      prober.markAfter(System.nanoTime());
      seconds[round] = (prober.awaitFirst() - kill) / 1e9;
      prober.stop();
      System.out.printf(
          "  round %d: %.2f s (%d submissions acknowledged while probing)%n",
          round + 1, seconds[round], prober.acknowledged());
      active.startStandby(); // the same command line joins the running cluster
    }
    Arrays.sort(seconds);
    System.out.printf(
        "  median %.2f s, min %.2f s, max %.2f s over %d rounds%n",
        seconds[ROUNDS / 2], seconds[0], seconds[ROUNDS - 1], ROUNDS);
  }

  private BenchServer active() throws InterruptedException {
    while (true) {
      for (BenchServer s : servers) {
        if (s.answers()) {
          return s;
        }
      }
      Thread.sleep(100);
    }
  }

  /** One client submitting in a loop to whichever server answers, as qsub does with standbys. */
  private static final class Prober {
    private final List<Path> sockets;
    private final AtomicBoolean stop = new AtomicBoolean();
    private final Thread thread;
    private volatile long after = Long.MAX_VALUE;
    private volatile long first;
    private volatile int acknowledged;

    Prober(List<Path> sockets) {
      this.sockets = sockets;
      this.thread = new Thread(this::loop, "prober");
    }

    void start() {
      thread.start();
    }

    void markAfter(long nanos) {
      after = nanos;
    }

    private void loop() {
      while (!stop.get()) {
        long started = System.nanoTime();
        try (BerthClient c =
            BerthClient.connect(sockets, Duration.ofSeconds(60), Duration.ofSeconds(60))) {
          Response r = c.call(BenchServer.submission("probe"));
          if (!r.hasError()) {
            acknowledged++;
            if (started > after && first == 0) {
              first = System.nanoTime();
            }
          }
        } catch (Exception e) {
          // the active server died under this submission; the next one goes to its successor
        }
      }
    }

    long awaitFirst() throws InterruptedException {
      long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
      while (first == 0) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("no server took over within 120 s");
        }
        Thread.sleep(5);
      }
      return first;
    }

    int acknowledged() {
      return acknowledged;
    }

    void stop() throws InterruptedException {
      stop.set(true);
      thread.join();
    }
  }

  private void berth(String... args) throws IOException, InterruptedException {
    List<String> argv = new ArrayList<>(List.of(root.resolve("ops/bin/berth").toString()));
    argv.addAll(List.of(args));
    Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    if (p.waitFor() != 0) {
      throw new IllegalStateException(String.join(" ", args) + " failed: " + out);
    }
  }

  @Override
  public void close() throws Exception {
    for (BenchServer s : servers) {
      s.close();
    }
    berth("kafka", "stop", "--home", dir.toString());
    try (var files = Files.walk(dir)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}

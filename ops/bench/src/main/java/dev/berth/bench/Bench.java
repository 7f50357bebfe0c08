package dev.berth.bench;

import dev.berth.client.BerthClient;
import dev.berth.proto.Request;
import dev.berth.proto.Response;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Berth's benchmarks. Each starts its own server process in a scratch home and prints what it
 * measured; nothing is asserted but that jobs succeed. Usage: ops/bench/run
 * [submit|cli|jobs|restart|start|nodes|seal|schedule|simulate|busy|containers|interactive|hostile|limits|history|kafka|kafka-tls|slurm|all]
 * [rounds]. Submissions and jobs on moms are measured with TLS and with --insecure, {@code rounds}
 * times each (default 2), interleaved.
 */
public final class Bench {
  private static final String USAGE =
      "usage: ops/bench/run [submit|cli|jobs|restart|start|nodes|seal|schedule|simulate|busy|containers|interactive|hostile|limits|history|kafka|kafka-tls|slurm|all] [rounds]";

  private final Path root;
  private final int rounds;

  private Bench(Path root, int rounds) {
    this.root = root;
    this.rounds = rounds;
  }

  /** One run of a measurement with daemons trusted as {@code trust} says. */
  private interface Measurement {
    void run(Trust trust, Comparison results) throws Exception;
  }

  public static void main(String[] args) throws Exception {
    Path root = Path.of(System.getProperty("berth.root", ".")).toAbsolutePath().normalize();
    String what = args.length > 0 ? args[0] : "all";
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 2;
    if (rounds < 1) {
      System.err.println(USAGE);
      System.exit(2);
    }
    Bench bench = new Bench(root, rounds);
    System.out.printf(
        "Berth benchmarks on %d CPUs, %s%n", Runtime.getRuntime().availableProcessors(), machine());
    switch (what) {
      case "submit" -> bench.submit();
      case "cli" -> bench.cli();
      case "jobs" -> JobPathBench.run(root);
      case "restart" -> bench.restart();
      case "start" -> DaemonStartBench.run(root, rounds);
      case "nodes" -> bench.nodes();
      case "seal" -> SealBench.run();
      case "schedule" -> SchedulerCycleBench.run();
      case "simulate" -> ScaleSimulation.run();
      case "busy" -> BusyServerBench.run(root);
      case "containers" -> ContainerBench.run(root);
      case "interactive" -> InteractiveBench.run(root);
      case "hostile" -> HostileBench.run(root);
      case "limits" -> LimitsBench.run(root);
      case "history" -> HistoryBench.run(root);
      case "kafka" -> bench.kafka();
      case "kafka-tls" -> bench.kafkaTls();
      case "slurm" -> SlurmCommandBench.run(root);
      case "all" -> {
        bench.submit();
        bench.cli();
        JobPathBench.run(root);
        bench.restart();
        DaemonStartBench.run(root, rounds);
        bench.nodes();
        SealBench.run();
        SchedulerCycleBench.run();
        ScaleSimulation.run();
        BusyServerBench.run(root);
        ContainerBench.run(root);
        InteractiveBench.run(root);
        HostileBench.run(root);
        LimitsBench.run(root);
        HistoryBench.run(root);
        bench.kafka();
        bench.kafkaTls();
      }
      default -> {
        System.err.println(USAGE);
        System.exit(2);
      }
    }
  }

  /**
   * Runs {@code measurement} {@code rounds} times with each kind of trust, alternating which goes
   * first, then prints every value side by side with the ratio.
   */
  private void compare(String title, Measurement measurement) throws Exception {
    Comparison results = new Comparison();
    for (int round = 1; round <= rounds; round++) {
      for (Trust trust : Trust.order(round)) {
        System.out.printf("%n%s, round %d of %d, %s:%n", title, round, rounds, trust.label);
        measurement.run(trust, results);
      }
    }
    results.print(title);
  }

  /** Jobs and tasks on three real moms (see NodeBench); needs root for cgroups. */
  void nodes() throws Exception {
    compare(
        "jobs on moms",
        (trust, results) -> {
          try (NodeBench nodes = new NodeBench(root, trust, results)) {
            nodes.run();
          }
        });
  }

  /** Submissions through the Kafka journal and standby takeover times (see KafkaBench). */
  void kafka() throws Exception {
    try (KafkaBench kafka = new KafkaBench(root)) {
      kafka.run();
    }
  }

  /** Submissions through the Kafka journal, plaintext against TLS (see KafkaTlsBench). */
  void kafkaTls() throws Exception {
    try (KafkaTlsBench tls = new KafkaTlsBench()) {
      tls.run();
    }
  }

  /**
   * Durable submissions per second with 1, 8 and 64 concurrent clients. They come through the
   * client socket, not the cluster port, so the daemons' trust should not show; measured anyway.
   */
  void submit() throws Exception {
    System.out.printf("%nfsync of a 4 KiB write on /tmp: median %.2f ms%n", fsyncMillis());
    compare(
        "durable submissions through the socket (each answered after fsync)",
        (trust, results) -> {
          System.out.println("clients      jobs   seconds     jobs/s   p50 ms   p99 ms");
          for (int clients : new int[] {1, 8, 64}) {
            // A fresh server for each: 64 clients after the others would reach the server's
            // memory for jobs (BERTH_CLIENT_LIMITS jobs, 512 MiB by default) within the run.
            try (BenchServer server = new BenchServer(root, trust)) {
              server.start();
              server.acceptJobs();
              Submissions.Result r = Submissions.run(server.socket, clients, 2, 10);
              System.out.printf(
                  "%7d %9d %9.1f %10.0f %8.2f %8.2f%n",
                  r.clients(), r.jobs(), r.seconds(), r.perSecond(), r.p50(), r.p99());
              String of = clients == 1 ? ", 1 client" : ", " + clients + " clients";
              results.add("jobs/s" + of, trust, r.perSecond());
              results.add("p50 ms" + of, trust, r.p50());
              results.add("p99 ms" + of, trust, r.p99());
            }
          }
        });
  }

  /** The commands from the shell, Berth's against Slurm's (see CommandBench). */
  void cli() throws Exception {
    CommandBench.run(root);
  }

  /** Restart time with 100,000 jobs in the journal. */
  void restart() throws Exception {
    try (BenchServer server = new BenchServer(root, Trust.TLS)) {
      server.start();
      server.acceptJobs();
      long begin = System.nanoTime();
      while (jobCount(server) < 100_000) {
        Submissions.run(server.socket, 64, 0, 5);
      }
      double filled = (System.nanoTime() - begin) / 1e9;
      long jobs = jobCount(server);
      System.out.printf(
          "%nrestart with %d jobs in the journal (filled in %.0f s):%n", jobs, filled);
      server.stop();
      long clean = server.start();
      System.out.printf(
          "  after berth down (snapshot): ready in %d ms; %s%n", clean, server.recoveryLine());
      Submissions.run(server.socket, 64, 0, 2);
      server.kill();
      long crashed = server.start();
      System.out.printf(
          "  after SIGKILL (snapshot + tail): ready in %d ms; %s%n",
          crashed, server.recoveryLine());
      long all = jobCount(server);
      System.out.printf("  jobs after the crash: %d%n", all);
    }
  }

  private static long jobCount(BenchServer server) throws Exception {
    try (BerthClient c = BerthClient.connect(server.socket)) {
      Response r =
          c.call(
              Request.newBuilder().setStatServer(dev.berth.proto.StatServer.getDefaultInstance()));
      return r.getServer().getTotalJobs();
    }
  }

  private static double fsyncMillis() throws IOException {
    Path file = Files.createTempFile(Path.of("/tmp"), "berth-fsync", ".bin");
    double[] samples = new double[50];
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
      byte[] block = new byte[4096];
      for (int i = 0; i < samples.length; i++) {
        f.write(block);
        long begin = System.nanoTime();
        f.getFD().sync();
        samples[i] = (System.nanoTime() - begin) / 1e6;
      }
    } finally {
      Files.deleteIfExists(file);
    }
    Arrays.sort(samples);
    return samples[samples.length / 2];
  }

  private static String machine() {
    try {
      List<String> lines = new ArrayList<>(Files.readAllLines(Path.of("/proc/cpuinfo")));
      return lines.stream()
          .filter(l -> l.startsWith("model name"))
          .findFirst()
          .orElse("")
          .replaceFirst(".*: ", "");
    } catch (IOException e) {
      return "";
    }
  }
}

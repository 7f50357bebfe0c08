package dev.berth.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * How long a server takes to answer its first request after exec, and the CPU it used by then,
 * started from the daemons' class-data archive (ops/bin/berth-daemon-archive) and from the JDK's
 * own archive alone, in alternating rounds. The integration tests start hundreds of daemons, and a
 * site's restarted daemon is back sooner.
 */
final class DaemonStartBench {
  private DaemonStartBench() {}

  static void run(Path root, int rounds) throws Exception {
    Path archive = root.resolve("daemon/target/berth-daemon.jsa");
    if (!Files.exists(archive)) {
      System.out.println("daemon start: no archive; run ops/bin/berth-daemon-archive first");
      return;
    }
    // the last -XX:SharedArchiveFile wins: the JDK's base archive, as without berth's
    String jdkOnly =
        "-XX:SharedArchiveFile="
            + Path.of(System.getProperty("java.home"), "lib/server/classes.jsa");
    List<double[]> with = new ArrayList<>();
    List<double[]> without = new ArrayList<>();
    try (BenchServer server = new BenchServer(root, Trust.TLS)) {
      for (int round = 0; round < rounds; round++) {
        without.add(start(server, jdkOnly));
        with.add(start(server, ""));
      }
    }
    System.out.printf("%ndaemon start (berth serve, TLS, no moms), median of %d:%n", rounds);
    print("JDK's archive only", without);
    print("berth-daemon.jsa", with);
  }

  /** Milliseconds to the first answer, and CPU milliseconds by then. */
  private static double[] start(BenchServer server, String javaOptions) throws Exception {
    server.javaOptions(javaOptions);
    long ready = server.start();
    double cpu = CpuTime.millis(server.pid());
    server.stop();
    return new double[] {ready, cpu};
  }

  private static void print(String label, List<double[]> samples) {
    System.out.printf(
        "  %-20s ready in %5.0f ms, %5.0f ms of CPU%n",
        label, median(samples, 0), median(samples, 1));
  }

  private static double median(List<double[]> samples, int column) {
    List<Double> values = new ArrayList<>();
    samples.forEach(s -> values.add(s[column]));
    Collections.sort(values);
    return values.get(values.size() / 2);
  }
}

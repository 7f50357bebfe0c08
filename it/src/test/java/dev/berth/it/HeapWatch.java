package dev.berth.it;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The heap of another JVM on this host, whatever network namespace it runs in (the attach API's
 * JMX, which {@link RemoteHeap} uses, needs the target's loopback): jstat samples its use every 200
 * ms, and jcmd asks it for a full collection.
 */
final class HeapWatch implements AutoCloseable {
  private final long pid;
  private final Process jstat;
  private final Thread reader;
  private long peak;
  private long used;

  private HeapWatch(long pid) throws IOException {
    this.pid = pid;
    this.jstat =
        new ProcessBuilder(tool("jstat"), "-gc", Long.toString(pid), "200")
            .redirectErrorStream(true)
            .start();
    this.reader = new Thread(this::read, "jstat-" + pid);
    reader.setDaemon(true);
    reader.start();
  }

  static HeapWatch of(long pid) throws IOException {
    HeapWatch w = new HeapWatch(pid);
    MultiNodeCluster.awaitTrue(() -> w.used() > 0, Duration.ofSeconds(30));
    return w;
  }

  private static String tool(String name) {
    Path java = Path.of(ProcessHandle.current().info().command().orElse("java"));
    return java.resolveSibling(name).toString();
  }

  private void read() {
    try (BufferedReader in =
        new BufferedReader(new InputStreamReader(jstat.getInputStream(), StandardCharsets.UTF_8))) {
      List<String> header = null;
      String line;
      while ((line = in.readLine()) != null) {
        List<String> fields = Arrays.asList(line.trim().split("\\s+"));
        if (fields.contains("OU")) {
          header = fields;
        } else if (header != null && fields.size() == header.size()) {
          double kib = 0;
          for (String column : List.of("S0U", "S1U", "EU", "OU")) {
            kib += Double.parseDouble(fields.get(header.indexOf(column)));
          }
          synchronized (this) {
            used = (long) (kib * 1024);
            peak = Math.max(peak, used);
          }
        }
      }
    } catch (IOException e) {
      // jstat ended
    }
  }

  synchronized long used() {
    return used;
  }

  /** The most it used in any sample since the last {@link #resetPeak}. */
  synchronized long peak() {
    return peak;
  }

  synchronized void resetPeak() {
    peak = used;
  }

  /**
   * What it keeps: the bytes of the objects a full collection leaves (jcmd GC.class_histogram,
   * which runs one; what jstat shows after it includes what the process allocated since).
   */
  long liveAfterGc() throws Exception {
    String total = histogram().lines().filter(l -> l.startsWith("Total")).findFirst().orElseThrow();
    String[] fields = total.trim().split("\\s+");
    return Long.parseLong(fields[fields.length - 1]);
  }

  /** The classes that take most of its heap (jcmd GC.class_histogram), {@code n} lines. */
  String histogram(int n) throws Exception {
    return String.join("\n", histogram().lines().limit(n + 3).toList());
  }

  private String histogram() throws Exception {
    Process p =
        new ProcessBuilder(tool("jcmd"), Long.toString(pid), "GC.class_histogram")
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    p.waitFor(60, TimeUnit.SECONDS);
    return out;
  }

  @Override
  public void close() throws InterruptedException {
    jstat.destroy();
    jstat.waitFor(10, TimeUnit.SECONDS);
  }
}

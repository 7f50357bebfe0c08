package dev.berth.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What a container image adds to a job's start: one mom, jobs running {@code true} one after the
 * other as berth-alice, each timed from qsub to its completion and, more finely, from the mom's
 * start of its process to the process's end (the mom's log lines, to the millisecond: what the
 * starter and the container entry cost, {@code true} itself next to nothing), without a container,
 * in an image unpacked on first use (each job gets a copy of the image with bytes of its own after
 * the file system, so its digest is new and nothing is cached), and in an image the node has
 * cached. The images are the test suite's (TestImages: a Debian bookworm with Open MPI, 103 MiB,
 * and a busybox image), built by ops/test; a missing one is skipped, saying so. Every job must exit
 * 0.
 */
final class ContainerBench implements AutoCloseable {
  static final Path IMAGES = Path.of("/var/cache/berth-test-images");
  private static final int JOBS = 10;

  private final MomCluster cluster;

  ContainerBench(Path root) throws IOException, InterruptedException {
    this.cluster = new MomCluster(root, Trust.INSECURE);
  }

  static void run(Path root) throws Exception {
    try (ContainerBench bench = new ContainerBench(root)) {
      bench.measure();
    }
  }

  private void measure() throws Exception {
    cluster.start();
    cluster.startMom("n1", "0-1");
    System.out.printf(
        "%njobs running `true` on one mom as %s, one at a time, qsub to completion:%n",
        cluster.jobUser());
    Times none = jobs(JOBS, i -> new String[0]);
    report("no container", none);
    for (String name : List.of("tiny-busybox-v1.sqsh", "openmpi-bookworm-v1.sqsh")) {
      Path image = IMAGES.resolve(name);
      if (!Files.isReadable(image)) {
        System.out.printf("  %s: skipped, not built (ops/test builds it)%n", name);
        continue;
      }
      List<Path> copies = new ArrayList<>();
      for (int i = 0; i < JOBS; i++) {
        copies.add(uniqueCopy(image, i));
      }
      Times first = jobs(JOBS, i -> new String[] {"-W", "container_image=" + copies.get(i)});
      Times cached = jobs(JOBS, i -> new String[] {"-W", "container_image=" + image});
      String size = String.format("%.0f MiB", Files.size(image) / 1048576.0);
      report(name + " (" + size + "), first use", first);
      report(name + " (" + size + "), cached", cached);
      System.out.printf(
          "  %s: the process's start and end take %.1f ms more on first use, %.1f ms more"
              + " cached (medians against no container)%n",
          name,
          median(first.process()) - median(none.process()),
          median(cached.process()) - median(none.process()));
      for (Path copy : copies) {
        Files.delete(copy);
      }
    }
  }

  /** The image with {@code n} appended after its end: another digest, the same file system. */
  private Path uniqueCopy(Path image, int n) throws IOException {
    Path copy = cluster.work().resolve("copy-" + n + "-" + image.getFileName());
    Files.copy(image, copy);
    Files.writeString(
        copy, "berth bench copy " + n + " " + System.nanoTime(), StandardOpenOption.APPEND);
    Files.setPosixFilePermissions(copy, PosixFilePermissions.fromString("rw-r--r--"));
    return copy;
  }

  private interface Options {
    String[] of(int job);
  }

  /** Times of one kind of job: qsub to completion, and the mom's process start to its end. */
  private record Times(double[] total, double[] process) {}

  /** {@code count} jobs run one at a time. */
  private Times jobs(int count, Options options) throws Exception {
    double[] total = new double[count];
    double[] process = new double[count];
    for (int i = 0; i < count; i++) {
      long begin = System.nanoTime();
      String id = cluster.submit("true\n", options.of(i));
      cluster.awaitSucceeded(id, 1);
      total[i] = (System.nanoTime() - begin) / 1e6;
      process[i] = processMillis(id);
    }
    Arrays.sort(total);
    Arrays.sort(process);
    return new Times(total, process);
  }

  private static final DateTimeFormatter LOG_TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS");

  /** From the mom's "started as session" line of the job to its "ended with exit status" line. */
  private double processMillis(String id) throws IOException {
    LocalDateTime started = null;
    LocalDateTime ended = null;
    for (String line : Files.readAllLines(cluster.momLog("n1"))) {
      if (line.length() < 23) {
        continue;
      }
      if (line.contains("job " + id + " started as session")) {
        started = LocalDateTime.parse(line.substring(0, 23), LOG_TIME);
      } else if (line.contains("job " + id + " ended with exit status")) {
        ended = LocalDateTime.parse(line.substring(0, 23), LOG_TIME);
      }
    }
    if (started == null || ended == null) {
      throw new IllegalStateException("the mom's log does not say when job " + id + " ran");
    }
    return Duration.between(started, ended).toNanos() / 1e6;
  }

  private static void report(String what, Times t) {
    System.out.printf(
        "  %-44s qsub to done: median %5.0f ms (min %5.0f, max %5.0f); process: median %6.1f ms"
            + " (min %6.1f, max %6.1f) (%d jobs)%n",
        what,
        median(t.total()),
        t.total()[0],
        t.total()[t.total().length - 1],
        median(t.process()),
        t.process()[0],
        t.process()[t.process().length - 1],
        t.total().length);
  }

  private static double median(double[] sorted) {
    return sorted[sorted.length / 2];
  }

  @Override
  public void close() throws Exception {
    cluster.close();
  }
}

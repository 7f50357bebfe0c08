package dev.berth.bench;

import dev.berth.client.BerthClient;
import dev.berth.proto.Response;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Durable submissions per second through the client socket: N clients, each on its own connection,
 * submit as fast as their answers come back. Every answer means the job's event was synced to disk
 * (group commit), so the rate is the journal's, not a cache's. A refused submission ends the run
 * with its reason rather than a rate of what happened to get through.
 */
final class Submissions {
  record Result(int clients, long jobs, double seconds, double perSecond, double p50, double p99) {}

  private Submissions() {}

  static Result run(Path socket, int clients, double warmupSeconds, double seconds)
      throws InterruptedException {
    AtomicBoolean measuring = new AtomicBoolean(false);
    AtomicBoolean stop = new AtomicBoolean(false);
    AtomicReference<String> failure = new AtomicReference<>();
    List<long[]> latencies = new ArrayList<>();
    long[] counts = new long[clients];
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < clients; i++) {
      long[] mine = new long[2_000_000];
      latencies.add(mine);
      int index = i;
      Thread t =
          new Thread(
              () -> {
                try (BerthClient c = BerthClient.connect(socket)) {
                  while (!stop.get()) {
                    long begin = System.nanoTime();
                    Response r = c.call(BenchServer.submission("bench"));
                    long took = System.nanoTime() - begin;
                    if (r.hasError()) {
                      throw new IllegalStateException(r.getError().getMessage());
                    }
                    if (measuring.get() && counts[index] < mine.length) {
                      mine[(int) counts[index]++] = took;
                    }
                  }
                } catch (Exception e) {
                  failure.compareAndSet(null, "client " + index + ": " + e.getMessage());
                  stop.set(true);
                }
              });
      t.start();
      threads.add(t);
    }
    Thread.sleep((long) (warmupSeconds * 1000));
    long begin = System.nanoTime();
    measuring.set(true);
    Thread.sleep((long) (seconds * 1000));
    measuring.set(false);
    double elapsed = (System.nanoTime() - begin) / 1e9;
    stop.set(true);
    for (Thread t : threads) {
      t.join();
    }
    if (failure.get() != null) {
      throw new IllegalStateException("a submission failed: " + failure.get());
    }
    long total = Arrays.stream(counts).sum();
    long[] all = new long[(int) total];
    int at = 0;
    for (int i = 0; i < clients; i++) {
      System.arraycopy(latencies.get(i), 0, all, at, (int) counts[i]);
      at += (int) counts[i];
    }
    Arrays.sort(all);
    return new Result(
        clients,
        total,
        elapsed,
        total / elapsed,
        percentile(all, 0.50) / 1e6,
        percentile(all, 0.99) / 1e6);
  }

  private static double percentile(long[] sorted, double p) {
    return sorted.length == 0 ? 0 : sorted[Math.min(sorted.length - 1, (int) (sorted.length * p))];
  }
}

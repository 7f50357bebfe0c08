package dev.berth.daemon.image;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * What an import or create leaves behind when it stops half way (a staging tree, a partial image, a
 * half-unpacked container) and the squashfs tool it runs. All of it goes when the work closes this,
 * whether it succeeded or failed, and also when the JVM is stopped by a signal (Ctrl-C, kill): the
 * shutdown hook interrupts the working thread and stops the tool, waits for the work to close this,
 * and cleans up itself if the work does not answer in time.
 */
final class Scratch implements AutoCloseable {
  private static final long CLOSE_WAIT_SECONDS = 10;

  private final Thread owner = Thread.currentThread();
  private final Thread hook = new Thread(this::stop, "berth-image-cleanup");
  private final CountDownLatch closed = new CountDownLatch(1);
  private final List<Path> paths = new ArrayList<>();
  private Process running;

  Scratch() {
    Runtime.getRuntime().addShutdownHook(hook);
  }

  /** Removes {@code path} (a file or a tree) when this closes; returns it. */
  synchronized Path add(Path path) {
    paths.add(path);
    return path;
  }

  /** Keeps {@code path}: it has become the result. */
  synchronized void keep(Path path) {
    paths.remove(path);
  }

  /** The tool the work waits for, to stop with it; null once it has ended. */
  synchronized void running(Process process) {
    running = process;
  }

  @Override
  public void close() throws IOException {
    try {
      removeAll();
    } finally {
      closed.countDown();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException e) {
        // the JVM is shutting down: the hook is running and waits for this close
      }
    }
  }

  private void stop() {
    synchronized (this) {
      if (running != null) {
        running.destroy();
      }
    }
    owner.interrupt();
    try {
      if (!closed.await(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS)) {
        removeAll();
      }
    } catch (InterruptedException | IOException e) {
      // nothing more can be done while the JVM exits
    }
  }

  private synchronized void removeAll() throws IOException {
    IOException failed = null;
    for (Path path : List.copyOf(paths)) {
      try {
        Trees.delete(path);
        paths.remove(path);
      } catch (IOException e) {
        failed = failed == null ? e : failed;
      }
    }
    if (failed != null) {
      throw new IOException("could not remove " + paths + ": " + failed.getMessage(), failed);
    }
  }
}

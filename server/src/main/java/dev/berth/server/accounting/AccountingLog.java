package dev.berth.server.accounting;

import dev.berth.proto.Event;
import dev.berth.server.state.ClusterState;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.ZoneId;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's accounting files: {@code DIR/YYYYMMDD}, one a day in the server's time zone, as
 * Torque's server_priv/accounting. Records are made and appended off the server's actor, in the
 * order their events became durable, a batch's lines of a day in one write. The journal stays the
 * truth: what cannot be written (a full disk, a writer that fell too far behind, a stop that did
 * not wait) is logged, and berth accounting makes it again from the journal.
 */
public final class AccountingLog implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(AccountingLog.class);

  /** Batches waiting for the writer; beyond, a batch's records are left to berth accounting. */
  static final int QUEUED_BATCHES = 10_000;

  private final Path dir;
  private final ZoneId zone;
  private final ThreadPoolExecutor writer;

  public AccountingLog(Path dir, ZoneId zone) {
    this.dir = dir;
    this.zone = zone;
    this.writer =
        new ThreadPoolExecutor(
            1,
            1,
            0,
            TimeUnit.SECONDS,
            new ArrayBlockingQueue<>(QUEUED_BATCHES),
            r -> {
              Thread t = new Thread(r, "berth-accounting");
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * Queues the records of {@code events}: they are applied one after the other to {@code before},
   * as replay applies them, on the writer's thread (states are immutable), so the server's actor
   * spends nothing on them.
   */
  public void record(ClusterState before, List<Event> events) {
    try {
      writer.execute(() -> write(before, events));
    } catch (RejectedExecutionException e) {
      log.warn(
          "accounting records of {} events not written (the writer is {}); berth accounting makes"
              + " them from the journal",
          events.size(),
          writer.isShutdown() ? "closed" : QUEUED_BATCHES + " batches behind");
    }
  }

  private void write(ClusterState before, List<Event> events) {
    try {
      append(before, events);
    } catch (RuntimeException e) {
      log.error("cannot make accounting records; berth accounting makes them from the journal", e);
    }
  }

  private void append(ClusterState before, List<Event> events) {
    AccountingDays days = new AccountingDays(before, zone, day -> true, Long.MAX_VALUE);
    events.forEach(days::add);
    days.days().forEach(this::append);
  }

  /**
   * Appends a day's lines in one write. A file whose last line was cut off (a full disk, a stop
   * mid-write) gets its newline first, so no record runs into the next.
   */
  private void append(String name, StringBuilder lines) {
    Path file = dir.resolve(name);
    try {
      if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
        Files.createDirectories(
            dir,
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-x---")));
      }
      if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
        Files.createFile(
            file,
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-r-----")));
      }
      try (FileChannel out =
          FileChannel.open(
              file, StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
        long end = out.size(); // only this thread writes the server's files
        ByteBuffer last = ByteBuffer.allocate(1);
        boolean cut = end > 0 && out.read(last, end - 1) == 1 && last.get(0) != '\n';
        ByteBuffer bytes =
            ByteBuffer.wrap(((cut ? "\n" : "") + lines).getBytes(StandardCharsets.UTF_8));
        while (bytes.hasRemaining()) {
          end += out.write(bytes, end);
        }
      }
    } catch (IOException e) {
      log.warn(
          "cannot write accounting records to {} ({}); berth accounting makes them again from"
              + " the journal",
          file,
          e.toString());
    }
  }

  /** Writes what is queued (for up to a minute), then stops. */
  @Override
  public void close() {
    writer.shutdown();
    try {
      if (!writer.awaitTermination(60, TimeUnit.SECONDS)) {
        log.warn("accounting records still queued at the stop are left to berth accounting");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

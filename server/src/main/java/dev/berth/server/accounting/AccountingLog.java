package dev.berth.server.accounting;

import dev.berth.proto.Event;
import dev.berth.server.state.ClusterState;
import dev.berth.server.state.StateMachine;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's accounting files: {@code DIR/YYYYMMDD}, one a day in the server's time zone, as
 * Torque's server_priv/accounting. Records are appended off the server's actor, in the order their
 * events became durable; the journal stays the truth, so a write that fails is logged and can be
 * made again from it ({@code berth accounting}).
 */
public final class AccountingLog implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(AccountingLog.class);

  private final Path dir;
  private final ZoneId zone;
  private final ExecutorService writer;
  private String openName;
  private OutputStream open;

  public AccountingLog(Path dir, ZoneId zone) {
    this.dir = dir;
    this.zone = zone;
    this.writer =
        Executors.newSingleThreadExecutor(
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
      // the server is stopping: the journal has these events, berth accounting their records
      log.info("accounting closed; {} events' records left to berth accounting", events.size());
    }
  }

  private void write(ClusterState before, List<Event> events) {
    List<AccountingRecord> records = new ArrayList<>();
    ClusterState s = before;
    for (Event e : events) {
      ClusterState next = StateMachine.apply(s, e);
      records.addAll(AccountingRecords.of(s, e, next));
      s = next;
    }
    if (!records.isEmpty()) {
      write(records);
    }
  }

  private void write(List<AccountingRecord> records) {
    try {
      for (AccountingRecord r : records) {
        out(r.file(zone)).write(r.line(zone).getBytes(StandardCharsets.UTF_8));
      }
      open.flush();
    } catch (IOException e) {
      log.warn(
          "cannot write {} accounting records to {} ({}); berth accounting makes them again from"
              + " the journal",
          records.size(),
          dir,
          e.toString());
      closeOpen();
    }
  }

  /** The day's file, opened for appending (made root-only); the one before is closed. */
  private OutputStream out(String name) throws IOException {
    if (name.equals(openName)) {
      return open;
    }
    closeOpen();
    if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      Files.createDirectories(
          dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-x---")));
    }
    Path file = dir.resolve(name);
    if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
      Files.createFile(
          file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-r-----")));
    }
    open =
        Files.newOutputStream(
            file, StandardOpenOption.APPEND, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
    openName = name;
    return open;
  }

  private void closeOpen() {
    if (open != null) {
      try {
        open.close();
      } catch (IOException ignored) {
        // what it held is written or reported
      }
    }
    open = null;
    openName = null;
  }

  /** Writes what is queued, then closes the file. */
  @Override
  public void close() {
    writer.execute(this::closeOpen);
    writer.shutdown();
    try {
      writer.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

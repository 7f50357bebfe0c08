package dev.berth.server.journal;

import dev.berth.proto.Event;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The durable, ordered log of events. Implementations: RocksDB on the server's own disk (the
 * default), and a replicated log (Kafka) for standby servers.
 */
public interface Journal extends AutoCloseable {
  /**
   * Makes {@code events} durable after everything appended before. The future completes when they
   * would survive a crash of the process or the machine, and fails if they might not.
   */
  CompletableFuture<Void> append(List<Event> events);

  /** Delivers every event with a sequence number above {@code afterSeq}, in order. */
  void replay(long afterSeq, Consumer<Event> consumer);

  /** The sequence number of the last durable event; 0 when empty. */
  long lastSeq();

  /** The newest complete snapshot, if any. */
  Optional<Snapshot> latestSnapshot();

  /** Stores a snapshot of the state as of {@code seq}; older snapshots may then be dropped. */
  void saveSnapshot(Snapshot snapshot);

  /**
   * Delivers every event that concerns the job (and, for a subjob, its array), oldest first; an
   * exception {@code consumer} throws ends the reading.
   */
  void history(String jobId, Consumer<Event> consumer);

  @Override
  void close();

  /**
   * A state image (events without sequence numbers) as of event {@code seq}. A stored one is read
   * from disk as it is iterated, a piece at a time; iterate it while the journal is open.
   */
  record Snapshot(long seq, Iterable<Event> image) {}
}

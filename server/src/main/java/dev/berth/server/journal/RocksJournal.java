package dev.berth.server.journal;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.berth.core.FormatVersion;
import dev.berth.proto.Event;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.zip.CRC32C;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WALRecoveryMode;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * The embedded journal: events in RocksDB, each write batch synced to disk before its future
 * completes. One writer thread takes every batch that is waiting and writes them with a single
 * sync, so concurrent submissions share one fsync (group commit).
 *
 * <p>Each record is {@code crc32c(seq, event) + event}; replay checks the checksum and that
 * sequence numbers follow each other. RocksDB opens its write-ahead log in absolute-consistency
 * mode, so a damaged or truncated log tail stops the server with a report instead of being dropped
 * silently; {@link #recover} is the administrator's explicit way past it.
 */
public final class RocksJournal implements Journal {
  private static final byte[] EVENTS = "events".getBytes(StandardCharsets.UTF_8);
  private static final byte[] JOBS = "jobs".getBytes(StandardCharsets.UTF_8);
  private static final byte[] SNAPSHOTS = "snapshots".getBytes(StandardCharsets.UTF_8);

  /**
   * The format mark, in the default column family. Version 2 marks its journals; the layout (events
   * by sequence number with their checksum, jobs, snapshots in chunks) is version 1's, and event
   * messages only gain fields, which earlier releases skip.
   */
  private static final byte[] FORMAT = "format".getBytes(StandardCharsets.UTF_8);

  static final int FORMAT_VERSION = 2;

  static {
    RocksDB.loadLibrary();
  }

  private final Path dir;
  private final FormatVersion format;
  private final DBOptions options;
  private final ColumnFamilyOptions familyOptions;
  private final RocksDB db;
  private final ColumnFamilyHandle events;
  private final ColumnFamilyHandle jobs;
  private final List<ColumnFamilyHandle> handles;
  private final RocksSnapshots snapshotStore;
  private final WriteOptions syncWrite = new WriteOptions().setSync(true);
  private final GroupCommit writer;
  private volatile long lastSeq;

  private RocksJournal(Path dir, WALRecoveryMode mode) {
    this.dir = dir;
    this.format = new FormatVersion("the journal in " + dir, FORMAT_VERSION);
    try {
      // Every job's script and environment is in it: no one but its owner may look inside.
      Files.createDirectories(dir);
      Files.setPosixFilePermissions(
          dir, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
    } catch (IOException e) {
      throw new JournalException("cannot create the journal directory " + dir, e);
    }
    options =
        new DBOptions()
            .setCreateIfMissing(true)
            .setCreateMissingColumnFamilies(true)
            .setParanoidChecks(true)
            .setWalRecoveryMode(mode)
            .setMaxBackgroundJobs(2);
    familyOptions = new ColumnFamilyOptions().setWriteBufferSize(64L << 20);
    List<ColumnFamilyDescriptor> descriptors =
        List.of(
            new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, familyOptions),
            new ColumnFamilyDescriptor(EVENTS, familyOptions),
            new ColumnFamilyDescriptor(JOBS, familyOptions),
            new ColumnFamilyDescriptor(SNAPSHOTS, familyOptions));
    handles = new ArrayList<>();
    try {
      db = RocksDB.open(options, dir.toString(), descriptors, handles);
    } catch (RocksDBException e) {
      familyOptions.close();
      options.close();
      throw new JournalException(
          "cannot open the journal in "
              + dir
              + ": "
              + e.getMessage()
              + ". If the log tail is damaged (a crash during a write, a disk error), "
              + "`berth journal recover` keeps the events that are intact and reports where "
              + "it cut; back up the directory first.",
          e);
    }
    events = handles.get(1);
    jobs = handles.get(2);
    snapshotStore = new RocksSnapshots(db, handles.get(3), syncWrite);
    checkFormat();
    lastSeq = readLastSeq();
    writer = new GroupCommit("berth-journal-writer", this::write);
  }

  /** Opens (or creates) the journal; refuses to open a damaged one. */
  public static RocksJournal open(Path dir) {
    return new RocksJournal(dir, WALRecoveryMode.AbsoluteConsistency);
  }

  /**
   * Opens a journal whose log tail is damaged, keeping every event up to the first damaged record.
   * The lost tail is gone for good; call this only on an administrator's request.
   */
  public static RocksJournal recover(Path dir) {
    return new RocksJournal(dir, WALRecoveryMode.PointInTimeRecovery);
  }

  public Path directory() {
    return dir;
  }

  @Override
  public CompletableFuture<Void> append(List<Event> batch) {
    return writer.append(batch);
  }

  private void write(List<GroupCommit.Pending> group) {
    try (WriteBatch batch = new WriteBatch()) {
      long seq = lastSeq;
      for (GroupCommit.Pending p : group) {
        for (Event e : p.events()) {
          if (e.getSeq() != seq + 1) {
            throw new JournalException(
                "event " + e.getSeq() + " appended after event " + seq + ": sequence broken");
          }
          seq = e.getSeq();
          batch.put(events, key(seq), record(e));
          Optional<String> job = EventJobs.jobId(e);
          if (job.isPresent()) {
            batch.put(jobs, jobKey(job.get(), seq), new byte[0]);
          }
        }
      }
      db.write(syncWrite, batch);
      lastSeq = seq;
      group.forEach(p -> p.done().complete(null));
    } catch (RocksDBException | RuntimeException e) {
      JournalException failure =
          e instanceof JournalException je
              ? je
              : new JournalException("journal write failed: " + e.getMessage(), e);
      group.forEach(p -> p.done().completeExceptionally(failure));
    }
  }

  @Override
  public void replay(long afterSeq, Consumer<Event> consumer) {
    try (ReadOptions read = new ReadOptions().setVerifyChecksums(true);
        RocksIterator it = db.newIterator(events, read)) {
      long expected = afterSeq + 1;
      for (it.seek(key(expected)); it.isValid(); it.next()) {
        long seq = ByteBuffer.wrap(it.key()).getLong();
        if (seq != expected) {
          throw new JournalException(
              "the journal has a gap: event " + (expected - 1) + " is followed by event " + seq);
        }
        consumer.accept(decode(seq, it.value()));
        expected++;
      }
      it.status();
    } catch (RocksDBException e) {
      throw new JournalException("cannot read the journal: " + e.getMessage(), e);
    }
  }

  @Override
  public long lastSeq() {
    return lastSeq;
  }

  @Override
  public void history(String jobId, Consumer<Event> consumer) {
    List<String> ids = new ArrayList<>(List.of(jobId));
    int bracket = jobId.indexOf('[');
    if (bracket > 0 && jobId.charAt(bracket + 1) != ']') {
      ids.add(jobId.substring(0, bracket) + "[]" + jobId.substring(jobId.indexOf(']') + 1));
    }
    List<Long> seqs = new ArrayList<>();
    for (String id : ids) {
      byte[] prefix = (id + "\0").getBytes(StandardCharsets.UTF_8);
      try (RocksIterator it = db.newIterator(jobs)) {
        for (it.seek(prefix); it.isValid() && startsWith(it.key(), prefix); it.next()) {
          seqs.add(ByteBuffer.wrap(it.key(), prefix.length, 8).getLong());
        }
      }
    }
    seqs.sort(Long::compare);
    try {
      for (long seq : seqs) {
        byte[] value = db.get(events, key(seq));
        if (value != null) {
          consumer.accept(decode(seq, value));
        }
      }
    } catch (RocksDBException e) {
      throw new JournalException("cannot read the journal: " + e.getMessage(), e);
    }
  }

  @Override
  public Optional<Snapshot> latestSnapshot() {
    return snapshotStore.latest();
  }

  @Override
  public void saveSnapshot(Snapshot snapshot) {
    snapshotStore.save(snapshot);
  }

  @Override
  public void close() {
    if (!writer.close(java.time.Duration.ofSeconds(10))) {
      return;
    }
    closeDatabase();
  }

  private void closeDatabase() {
    handles.forEach(ColumnFamilyHandle::close);
    db.close();
    syncWrite.close();
    familyOptions.close();
    options.close();
  }

  /**
   * Refuses a journal a newer release wrote; marks an older one (or a new one) as this release's.
   */
  private void checkFormat() {
    try {
      if (format() < FORMAT_VERSION) {
        db.put(syncWrite, FORMAT, format.mark().getBytes(StandardCharsets.UTF_8));
      }
    } catch (IllegalStateException | JournalException | RocksDBException e) {
      closeDatabase();
      throw new JournalException(e.getMessage(), e);
    }
  }

  /** The format version the journal is marked with (1 when unmarked). */
  public int format() {
    try {
      byte[] mark = db.get(FORMAT);
      return format.check(mark == null ? null : new String(mark, StandardCharsets.UTF_8));
    } catch (RocksDBException e) {
      throw new JournalException("cannot read the journal's format: " + e.getMessage(), e);
    }
  }

  private long readLastSeq() {
    try (RocksIterator it = db.newIterator(events)) {
      it.seekToLast();
      return it.isValid() ? ByteBuffer.wrap(it.key()).getLong() : 0;
    }
  }

  static byte[] key(long seq) {
    return ByteBuffer.allocate(8).putLong(seq).array();
  }

  private static byte[] jobKey(String jobId, long seq) {
    byte[] id = (jobId + "\0").getBytes(StandardCharsets.UTF_8);
    return ByteBuffer.allocate(id.length + 8).put(id).putLong(seq).array();
  }

  private static byte[] record(Event e) {
    byte[] body = e.toByteArray();
    return ByteBuffer.allocate(4 + body.length)
        .putInt(checksum(e.getSeq(), body, 0))
        .put(body)
        .array();
  }

  private static Event decode(long seq, byte[] value) {
    if (value.length < 4) {
      throw new JournalException(
          "journal record " + seq + " is truncated (" + value.length + " bytes)");
    }
    int stored = ByteBuffer.wrap(value).getInt();
    if (stored != checksum(seq, value, 4)) {
      throw new JournalException(
          "journal record " + seq + " fails its checksum: the journal is damaged");
    }
    try {
      Event e = Event.parseFrom(ByteBuffer.wrap(value, 4, value.length - 4));
      if (e.getSeq() != seq) {
        throw new JournalException("journal record " + seq + " holds event " + e.getSeq());
      }
      return e;
    } catch (InvalidProtocolBufferException ex) {
      throw new JournalException(
          "journal record " + seq + " does not parse: " + ex.getMessage(), ex);
    }
  }

  private static int checksum(long seq, byte[] data, int offset) {
    CRC32C crc = new CRC32C();
    crc.update(key(seq));
    crc.update(data, offset, data.length - offset);
    return (int) crc.getValue();
  }

  private static boolean startsWith(byte[] key, byte[] prefix) {
    return key.length >= prefix.length
        && Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length);
  }
}

package dev.berth.server.journal;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import dev.berth.proto.Event;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Optional;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * The journal's snapshots in their column family: each image as length-delimited events in chunks
 * of about {@link #CHUNK} bytes under {@code (seq, chunk)}, and {@code latest} naming the newest
 * complete one and its number of chunks. An image is read a chunk at a time as it is iterated, so
 * loading one never holds more of it than a chunk and the state being rebuilt.
 */
final class RocksSnapshots {
  private static final byte[] LATEST = "latest".getBytes(StandardCharsets.UTF_8);
  static final int CHUNK = 4 << 20;

  private final RocksDB db;
  private final ColumnFamilyHandle snapshots;
  private final WriteOptions syncWrite;

  RocksSnapshots(RocksDB db, ColumnFamilyHandle snapshots, WriteOptions syncWrite) {
    this.db = db;
    this.snapshots = snapshots;
    this.syncWrite = syncWrite;
  }

  /** The newest snapshot, whose chunks are all there; its image is read as it is iterated. */
  Optional<Journal.Snapshot> latest() {
    try {
      byte[] latest = db.get(snapshots, LATEST);
      if (latest == null) {
        return Optional.empty();
      }
      ByteBuffer meta = ByteBuffer.wrap(latest);
      long seq = meta.getLong();
      int chunks = meta.getInt();
      requireChunks(seq, chunks);
      return Optional.of(new Journal.Snapshot(seq, () -> new Reader(seq, chunks)));
    } catch (RocksDBException e) {
      throw new JournalException("cannot read the latest snapshot: " + e.getMessage(), e);
    }
  }

  /** Stores {@code snapshot} as the latest and drops the one before, in one synced write. */
  void save(Journal.Snapshot snapshot) {
    try (WriteBatch batch = new WriteBatch()) {
      byte[] previous = db.get(snapshots, LATEST);
      int chunk = 0;
      ByteArrayOutputStream buffer = new ByteArrayOutputStream(CHUNK + (1 << 16));
      CodedOutputStream out = CodedOutputStream.newInstance(buffer);
      for (Event e : snapshot.image()) {
        out.writeUInt32NoTag(e.getSerializedSize()); // as writeByteArrayNoTag, without a copy
        e.writeTo(out);
        if (buffer.size() >= CHUNK) { // the stream's own buffer may hold a little more
          out.flush();
          batch.put(snapshots, key(snapshot.seq(), chunk++), buffer.toByteArray());
          buffer.reset();
        }
      }
      out.flush();
      batch.put(snapshots, key(snapshot.seq(), chunk++), buffer.toByteArray());
      batch.put(
          snapshots, LATEST, ByteBuffer.allocate(12).putLong(snapshot.seq()).putInt(chunk).array());
      if (previous != null) {
        long old = ByteBuffer.wrap(previous).getLong();
        if (old != snapshot.seq()) {
          batch.deleteRange(snapshots, key(old, 0), key(old + 1, 0));
        }
      }
      db.write(syncWrite, batch);
    } catch (RocksDBException | IOException e) {
      throw new JournalException("cannot write a snapshot: " + e.getMessage(), e);
    }
  }

  /** A missing chunk is reported when the snapshot is found, not halfway through loading it. */
  private void requireChunks(long seq, int chunks) {
    try (RocksIterator it = db.newIterator(snapshots)) {
      int chunk = 0;
      for (it.seek(key(seq, 0)); it.isValid() && chunk < chunks; it.next(), chunk++) {
        if (!ByteBuffer.wrap(key(seq, chunk)).equals(ByteBuffer.wrap(it.key()))) {
          break;
        }
      }
      if (chunk < chunks) {
        throw new JournalException("snapshot at event " + seq + " lacks chunk " + chunk);
      }
    }
  }

  private static byte[] key(long seq, int chunk) {
    return ByteBuffer.allocate(12).putLong(seq).putInt(chunk).array();
  }

  /** The events of one image, a chunk read at a time. */
  private final class Reader implements Iterator<Event> {
    private final long seq;
    private final int chunks;
    private int next;
    private CodedInputStream in;

    Reader(long seq, int chunks) {
      this.seq = seq;
      this.chunks = chunks;
    }

    @Override
    public boolean hasNext() {
      try {
        while (in == null || in.isAtEnd()) {
          if (next == chunks) {
            return false;
          }
          byte[] chunk = db.get(snapshots, key(seq, next));
          if (chunk == null) {
            throw new JournalException("snapshot at event " + seq + " lacks chunk " + next);
          }
          next++;
          in = CodedInputStream.newInstance(chunk);
        }
        return true;
      } catch (RocksDBException | IOException e) {
        throw new JournalException("cannot read the snapshot at event " + seq + ": " + e, e);
      }
    }

    @Override
    public Event next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      try {
        return Event.parseFrom(in.readBytes());
      } catch (IOException e) {
        throw new JournalException(
            "chunk " + (next - 1) + " of the snapshot at event " + seq + " does not parse: " + e,
            e);
      }
    }
  }
}

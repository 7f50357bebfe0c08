package dev.berth.server.journal;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

/**
 * Opens a closed journal's RocksDB directly, the way a disk error or a careless hand would reach
 * it, so tests can damage records underneath {@link RocksJournal}.
 */
final class RawRocks {
  interface Action {
    void run(RocksDB db, Map<String, ColumnFamilyHandle> families) throws RocksDBException;
  }

  private RawRocks() {}

  static void with(Path dir, Action action) throws RocksDBException {
    List<byte[]> names;
    try (Options o = new Options()) {
      names = RocksDB.listColumnFamilies(o, dir.toString());
    }
    List<ColumnFamilyHandle> handles = new ArrayList<>();
    try (DBOptions options = new DBOptions();
        ColumnFamilyOptions family = new ColumnFamilyOptions()) {
      List<ColumnFamilyDescriptor> descriptors =
          names.stream().map(n -> new ColumnFamilyDescriptor(n, family)).toList();
      try (RocksDB db = RocksDB.open(options, dir.toString(), descriptors, handles)) {
        Map<String, ColumnFamilyHandle> byName = new HashMap<>();
        for (int i = 0; i < names.size(); i++) {
          byName.put(new String(names.get(i), StandardCharsets.UTF_8), handles.get(i));
        }
        action.run(db, byName);
      } finally {
        handles.forEach(ColumnFamilyHandle::close);
      }
    }
  }

  /** A record as the journal writes it: CRC32C over the key and the body, then the body. */
  static byte[] record(long seq, byte[] body) {
    CRC32C crc = new CRC32C();
    crc.update(RocksJournal.key(seq));
    crc.update(body);
    return ByteBuffer.allocate(4 + body.length).putInt((int) crc.getValue()).put(body).array();
  }
}

package dev.berth.mom.store;

import dev.berth.proto.JobRecordEntry;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * A job's record as one file of entries, each appended and synced on its own: four bytes of length,
 * four of CRC-32C, the entry. A crash can only cut the last entry short (or leave zeros where its
 * bytes never reached the disk); reading stops there and the entries before it stand. A bad entry
 * with more after it is damage, not a crash, and the record cannot be read.
 *
 * <p>One file instead of one per fact: on a node that ends many jobs a second, every file made and
 * removed costs the file system more than writing to it (ext4 without a journal scans the inodes
 * freed in the last half minute for each one it hands out).
 */
final class RecordLog {
  private static final int HEADER = 8;

  /** What a record holds: its entries, and how many of its bytes they are. */
  record Contents(List<JobRecordEntry> entries, long length) {}

  private RecordLog() {}

  /** A new record holding {@code entries}, replacing any there; synced with its directory entry. */
  static void create(Path file, JobRecordEntry... entries) throws IOException {
    try (FileChannel ch =
        FileChannel.open(
            file,
            StandardOpenOption.CREATE,
            StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING)) {
      write(ch, entries);
      ch.force(true);
    }
    try (FileChannel dir = FileChannel.open(file.getParent(), StandardOpenOption.READ)) {
      dir.force(true);
    }
  }

  /** Adds an entry to an existing record and syncs it: the record must have been created. */
  static void append(Path file, JobRecordEntry entry) throws IOException {
    try (FileChannel ch =
        FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
      write(ch, entry);
      ch.force(false);
    }
  }

  private static void write(FileChannel ch, JobRecordEntry... entries) throws IOException {
    ByteBuffer buffer = ByteBuffer.wrap(frame(List.of(entries)));
    while (buffer.hasRemaining()) {
      ch.write(buffer); // one write for all: appends from one writer never interleave
    }
  }

  /** {@code entries} as a record holds them, each framed by its length and checksum. */
  static byte[] frame(List<JobRecordEntry> entries) {
    int size = 0;
    for (JobRecordEntry e : entries) {
      size += HEADER + e.getSerializedSize();
    }
    ByteBuffer buffer = ByteBuffer.allocate(size);
    for (JobRecordEntry e : entries) {
      byte[] bytes = e.toByteArray();
      CRC32C crc = new CRC32C();
      crc.update(bytes);
      buffer.putInt(bytes.length).putInt((int) crc.getValue()).put(bytes);
    }
    return buffer.array();
  }

  /**
   * The entries of a record up to where a crash may have cut it short.
   *
   * @throws IOException when an entry is damaged where more entries follow
   */
  static Contents read(Path file) throws IOException {
    ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(file));
    List<JobRecordEntry> entries = new ArrayList<>();
    while (bytes.remaining() >= HEADER) {
      int start = bytes.position();
      int length = bytes.getInt();
      int crc = bytes.getInt();
      if (length <= 0 || length > bytes.remaining()) {
        bytes.position(start); // cut short, or zeros where the entry never reached the disk
        break;
      }
      byte[] entry = new byte[length];
      bytes.get(entry);
      CRC32C check = new CRC32C();
      check.update(entry);
      if ((int) check.getValue() != crc) {
        if (bytes.hasRemaining()) {
          throw new IOException(
              "the record " + file + " is damaged at byte " + start + " (checksum mismatch)");
        }
        bytes.position(start); // the last entry, half written
        break;
      }
      entries.add(JobRecordEntry.parseFrom(entry));
    }
    return new Contents(entries, bytes.position());
  }

  /** Cuts what a crash left half written off the end, so that later entries follow whole ones. */
  static void truncate(Path file, long length) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
      if (ch.size() > length) {
        ch.truncate(length);
        ch.force(false);
      }
    }
  }
}

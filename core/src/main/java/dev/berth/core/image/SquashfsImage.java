package dev.berth.core.image;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.Locale;

/**
 * The check every user of a container image makes before handing it to mksquashfs' readers, the
 * kernel or unsquashfs: that the file is a regular file of bounded size holding a squashfs 4.0
 * superblock whose fields agree with each other and with the file. It reads 96 bytes and trusts
 * nothing else; a corrupt image past the superblock is still the kernel's or unsquashfs' to refuse.
 */
public final class SquashfsImage {
  /** "hsqs" read as a little-endian number. */
  static final int MAGIC = 0x73717368;

  /** The superblock's size in squashfs 4.0. */
  public static final int SUPERBLOCK_BYTES = 96;

  static final int MIN_BLOCK_LOG = 12; // 4 KiB

  static final int MAX_BLOCK_LOG = 20; // 1 MiB

  private SquashfsImage() {}

  /** The compressors squashfs 4.0 names by number in its superblock. */
  public enum Compression {
    GZIP,
    LZMA,
    LZO,
    XZ,
    LZ4,
    ZSTD;

    /** The superblock's number for it (1-6). */
    public int id() {
      return ordinal() + 1;
    }

    static Compression ofId(int id) {
      return id >= 1 && id <= values().length ? values()[id - 1] : null;
    }

    /** The name mksquashfs' {@code -comp} takes. */
    public String word() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** What the superblock says, once it has been found consistent. */
  public record Header(
      Compression compression,
      int blockSize,
      long inodes,
      long bytesUsed,
      long fileSize,
      Instant created) {}

  /**
   * Checks {@code file} and returns its header.
   *
   * @throws IOException naming the file and what is wrong with it, when it is not a regular file,
   *     is larger than {@code maxBytes}, or does not start with a consistent squashfs 4.0
   *     superblock
   */
  public static Header check(Path file, long maxBytes) throws IOException {
    // Following a link is the caller's choice of path; what it leads to must be a plain file (a
    // FIFO would block the open, a device would be read without end).
    BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
    if (!attributes.isRegularFile()) {
      throw new IOException(file + ": not a squashfs image (not a regular file)");
    }
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      long size = channel.size();
      if (size > maxBytes) {
        throw new IOException(
            file + ": image is " + size + " bytes, more than the limit of " + maxBytes);
      }
      ByteBuffer superblock = ByteBuffer.allocate(SUPERBLOCK_BYTES);
      int read = 0;
      while (superblock.hasRemaining() && read >= 0) {
        read = channel.read(superblock);
      }
      if (superblock.hasRemaining()) {
        throw new IOException(
            file + ": not a squashfs image (" + size + " bytes, shorter than a superblock)");
      }
      try {
        return parse(superblock.flip(), size);
      } catch (IllegalArgumentException e) {
        throw new IOException(file + ": " + e.getMessage(), e);
      }
    }
  }

  /**
   * Reads a superblock (its first 96 bytes) of a file of {@code fileSize} bytes.
   *
   * @throws IllegalArgumentException saying what is wrong
   */
  public static Header parse(ByteBuffer bytes, long fileSize) {
    ByteBuffer b = bytes.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    if (b.remaining() < SUPERBLOCK_BYTES) {
      throw new IllegalArgumentException("not a squashfs image (shorter than a superblock)");
    }
    int start = b.position();
    if (b.getInt(start) != MAGIC) {
      throw new IllegalArgumentException("not a squashfs image (bad magic)");
    }
    int major = Short.toUnsignedInt(b.getShort(start + 28));
    int minor = Short.toUnsignedInt(b.getShort(start + 30));
    if (major != 4 || minor != 0) {
      throw new IllegalArgumentException(
          "squashfs version " + major + "." + minor + ", not 4.0 (the only one Linux mounts)");
    }
    long blockSize = Integer.toUnsignedLong(b.getInt(start + 12));
    int blockLog = Short.toUnsignedInt(b.getShort(start + 22));
    if (Long.bitCount(blockSize) != 1
        || blockSize < 1L << MIN_BLOCK_LOG
        || blockSize > 1L << MAX_BLOCK_LOG) {
      throw new IllegalArgumentException(
          "bad block size " + blockSize + " (a power of two from 4 KiB to 1 MiB)");
    }
    if (1L << blockLog != blockSize) {
      throw new IllegalArgumentException(
          "block size " + blockSize + " disagrees with its logarithm " + blockLog);
    }
    int compressionId = Short.toUnsignedInt(b.getShort(start + 20));
    Compression compression = Compression.ofId(compressionId);
    if (compression == null) {
      throw new IllegalArgumentException("unknown compression " + compressionId);
    }
    long bytesUsed = b.getLong(start + 40);
    if (bytesUsed < SUPERBLOCK_BYTES || bytesUsed > fileSize) {
      throw new IllegalArgumentException(
          "superblock says "
              + Long.toUnsignedString(bytesUsed)
              + " bytes are used, but the file has "
              + fileSize
              + " (truncated or not an image)");
    }
    // The tables the root directory is read from must lie inside the used bytes.
    for (int offset : new int[] {64, 72}) {
      long tableStart = b.getLong(start + offset);
      if (Long.compareUnsigned(tableStart, bytesUsed) >= 0 || tableStart < SUPERBLOCK_BYTES) {
        throw new IllegalArgumentException(
            (offset == 64 ? "inode" : "directory")
                + " table starts at "
                + Long.toUnsignedString(tableStart)
                + ", outside the "
                + bytesUsed
                + " bytes used");
      }
    }
    return new Header(
        compression,
        (int) blockSize,
        Integer.toUnsignedLong(b.getInt(start + 4)),
        bytesUsed,
        fileSize,
        Instant.ofEpochSecond(Integer.toUnsignedLong(b.getInt(start + 8))));
  }
}

package dev.berth.core.image;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.core.image.SquashfsImage.Compression;
import dev.berth.core.image.SquashfsImage.Header;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Superblocks built byte by byte, each with one field wrong. */
class SquashfsImageTest {
  private static final long FILE_SIZE = 8192;

  @TempDir Path dir;

  /** The superblock mksquashfs 4.5 wrote for a three-file lz4 image, fields by offset. */
  private static ByteBuffer superblock(Consumer<ByteBuffer> change) {
    ByteBuffer b = ByteBuffer.allocate(SquashfsImage.SUPERBLOCK_BYTES);
    b.order(ByteOrder.LITTLE_ENDIAN);
    b.putInt(0, 0x73717368); // "hsqs"
    b.putInt(4, 8); // inodes
    b.putInt(8, 1_796_246_417); // mkfs time
    b.putInt(12, 131072); // block size
    b.putInt(16, 1); // fragments
    b.putShort(20, (short) 5); // lz4
    b.putShort(22, (short) 17); // block log
    b.putShort(24, (short) 0x06c0); // flags
    b.putShort(26, (short) 1); // ids
    b.putShort(28, (short) 4);
    b.putShort(30, (short) 0);
    b.putLong(32, 0xe0); // root inode
    b.putLong(40, 0x1c8); // bytes used
    b.putLong(48, 0x1c0); // id table
    b.putLong(56, -1); // no xattrs
    b.putLong(64, 0x6d); // inode table
    b.putLong(72, 0x10b); // directory table
    b.putLong(80, 0x183); // fragment table
    b.putLong(88, 0x1b2); // export table
    change.accept(b);
    return b;
  }

  private static String refusal(Consumer<ByteBuffer> change) {
    return assertThrows(
            IllegalArgumentException.class,
            () -> SquashfsImage.parse(superblock(change), FILE_SIZE))
        .getMessage();
  }

  @Test
  void readsAConsistentSuperblock() {
    Header h = SquashfsImage.parse(superblock(b -> {}), FILE_SIZE);
    assertEquals(Compression.LZ4, h.compression());
    assertEquals(5, h.compression().id());
    assertEquals("lz4", h.compression().word());
    assertEquals(131072, h.blockSize());
    assertEquals(8, h.inodes());
    assertEquals(0x1c8, h.bytesUsed());
    assertEquals(FILE_SIZE, h.fileSize());
    assertEquals(Instant.ofEpochSecond(1_796_246_417), h.created());
  }

  @Test
  void refusesABadMagic() {
    assertEquals(
        "not a squashfs image (bad magic)", refusal(b -> b.putInt(0, 0x71736873))); // big-endian
  }

  @Test
  void refusesVersionsOtherThan40() {
    assertTrue(refusal(b -> b.putShort(28, (short) 3).putShort(30, (short) 1)).contains("3.1"));
    assertTrue(refusal(b -> b.putShort(30, (short) 1)).contains("4.1"));
  }

  @ParameterizedTest(name = "block size {0}")
  @ValueSource(ints = {0, 2048, 3 * 4096, 1 << 21, -1})
  void refusesBlockSizesOutOfRangeOrNotAPowerOfTwo(int size) {
    String why = refusal(b -> b.putInt(12, size).putShort(22, (short) 17));
    assertTrue(why.startsWith("bad block size"), why);
  }

  @Test
  void acceptsTheSmallestAndLargestBlockSizes() {
    assertEquals(
        4096,
        SquashfsImage.parse(superblock(b -> b.putInt(12, 4096).putShort(22, (short) 12)), FILE_SIZE)
            .blockSize());
    assertEquals(
        1 << 20,
        SquashfsImage.parse(
                superblock(b -> b.putInt(12, 1 << 20).putShort(22, (short) 20)), FILE_SIZE)
            .blockSize());
  }

  @Test
  void refusesABlockLogThatDisagrees() {
    assertEquals(
        "block size 131072 disagrees with its logarithm 16",
        refusal(b -> b.putShort(22, (short) 16)));
  }

  @ParameterizedTest(name = "compression {0}")
  @ValueSource(shorts = {0, 7, -1})
  void refusesUnknownCompressions(short id) {
    assertEquals(
        "unknown compression " + Short.toUnsignedInt(id), refusal(b -> b.putShort(20, id)));
  }

  @Test
  void knowsTheSixCompressions() {
    for (Compression c : Compression.values()) {
      assertEquals(
          c,
          SquashfsImage.parse(superblock(b -> b.putShort(20, (short) c.id())), FILE_SIZE)
              .compression());
    }
    assertEquals(6, Compression.ZSTD.id());
    assertEquals(1, Compression.GZIP.id());
  }

  @Test
  void refusesUsedBytesBeyondTheFile() {
    String why = refusal(b -> b.putLong(40, FILE_SIZE + 1));
    assertTrue(why.contains("8193 bytes are used, but the file has 8192"), why);
    assertTrue(refusal(b -> b.putLong(40, -1)).contains("18446744073709551615 bytes are used"));
    assertTrue(refusal(b -> b.putLong(40, 10)).contains("10 bytes are used"));
  }

  @Test
  void refusesTablesOutsideTheUsedBytes() {
    assertTrue(refusal(b -> b.putLong(64, 0x1c8)).startsWith("inode table starts at 456"));
    assertTrue(refusal(b -> b.putLong(72, -1)).startsWith("directory table starts at"));
    assertTrue(refusal(b -> b.putLong(64, 0)).startsWith("inode table starts at 0"));
  }

  @Test
  void checksARealFileAndNamesItInEachRefusal() throws IOException {
    Path image = dir.resolve("good.sqsh");
    byte[] bytes = new byte[(int) FILE_SIZE];
    superblock(b -> {}).get(0, bytes, 0, SquashfsImage.SUPERBLOCK_BYTES);
    Files.write(image, bytes);
    assertEquals(Compression.LZ4, SquashfsImage.check(image, FILE_SIZE).compression());
    Path link = Files.createSymbolicLink(dir.resolve("link.sqsh"), image);
    assertEquals(FILE_SIZE, SquashfsImage.check(link, FILE_SIZE).fileSize());

    IOException big = assertThrows(IOException.class, () -> SquashfsImage.check(image, 4096));
    assertEquals(image + ": image is 8192 bytes, more than the limit of 4096", big.getMessage());

    Path bad = dir.resolve("bad.sqsh");
    bytes[0] = 'X';
    Files.write(bad, bytes);
    assertEquals(
        bad + ": not a squashfs image (bad magic)",
        assertThrows(IOException.class, () -> SquashfsImage.check(bad, FILE_SIZE)).getMessage());

    Path truncated = dir.resolve("truncated.sqsh");
    Files.write(truncated, new byte[] {0x68, 0x73, 0x71, 0x73});
    assertEquals(
        truncated + ": not a squashfs image (4 bytes, shorter than a superblock)",
        assertThrows(IOException.class, () -> SquashfsImage.check(truncated, FILE_SIZE))
            .getMessage());

    assertEquals(
        dir + ": not a squashfs image (not a regular file)",
        assertThrows(IOException.class, () -> SquashfsImage.check(dir, FILE_SIZE)).getMessage());
    assertThrows(
        NoSuchFileException.class,
        () -> SquashfsImage.check(dir.resolve("missing.sqsh"), FILE_SIZE));
  }
}

package dev.berth.mom.os;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.mom.os.gpu.DeviceFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The node's unpacked images kept within a limit, least recently used first, never one in use. */
class ContainerCacheTest {
  @TempDir Path tmp;

  /** An unpacked image of {@code bytes} last entered at {@code millis}. */
  private static Path entry(Path owner, char digit, int bytes, long millis) throws IOException {
    Path dir =
        Files.createDirectories(owner.resolve("sha256").resolve(String.valueOf(digit).repeat(64)));
    Files.write(dir.resolve("payload"), new byte[bytes]);
    Files.writeString(dir.resolveSibling(dir.getFileName() + ".lock"), "");
    Files.setLastModifiedTime(dir, FileTime.fromMillis(millis));
    return dir;
  }

  @Test
  void theLeastRecentlyUsedGoUntilTheCacheFits() throws IOException {
    ContainerCache cache = new ContainerCache(tmp.resolve("cache"), 2500);
    Path alice = Files.createDirectories(tmp.resolve("cache/1001"));
    Path bob = Files.createDirectories(tmp.resolve("cache/1002"));
    Path oldest = entry(alice, 'a', 1000, 1_000);
    Path older = entry(bob, 'b', 1000, 2_000);
    Path newer = entry(alice, 'c', 1000, 3_000);
    Path newest = entry(bob, 'd', 1000, 4_000);
    assertEquals(List.of(oldest, older), cache.evict());
    assertFalse(Files.exists(oldest));
    assertFalse(Files.exists(older));
    assertTrue(Files.exists(newer) && Files.exists(newest));
    assertFalse(Files.exists(oldest.resolveSibling(oldest.getFileName() + ".evicted")));
    // an entry in use (a starter's lock) stays: ContainerEntryIT, with real starters
  }

  @Test
  void withinTheLimitNothingGoes() throws IOException {
    ContainerCache cache = new ContainerCache(tmp.resolve("cache"), 10_000);
    Path alice = Files.createDirectories(tmp.resolve("cache/1001"));
    entry(alice, 'a', 1000, 1_000);
    assertEquals(List.of(), cache.evict());
    assertEquals(List.of(), new ContainerCache(tmp.resolve("none"), 0).evict(), "no cache yet");
  }

  @Test
  void anEntryWhoseLockAProcessHoldsStays() throws IOException {
    Path alice = Files.createDirectories(tmp.resolve("cache/1001"));
    Path held = entry(alice, 'a', 1000, 1_000);
    Path free = entry(alice, 'b', 1000, 2_000);
    Path lock = held.resolveSibling(held.getFileName() + ".lock");
    DeviceFiles.Numbers dev = DeviceFiles.decode((Long) Files.getAttribute(lock, "unix:dev"));
    Path locks =
        Files.writeString(
            tmp.resolve("locks"),
            String.format(
                "1: OFDLCK ADVISORY  READ  -1 %02x:%02x:%d 0 EOF%n",
                dev.major(), dev.minor(), (Long) Files.getAttribute(lock, "unix:ino")));
    assertEquals(List.of(free), new ContainerCache(tmp.resolve("cache"), 0, locks).evict());
    assertTrue(Files.exists(held));
  }

  /** The owner made the lock a FIFO, which an open would hang on: root never opens it. */
  @Test
  void aLockFileTheOwnerReplacedHangsNothing() throws Exception {
    Path alice = Files.createDirectories(tmp.resolve("cache/1001"));
    Path entry = entry(alice, 'a', 1000, 1_000);
    Path lock = entry.resolveSibling(entry.getFileName() + ".lock");
    Files.delete(lock);
    assertEquals(0, new ProcessBuilder("mkfifo", lock.toString()).start().waitFor());
    assertEquals(List.of(entry), new ContainerCache(tmp.resolve("cache"), 0).evict());
  }

  @Test
  void whatAKilledUnpackLeftGoesWhateverTheLimit() throws IOException {
    Path sha = Files.createDirectories(tmp.resolve("cache/1001/sha256"));
    Path partial = Files.createDirectories(sha.resolve("c".repeat(64) + ".partial/usr/bin"));
    assertEquals(List.of(), new ContainerCache(tmp.resolve("cache"), 1L << 40).evict());
    assertFalse(Files.exists(partial.getParent().getParent()));
  }
}

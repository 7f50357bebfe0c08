package dev.berth.mom.os;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JobFilesTest {
  @TempDir Path dir;

  @Test
  void removeTreeDeletesLinksNotWhatTheyPointTo() throws IOException {
    Path outside = Files.createDirectory(dir.resolve("outside"));
    Path precious = Files.writeString(outside.resolve("precious"), "keep me");
    Path tree = Files.createDirectories(dir.resolve("job/a/b"));
    Files.writeString(tree.resolve("f"), "x");
    Files.createSymbolicLink(dir.resolve("job/a/link-to-dir"), outside);
    Files.createSymbolicLink(dir.resolve("job/link-to-file"), precious);
    JobFiles.removeTree(dir.resolve("job"));
    assertFalse(Files.exists(dir.resolve("job")));
    assertEquals("keep me", Files.readString(precious));
  }

  @Test
  void removeTreeOfAMissingPathOrAFileIsFine() throws IOException {
    JobFiles.removeTree(dir.resolve("absent"));
    Path file = Files.writeString(dir.resolve("file"), "x");
    JobFiles.removeTree(file);
    assertFalse(Files.exists(file));
  }

  @Test
  void theBaseIsClosedToListingAndEachJobDirectoryToOthers() throws IOException {
    Path base = dir.resolve("base");
    JobFiles.prepareBase(base);
    assertEquals("rwx--x--x", PosixFilePermissions.toString(Files.getPosixFilePermissions(base)));
    UserInfo nobody = new UserInfo("nobody", 65534, 65534, "/", "/bin/sh", java.util.List.of());
    Path job = JobFiles.createUserDirectory(base.resolve("1.srv"), nobody, 65534);
    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(job)));
    assertEquals("nobody", Files.getOwner(job).getName());
    assertTrue(Files.isDirectory(job));
  }

  @Test
  void aBaseSomeoneElseMadeFirstIsRefused() throws IOException {
    Path base = Files.createDirectory(dir.resolve("claimed"));
    Files.setAttribute(base, "unix:uid", 65534);
    IOException refused = assertThrows(IOException.class, () -> JobFiles.prepareBase(base));
    assertTrue(refused.getMessage().contains("belongs to nobody"), refused.getMessage());
  }

  @Test
  void aReadableFileIsNeverWrittenThroughWhatTheUserLeftThere() throws IOException {
    Path precious = Files.writeString(dir.resolve("precious"), "keep me");
    Path link = Files.createSymbolicLink(dir.resolve("nodefile"), precious);
    assertThrows(IOException.class, () -> JobFiles.writeReadable(link, java.util.List.of("n1")));
    assertEquals("keep me", Files.readString(precious));
    Path fresh = dir.resolve("fresh");
    JobFiles.writeReadable(fresh, java.util.List.of("n1", "n2"));
    assertEquals("n1\nn2\n", Files.readString(fresh));
    assertEquals("rw-r--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(fresh)));
  }
}

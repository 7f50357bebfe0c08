package dev.berth.mom.os;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Only scripts root alone could have written run: as root, or as every job's owner. */
class HookFilesTest {
  @TempDir Path tmp;
  Path dir;

  @BeforeEach
  void directory() throws IOException {
    assumeTrue(System.getProperty("user.name").equals("root"), "ownership checks need root");
    dir = Files.createDirectory(tmp.resolve("mom_priv"));
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  private Path script(String name, String mode) throws IOException {
    Path s = Files.writeString(dir.resolve(name), "#!/bin/sh\nexit 0\n");
    Files.setPosixFilePermissions(s, PosixFilePermissions.fromString(mode));
    return s;
  }

  private static void chown(Path file, String user) throws IOException {
    UserPrincipal owner =
        file.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(user);
    Files.setOwner(file, owner);
  }

  private String refusal(String name, boolean forOwner) {
    return assertThrows(HookFiles.Refused.class, () -> HookFiles.find(dir, name, forOwner))
        .getMessage();
  }

  @Test
  void aMissingScriptIsNoError() throws Exception {
    assertEquals(Optional.empty(), HookFiles.find(dir, "prologue", false));
    assertEquals(Optional.empty(), HookFiles.find(tmp.resolve("none"), "prologue", false));
  }

  @Test
  void rootsOwnScriptRuns() throws Exception {
    Path s = script("prologue", "rwx------");
    assertEquals(Optional.of(s), HookFiles.find(dir, "prologue", false));
    Path u = script("prologue.user", "rwxr-xr-x");
    assertEquals(Optional.of(u), HookFiles.find(dir, "prologue.user", true));
  }

  @Test
  void aScriptOthersCouldHaveWrittenIsRefused() throws Exception {
    script("prologue", "rwxrwxr-x");
    assertTrue(refusal("prologue", false).endsWith("is writable by others than its owner"));
    Path e = script("epilogue", "rwxr-xr-x");
    chown(e, "nobody");
    assertTrue(refusal("epilogue", false).contains("is not owned by root (owner nobody)"));
    Files.createSymbolicLink(dir.resolve("epilogue.user"), e);
    assertTrue(refusal("epilogue.user", true).endsWith("is not a regular file"));
  }

  @Test
  void aScriptInADirectoryOthersCanWriteIsRefused() throws Exception {
    script("prologue", "rwxr-xr-x");
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
    assertTrue(refusal("prologue", false).contains("mom_priv is writable by others"));
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
    chown(dir, "nobody");
    assertTrue(refusal("prologue", false).contains("mom_priv is not owned by root"));
  }

  @Test
  void theOwnersScriptMustBeOpenToThem() throws Exception {
    script("prologue.user", "rwx------");
    assertTrue(refusal("prologue.user", true).endsWith("not readable and executable by others"));
    script("epilogue", "-wx------");
    assertTrue(refusal("epilogue", false).endsWith("not readable and executable by its owner"));
  }
}

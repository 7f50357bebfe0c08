package dev.berth.tools.pbsdsh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.client.Getopt;
import java.util.List;
import org.junit.jupiter.api.Test;

class PbsdshOptionsTest {
  private static PbsdshOptions parse(String... args) throws Getopt.UsageException {
    return PbsdshOptions.parse(List.of(args));
  }

  private static String refused(String... args) {
    return assertThrows(Getopt.UsageException.class, () -> parse(args)).getMessage();
  }

  @Test
  void theDefaultIsEveryVnodeWaitingForAll() throws Exception {
    PbsdshOptions options = parse("hostname");
    assertEquals(0, options.copies());
    assertEquals(-1, options.vnode());
    assertNull(options.host());
    assertFalse(options.noWait() || options.sequential() || options.unique() || options.verbose());
    assertEquals(List.of("hostname"), options.argv());
  }

  @Test
  void optionsStopAtTheProgram() throws Exception {
    PbsdshOptions options = parse("-v", "-s", "ls", "-l", "-c", "3", "/tmp");
    assertTrue(options.verbose());
    assertTrue(options.sequential());
    assertEquals(0, options.copies());
    assertEquals(List.of("ls", "-l", "-c", "3", "/tmp"), options.argv());
    assertEquals("ls", options.program());
  }

  @Test
  void flagsClusterAndTakeAttachedValues() throws Exception {
    PbsdshOptions options = parse("-ouv", "-c4", "echo", "hi");
    assertTrue(options.noWait() && options.unique() && options.verbose());
    assertEquals(4, options.copies());
    assertEquals(2, parse("-n", "2", "true").vnode());
    assertEquals(0, parse("-n0", "true").vnode());
    assertEquals("n2", parse("-h", "n2", "true").host());
    assertEquals(List.of("-x"), parse("--", "-x").argv());
  }

  @Test
  void copiesNodeAndHostAreMutuallyExclusive() {
    assertEquals("-c, -n and -h are mutually exclusive", refused("-c", "2", "-n", "1", "true"));
    assertEquals("-c, -n and -h are mutually exclusive", refused("-n", "1", "-h", "n1", "true"));
    assertEquals("-c, -n and -h are mutually exclusive", refused("-h", "n1", "-c", "2", "true"));
  }

  @Test
  void badNumbersMissingProgramAndUnknownFlagsAreUsageErrors() {
    assertEquals("-c takes a positive number, not '0'", refused("-c", "0", "true"));
    assertEquals("-c takes a positive number, not 'x'", refused("-c", "x", "true"));
    assertEquals("-n takes a number, not '-1'", refused("-n", "-1", "true"));
    assertEquals("no program given", refused("-v"));
    assertEquals("no program given", refused());
    assertEquals("invalid option -- 'z'", refused("-z", "true"));
    assertEquals("option requires an argument -- 'c'", refused("-c"));
  }
}

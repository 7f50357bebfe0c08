package dev.berth.mom.os;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a health check's output says, and checks that hang or leave children behind. */
class HealthCheckTest {
  @TempDir Path tmp;

  private HealthCheck check(String body, Duration timeout) throws IOException {
    Path s = Files.writeString(tmp.resolve("check"), "#!/bin/sh\n" + body + "\n");
    Files.setPosixFilePermissions(s, PosixFilePermissions.fromString("rwx------"));
    return new HealthCheck(s, timeout);
  }

  @Test
  void outputStartingWithErrorIsTheReasonAndAnythingElseIsWell() {
    assertEquals(
        "ERROR: disk full on /scratch", HealthCheck.verdict("ERROR: disk full\non /scratch\n"));
    assertEquals("error lowercase", HealthCheck.verdict("  error lowercase\n"));
    assertEquals("", HealthCheck.verdict("EVENT: something\n"));
    assertEquals("", HealthCheck.verdict(""));
    assertEquals("", HealthCheck.verdict("all fine; no ERROR here"));
  }

  @Test
  void aRealCheckSaysWhatItPrints() throws IOException {
    assertEquals(
        "ERROR gpu 3 is gone", check("echo 'ERROR gpu 3 is gone'", Duration.ofSeconds(10)).run());
    assertEquals("", check("echo ok; exit 3", Duration.ofSeconds(10)).run());
  }

  @Test
  void aCheckThatHangsIsAnErrorAndIsKilled() throws IOException {
    String verdict = check("sleep 600", Duration.ofMillis(300)).run();
    assertTrue(verdict.startsWith("ERROR: the health check "), verdict);
    assertTrue(verdict.endsWith("did not finish within 0 s"), verdict);
  }

  @Test
  void aChildLeftHoldingTheOutputDoesNotHoldTheCheck() throws IOException {
    long start = System.nanoTime();
    String verdict =
        check("(sleep 5 &) ; echo 'ERROR: left a child'", Duration.ofSeconds(20)).run();
    assertEquals("ERROR: left a child", verdict);
    assertTrue(System.nanoTime() - start < 4_000_000_000L, "it did not wait for the child");
  }
}

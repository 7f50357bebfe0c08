package dev.berth.mom.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The job record a mom of the previous release (commit f3f8a63, before formats were marked) left
 * for a running job when its server was killed: this release's mom reads it, so it finds the job
 * again after an upgrade, and marks the records as its own format.
 */
class PreviousReleaseRecordsTest {
  private static final Path FIXTURE = Path.of("src/test/resources/previous-release/jobs");

  @TempDir Path root;

  @BeforeEach
  void copy() throws IOException {
    Path job = Files.createDirectories(root.resolve("5.vm"));
    try (Stream<Path> files = Files.list(FIXTURE.resolve("5.vm"))) {
      for (Path f : files.toList()) {
        Files.copy(f, job.resolve(f.getFileName()));
      }
    }
  }

  @Test
  void theRecordOfThePreviousReleaseIsReadAndMarked() throws IOException {
    JobRecords.Scan scan = new JobRecords(root).scan();

    assertEquals(java.util.Map.of(), scan.unreadable());
    assertEquals(1, scan.records().size());
    JobRecords.Record r = scan.records().get(0);
    assertEquals("5.vm", r.jobId());
    assertEquals("sleeper", r.run().getJob().getName());
    assertEquals("berth-alice", r.run().getJob().getEuser());
    assertEquals("sleep 600\n", r.run().getScript().toStringUtf8());
    assertTrue(r.process().isPresent(), "the starter's pid and start");
    assertTrue(r.obit().isEmpty());
    assertTrue(!r.sister());
    assertEquals(JobRecords.FORMAT_VERSION + "\n", Files.readString(root.resolve("format")));
    assertTrue(Files.exists(root.resolve("5.vm.record")), "rewritten as this release's record");
    assertEquals(
        r.run(), new JobRecords(root).scan().records().get(0).run(), "and read as such again");
  }

  @Test
  void recordsOfANewerFormatAreNotReadAndTheMomSaysWhy() throws IOException {
    Files.writeString(root.resolve("format"), "4\n");
    IOException e = assertThrows(IOException.class, () -> new JobRecords(root).scan());
    assertTrue(
        e.getMessage()
            .startsWith(
                "the job records directory " + root + " is in format 4, which a newer Berth wrote"),
        e.getMessage());
    assertEquals("4\n", Files.readString(root.resolve("format")), "left as the newer mom wrote it");
  }
}

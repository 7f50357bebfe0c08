package dev.berth.mom.output;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * What is left of a job's spool after stage-out: nothing when every stream went where it should;
 * otherwise the streams that did not, in the undelivered directory, with a note that says where and
 * why. The courier here is the test's; TlsCourier's own path is SiteIT's.
 */
class StageOutTest {
  private static final String JOB = "7.srv";

  @TempDir Path base;

  private final List<String> delivered = new ArrayList<>();
  private OutputFiles.Spooled out;
  private OutputFiles.Spooled err;

  /** Delivers to login1, fails for anything else. */
  private final OutputCourier courier =
      (host, jobId, stream, file, owner, gid) -> {
        if (!host.equals("login1")) {
          throw new IOException("no route to " + host);
        }
        delivered.add(stream + ":" + Files.readString(file));
        return "/home/alice/" + file.getFileName();
      };

  @BeforeEach
  void spool() throws IOException {
    Path dir = OutputSpool.directory(base, JOB);
    OutputSpool.create(dir, null, 0);
    out = new OutputFiles.Spooled("o", "login1", dir.resolve("j.o7"));
    err = new OutputFiles.Spooled("e", "down1", dir.resolve("j.e7"));
    Files.writeString(out.file(), "out\n");
    Files.writeString(err.file(), "err\n");
  }

  private String run(List<OutputFiles.Spooled> spooled, boolean ownerKnown) {
    return StageOut.run(
        base, JOB, "n1", spooled, courier, ownerKnown, null, 0, LoggerFactory.getLogger("test"));
  }

  @Test
  void everythingDeliveredLeavesNothing() {
    assertEquals("", run(List.of(out), true));
    assertEquals(List.of("o:out\n"), delivered);
    assertFalse(Files.exists(OutputSpool.directory(base, JOB)));
    assertFalse(Files.exists(base.resolve("undelivered").resolve(JOB)));
  }

  @Test
  void whatCannotBeDeliveredIsKeptAndTheNoteSaysWhereAndWhy() throws IOException {
    String note = run(List.of(out, err), true);

    Path kept = base.resolve("undelivered").resolve(JOB);
    assertEquals("output kept on n1 in " + kept + " (stderr for down1: no route to down1)", note);
    assertEquals("err\n", Files.readString(kept.resolve("j.e7")));
    assertFalse(Files.exists(kept.resolve("j.o7")), "stdout went to login1");
    assertFalse(Files.exists(OutputSpool.directory(base, JOB)));
  }

  @Test
  void withoutTheOwnerNothingIsReadAndEverythingIsKept() {
    String note = run(List.of(out, err), false);
    assertTrue(note.endsWith("(its owner is not known on n1)"), note);
    assertEquals(List.of(), delivered);
    assertTrue(Files.exists(base.resolve("undelivered").resolve(JOB).resolve("j.o7")));
  }

  @Test
  void aLinkInPlaceOfASpoolFileIsNotFollowed() throws IOException {
    Files.delete(out.file());
    Files.createSymbolicLink(out.file(), Path.of("/etc/hostname"));
    assertEquals("", run(List.of(out), true));
    assertEquals(List.of(), delivered, "nothing of the link's target was sent");
  }

  @Test
  void aJobWithoutASpoolHasNothingToStageOut() throws IOException {
    OutputSpool.remove(base, JOB);
    assertEquals("", run(List.of(out), true));
    assertEquals(List.of(), delivered);
  }
}

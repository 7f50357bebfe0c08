package dev.berth.it;

import static dev.berth.it.TestUsers.ALICE;
import static dev.berth.it.TestUsers.BOB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.proto.Job;
import dev.berth.proto.JobState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Real users through the real commands: identity comes from the kernel, jobs run as their owners,
 * and nobody acts on (or sees) another user's job unless the server allows it.
 */
@Tag("integration")
class UsersIT {
  static TestCluster cluster;

  @BeforeAll
  static void start() throws IOException {
    TestUsers.ensure(ALICE, BOB);
    cluster = TestCluster.start();
  }

  @AfterAll
  static void stop() throws IOException {
    cluster.close();
    works.removeAll();
  }

  /** Each user's directory for this class's scripts and output, removed after it. */
  private static final WorkDirs works = new WorkDirs("berth-users-");

  private static Path work(String user) throws IOException {
    return works.of(user);
  }

  @Test
  void aJobRunsAsItsOwnerAndItsOutputBelongsToThem() throws IOException {
    Path home = TestUsers.home(ALICE);
    Path work = work(ALICE);
    Path script = work.resolve("whoami.pbs");
    write(script, "#PBS -N whoami\nid -un\necho home=$HOME user=$USER\n", ALICE);
    TestCluster.Result r = cluster.runAs(ALICE, work, "qsub", script.toString());
    assertEquals(0, r.exit(), r.toString());
    String id = r.out().trim();
    Job job = cluster.awaitState(id, JobState.COMPLETED);
    assertEquals(ALICE, job.getEuser());
    assertEquals(ALICE + "@" + cluster.node, job.getOwner());
    Path out = work.resolve("whoami.o" + job.getNumber());
    assertEquals(ALICE + "\nhome=" + home + " user=" + ALICE + "\n", Files.readString(out));
    assertEquals(ALICE, Files.getOwner(out).getName());
    var group =
        Files.getFileAttributeView(out, PosixFileAttributeView.class).readAttributes().group();
    assertEquals(ALICE, group.getName());
  }

  @Test
  void usersCannotDeleteHoldOrSeeOthersJobsButRootCan() throws IOException {
    Path work = work(ALICE);
    Path script = work.resolve("held.pbs");
    write(script, "sleep 1\n", ALICE);
    String id = cluster.runAs(ALICE, work, "qsub", "-h", script.toString()).out().trim();
    assertEquals(JobState.HELD, cluster.job(id).getState());

    TestCluster.Result del = cluster.runAs(BOB, TestUsers.home(BOB), "qdel", id);
    assertEquals(15001 % 256, del.exit(), "bob cannot even see it: " + del);
    assertTrue(del.err().contains("Unknown Job Id"), del.err());
    TestCluster.Result stat = cluster.runAs(BOB, TestUsers.home(BOB), "qstat", id);
    assertEquals(153, stat.exit(), stat.toString());

    // With query_other_jobs bob may look, but still not touch.
    assertEquals(0, cluster.cli("qmgr", "-c", "set server query_other_jobs = True").exit());
    try {
      assertEquals(0, cluster.runAs(BOB, TestUsers.home(BOB), "qstat", id).exit());
      TestCluster.Result rls = cluster.runAs(BOB, TestUsers.home(BOB), "qrls", id);
      assertEquals(15007 % 256, rls.exit(), rls.toString());
      assertTrue(rls.err().contains("may not release job " + id), rls.err());
      TestCluster.Result del2 = cluster.runAs(BOB, TestUsers.home(BOB), "qdel", id);
      assertEquals(15007 % 256, del2.exit(), del2.toString());
      assertEquals(JobState.HELD, cluster.job(id).getState(), "nothing half-done");
    } finally {
      cluster.cli("qmgr", "-c", "set server query_other_jobs = False");
    }

    assertEquals(0, cluster.runAs(ALICE, work, "qstat", id).exit(), "the owner sees it");
    assertEquals(0, cluster.cli("qdel", id).exit(), "root may delete any job");
    assertEquals(JobState.COMPLETED, cluster.job(id).getState());
  }

  @Test
  void onlyManagersChangeSettingsButAnyoneMayList() {
    TestCluster.Result set =
        cluster.runAs(BOB, TestUsers.home(BOB), "qmgr", "-c", "set server scheduling = False");
    assertEquals(15007 % 256, set.exit(), set.toString());
    assertTrue(set.err().contains("only managers"), set.err());
    TestCluster.Result list = cluster.runAs(BOB, TestUsers.home(BOB), "qmgr", "-c", "list server");
    assertEquals(0, list.exit(), list.toString());
    assertTrue(list.out().contains("scheduling = True"), list.out());

    assertEquals(0, cluster.cli("qmgr", "-c", "set server managers += " + BOB + "@*").exit());
    try {
      TestCluster.Result again =
          cluster.runAs(BOB, TestUsers.home(BOB), "qmgr", "-c", "set server keep_completed = 600");
      assertEquals(0, again.exit(), again.toString());
    } finally {
      cluster.cli("qmgr", "-c", "set server managers -= " + BOB + "@*");
      cluster.cli("qmgr", "-c", "unset server keep_completed");
    }
  }

  private static void write(Path file, String text, String owner) throws IOException {
    Files.writeString(file, text);
    var lookup = file.getFileSystem().getUserPrincipalLookupService();
    Files.setOwner(file, lookup.lookupPrincipalByName(owner));
  }
}

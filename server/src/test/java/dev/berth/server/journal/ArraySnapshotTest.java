package dev.berth.server.journal;

import static dev.berth.server.testing.Driver.BOB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.core.AttributeNames;
import dev.berth.proto.Event;
import dev.berth.proto.Job;
import dev.berth.proto.JobRestored;
import dev.berth.server.state.ClusterState;
import dev.berth.server.state.Snapshots;
import dev.berth.server.state.StateMachine;
import dev.berth.server.testing.Driver;
import dev.berth.server.testing.WorstCaseArray;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The worst-case array (10,000 subjobs sharing 225 KB of environment) in a snapshot: written as the
 * parent plus what each subjob has of its own, so that it takes about what the state takes in
 * memory, and read back, a chunk at a time, into the same state the journal's replay makes.
 */
class ArraySnapshotTest {
  @TempDir Path dir;

  /**
   * Run in a JVM of its own whose heap is the one a small server has: the array is made, its
   * snapshot written and read back there, where 10,000 whole subjobs (2.2 GB) would not fit.
   */
  @Test
  void theWorstCaseArraysSnapshotIsItsParentAndSmallDeltasAndReadsBackInTheSameHeap()
      throws Exception {
    String classpath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    Process p =
        new ProcessBuilder(
                ProcessHandle.current().info().command().orElse("java"),
                "-Xmx" + HEAP,
                "-XX:+ExitOnOutOfMemoryError",
                "-cp",
                classpath,
                ArraySnapshotTest.class.getName(),
                dir.toString())
            .redirectErrorStream(true)
            .start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(120, TimeUnit.SECONDS), output);
    System.out.print(output);
    assertEquals(0, p.exitValue(), output);
  }

  /** The heap the snapshot is written and read back in: ProtocolAbuseIT's server's. */
  private static final String HEAP = "256m";

  public static void main(String[] args) throws Exception {
    writeAndReadBack(Path.of(args[0]));
  }

  private static void writeAndReadBack(Path dir) throws Exception {
    Driver d = arrayWithSomeSubjobsOfTheirOwn();
    String array = "1[].srv";
    List<Event> image = Snapshots.image(d.state);
    long bytes = image.stream().mapToLong(Event::getSerializedSize).sum();
    long parent = d.state.job(array).orElseThrow().getSerializedSize();
    long perSubjob = (bytes - parent) / WorstCaseArray.SUBJOBS;
    System.out.printf(
        Locale.ROOT,
        "worst-case array snapshot: %d bytes (parent %d, %d per subjob); whole subjobs would be"
            + " %d bytes; heap %d MiB%n",
        bytes,
        parent,
        perSubjob,
        (long) WorstCaseArray.SUBJOBS * parent,
        Runtime.getRuntime().maxMemory() >> 20);
    assertTrue(perSubjob < 100, perSubjob + " bytes per subjob");

    try (RocksJournal j = RocksJournal.open(dir)) {
      j.append(d.journal).get(60, TimeUnit.SECONDS);
      j.saveSnapshot(new Journal.Snapshot(d.state.lastSeq(), image));
    }
    try (RocksJournal j = RocksJournal.open(dir)) {
      Journal.Snapshot snapshot = j.latestSnapshot().orElseThrow();
      ClusterState restored =
          StateMachine.restore(ClusterState.EMPTY, snapshot.image(), snapshot.seq());
      assertEquals(replay(j), restored, "snapshot and replay agree");
      assertEquals(d.state, restored, "and the live state");
      assertSharesItsParentsEnvironment(restored, array);
    }
  }

  /**
   * Snapshots of earlier releases hold each subjob whole: they load a subjob at a time, and the
   * subjobs share their parent's environment once loaded, as if the submission had made them.
   */
  @Test
  void aSnapshotWithWholeSubjobsLoadsIntoTheCompactState() throws Exception {
    Driver d = Driver.withTwoNodes();
    String array =
        d.submit(BOB, WorstCaseArray.attributes(50).toArray(new dev.berth.proto.Attribute[0]));
    List<Event> whole = new ArrayList<>();
    for (Event e : Snapshots.image(d.state)) {
      if (e.hasSubjobRestored()) {
        String id = "1[" + e.getSubjobRestored().getArrayIndex() + "].srv";
        Job subjob = Job.parseFrom(d.state.job(id).orElseThrow().toByteString()); // no sharing
        e = Event.newBuilder().setJobRestored(JobRestored.newBuilder().setJob(subjob)).build();
      }
      whole.add(e);
    }
    ClusterState restored = StateMachine.restore(ClusterState.EMPTY, whole, d.state.lastSeq());
    assertEquals(d.state, restored);
    assertSharesItsParentsEnvironment(restored, array);
  }

  private static Driver arrayWithSomeSubjobsOfTheirOwn() {
    Driver d = Driver.withTwoNodes();
    String array = WorstCaseArray.submit(d, BOB);
    d.qhold(BOB, "1[7].srv", "u");
    d.qalter(BOB, "1[8].srv", Driver.attr(AttributeNames.JOB_NAME, "renamed"));
    for (String started : d.schedule()) {
      d.started(started);
    }
    d.advance(60);
    d.obit("1[0].srv", 0);
    assertEquals(array, "1[].srv");
    return d;
  }

  private static ClusterState replay(Journal j) {
    ClusterState[] s = {ClusterState.EMPTY};
    j.replay(0, e -> s[0] = StateMachine.apply(s[0], e));
    return s[0];
  }

  private static void assertSharesItsParentsEnvironment(ClusterState s, String array) {
    Job parent = s.job(array).orElseThrow();
    for (Job j : s.jobs()) {
      if (j.getArrayParent().equals(array)) {
        assertSame(parent.getVariablesList(), j.getVariablesList(), j.getId());
      }
    }
  }
}

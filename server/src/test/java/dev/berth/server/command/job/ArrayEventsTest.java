package dev.berth.server.command.job;

import static dev.berth.server.testing.Driver.BOB;
import static dev.berth.server.testing.Driver.ROOT;
import static dev.berth.server.testing.Driver.attr;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.core.AttributeNames;
import dev.berth.proto.Event;
import dev.berth.proto.Job;
import dev.berth.proto.JobAltered;
import dev.berth.proto.Manage;
import dev.berth.proto.MoveJob;
import dev.berth.proto.NodeHello;
import dev.berth.proto.Request;
import dev.berth.proto.ServerInbound;
import dev.berth.proto.UnaccountedJob;
import dev.berth.server.state.ClusterState;
import dev.berth.server.state.StateMachine;
import dev.berth.server.testing.Driver;
import dev.berth.server.testing.WorstCaseArray;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What changes an array's subjobs writes each subjob's change only, never the subjob whole (and
 * with it the array's environment): a qmove of the worst-case array, a qalter, a hold, a node's
 * note. The journal stays about as small as the state, and its replay makes subjobs that share
 * their parent's environment again.
 */
class ArrayEventsTest {
  private Driver d;
  private String array;

  @BeforeEach
  void worstCaseArray() {
    d = Driver.withTwoNodes();
    d.qmgr(ROOT, Manage.Command.CREATE, Manage.ObjectType.QUEUE, List.of("long"));
    d.qmgr(
        ROOT,
        Manage.Command.SET,
        Manage.ObjectType.QUEUE,
        List.of("long"),
        attr("queue_type", "execution"),
        attr("enabled", "True"),
        attr("started", "True"));
    array = WorstCaseArray.submit(d, BOB);
  }

  @Test
  void aQmoveOfTheWorstCaseArrayWritesTheParentOnceAndSmallEventsForItsSubjobs() {
    int from = d.journal.size();
    d.client(
        BOB,
        Request.newBuilder().setMove(MoveJob.newBuilder().setJobId(array).setDestination("long")));
    List<Event> written = d.eventsSince(from);
    long parent = d.job(array).getSerializedSize();
    long total = written.stream().mapToLong(Event::getSerializedSize).sum();
    long largestSubjobEvent =
        written.stream()
            .filter(Event::hasSubjobAltered)
            .mapToLong(Event::getSerializedSize)
            .max()
            .orElseThrow();
    System.out.printf(
        Locale.ROOT,
        "qmove of the worst-case array: %d events, %d bytes (parent %d, largest subjob event %d);"
            + " whole subjobs would take %d bytes%n",
        written.size(),
        total,
        parent,
        largestSubjobEvent,
        parent * (WorstCaseArray.SUBJOBS + 1));
    assertEquals(WorstCaseArray.SUBJOBS + 1, written.size());
    assertEquals(WorstCaseArray.SUBJOBS, written.stream().filter(Event::hasSubjobAltered).count());
    assertTrue(largestSubjobEvent < 100, largestSubjobEvent + " bytes");
    assertEquals(List.of("queue"), written.get(1).getSubjobAltered().getChangedList());
    assertTrue(d.state.jobs().stream().allMatch(j -> j.getQueue().equals("long")));
    assertReplayMakesTheSameCompactState();
  }

  @Test
  void aQalterAHoldAndANodesNoteOfASubjobWriteWhatChanged() {
    int from = d.journal.size();
    d.qalter(BOB, "1[3].srv", attr(AttributeNames.JOB_NAME, "third"));
    d.qhold(BOB, array, "u");
    d.qrls(BOB, array, "u");
    List<Event> written = d.eventsSince(from);
    assertEquals(1 + 2 * WorstCaseArray.SUBJOBS, written.size());
    for (Event e : written) {
      assertTrue(e.getSerializedSize() < 100, e.getBodyCase() + ": " + e.getSerializedSize());
    }
    assertEquals("third", d.job("1[3].srv").getName());
    List<String> onN1 =
        d.schedule().stream().filter(id -> d.motherSuperior(id).equals("n1")).toList();
    onN1.forEach(d::started);
    from = d.journal.size();
    // its mom cannot read its record of one: the job keeps running, with the mom's word on it
    d.fromNode(
        "n1",
        ServerInbound.newBuilder()
            .setHello(
                NodeHello.newBuilder()
                    .setNode(Driver.node("n1", 4))
                    .addAllRunningJobs(onN1.subList(1, onN1.size()))
                    .addUnaccountedJobs(
                        UnaccountedJob.newBuilder().setJobId(onN1.get(0)).setReason("EIO"))));
    List<Event> note = d.eventsSince(from);
    assertEquals(
        List.of(Event.BodyCase.SUBJOB_ALTERED), note.stream().map(Event::getBodyCase).toList());
    assertTrue(note.get(0).getSerializedSize() < 1000, note.toString());
    assertTrue(d.job(onN1.get(0)).getComment().contains("(EIO)"));
    assertReplayMakesTheSameCompactState();
  }

  /**
   * Journals of earlier releases hold each altered subjob whole (454 MB for a qmove of 2,000 such
   * subjobs): replayed, the subjobs share their parent's environment all the same.
   */
  @Test
  void wholeSubjobsInAnEarlierJournalReplayIntoTheCompactState() throws Exception {
    ClusterState s = d.state;
    for (int i = 0; i < 100; i++) {
      Job whole = Job.parseFrom(s.job("1[" + i + "].srv").orElseThrow().toByteString());
      Job renamed = whole.toBuilder().setName("n" + i).build(); // parsed: its own copies
      s =
          StateMachine.apply(
              s,
              Event.newBuilder()
                  .setSeq(s.lastSeq() + 1)
                  .setTime(d.nowMillis)
                  .setJobAltered(JobAltered.newBuilder().setJob(renamed).addChanged("Job_Name"))
                  .build());
      assertEquals("n" + i, s.job(renamed.getId()).orElseThrow().getName());
    }
    assertSharesItsParentsEnvironment(s);
  }

  private void assertReplayMakesTheSameCompactState() {
    ClusterState replayed = ClusterState.EMPTY;
    for (Event e : d.journal) {
      replayed = StateMachine.apply(replayed, e);
    }
    assertEquals(d.state, replayed);
    assertSharesItsParentsEnvironment(replayed);
  }

  private void assertSharesItsParentsEnvironment(ClusterState s) {
    Job parent = s.job(array).orElseThrow();
    for (Job j : s.jobs()) {
      if (j.getArrayParent().equals(array)) {
        assertSame(parent.getVariablesList(), j.getVariablesList(), j.getId());
      }
    }
  }
}

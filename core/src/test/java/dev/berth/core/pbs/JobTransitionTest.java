package dev.berth.core.pbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.proto.Event;
import dev.berth.proto.JobState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The job state machine's table against the Transitions table of docs/job-states.md. */
class JobTransitionTest {
  private static final Path DOC = Path.of("../docs/job-states.md");
  private static final Map<String, JobState> LETTERS =
      Map.of(
          "Q", JobState.QUEUED,
          "H", JobState.HELD,
          "W", JobState.WAITING,
          "R", JobState.RUNNING,
          "E", JobState.EXITING,
          "C", JobState.COMPLETED);

  /** An event's rows merged: the states it may find a job in, and what it leaves from each. */
  private record Row(Set<JobState> from, Map<JobState, Set<JobState>> to) {}

  @Test
  void theDocumentShowsEachTransitionAsTheCodeHasIt() throws IOException {
    Map<String, Row> rows = documented();
    assertEquals(
        Arrays.stream(JobTransition.values()).map(JobTransition::event).toList(),
        List.copyOf(rows.keySet()),
        "the events of " + DOC + ", in order");
    for (JobTransition t : JobTransition.values()) {
      Row row = rows.get(t.event());
      assertEquals(t.from(), row.from(), t.event() + ": the states it may find a job in");
      for (JobState before : t.from()) {
        assertEquals(
            t.to(before), row.to().get(before), t.event() + ": what it leaves of " + before);
      }
    }
  }

  @Test
  void everyEventOfAJobHasItsTransition() {
    Set<String> events =
        Arrays.stream(Event.BodyCase.values())
            .map(Enum::name)
            .filter(n -> n.startsWith("JOB_") || n.startsWith("SUBJOB_"))
            .collect(Collectors.toCollection(TreeSet::new));
    Set<String> table =
        Arrays.stream(JobTransition.values())
            .map(Enum::name)
            .collect(Collectors.toCollection(TreeSet::new));
    assertEquals(events, table);
  }

  @Test
  void everyStateIsReachedAndEveryStateButCompletedCanBeLeft() {
    Set<JobState> reached = EnumSet.noneOf(JobState.class);
    Set<JobState> left = EnumSet.noneOf(JobState.class);
    for (JobTransition t : JobTransition.values()) {
      if (t == JobTransition.JOB_RESTORED || t == JobTransition.SUBJOB_RESTORED) {
        continue; // a snapshot's image says nothing about how its job got there
      }
      for (JobState before : t.from()) {
        t.to(before).stream().filter(after -> after != before).forEach(reached::add);
        if (!t.to(before).contains(before)) {
          left.add(before);
        }
      }
      if (t.from().isEmpty()) {
        reached.addAll(t.to(JobState.JOB_STATE_UNSPECIFIED));
      }
    }
    assertEquals(
        EnumSet.complementOf(
            EnumSet.of(JobState.JOB_STATE_UNSPECIFIED, JobState.UNRECOGNIZED, JobState.EXITING)),
        reached,
        "EXITING is reserved for stage-out, which Berth does not do");
    assertTrue(
        left.containsAll(
            EnumSet.of(
                JobState.QUEUED,
                JobState.HELD,
                JobState.WAITING,
                JobState.RUNNING,
                JobState.COMPLETED)),
        left.toString());
  }

  /**
   * The Transitions table: Event | From | To | Notes. From and To hold state letters ({@code (S)}
   * marks a suspended RUNNING job and is not a state), {@code —} for none, {@code any}, {@code
   * same} (To: the state it was found in) or {@code as EVENT} (From: that event's).
   */
  private static Map<String, Row> documented() throws IOException {
    List<String> lines = Files.readAllLines(DOC);
    int at = lines.indexOf("## Transitions");
    assertTrue(at >= 0, DOC + " has no Transitions section");
    Map<String, Row> rows = new LinkedHashMap<>();
    for (String line : lines.subList(at + 1, lines.size())) {
      if (line.startsWith("## ")) {
        break;
      }
      String[] cells = line.split("\\|", -1);
      if (cells.length < 5 || !cells[1].strip().matches("(Job|Subjob)[A-Za-z]+")) {
        continue;
      }
      String event = cells[1].strip();
      String fromCell = cells[2].strip();
      Set<JobState> from;
      if (fromCell.startsWith("as ")) {
        Row like = rows.get(fromCell.substring(3).strip());
        assertNotNull(like, event + " is documented as an event not above it");
        from = like.from();
      } else {
        from = states(fromCell);
      }
      Row row =
          rows.computeIfAbsent(
              event, e -> new Row(EnumSet.noneOf(JobState.class), new LinkedHashMap<>()));
      row.from().addAll(from);
      String toCell = cells[3].strip();
      for (JobState before : from) {
        row.to().put(before, toCell.equals("same") ? Set.of(before) : states(toCell));
      }
    }
    return rows;
  }

  private static Set<JobState> states(String cell) {
    if (cell.equals("any")) {
      return Set.copyOf(LETTERS.values());
    }
    Set<JobState> states = EnumSet.noneOf(JobState.class);
    for (String word : cell.replaceAll("\\([^)]*\\)", " ").split("[ ,]+|\\bor\\b")) {
      if (!word.isBlank() && !word.equals("—") && !word.equals("or")) {
        JobState s = LETTERS.get(word.strip());
        assertNotNull(s, "'" + word + "' in '" + cell + "' is no state letter");
        states.add(s);
      }
    }
    return states;
  }
}

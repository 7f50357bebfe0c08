package dev.berth.mom.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import org.junit.jupiter.api.Test;

/** The phase tables of the mom's jobs against docs/mom-job-states.md, and their shape. */
class MomJobPhaseTest {
  private static final Path DOC = Path.of("../docs/mom-job-states.md");

  /** The rows of the table under {@code heading}: each phase, in order, and its Next column. */
  private static Map<String, Set<String>> documented(String heading) throws IOException {
    List<String> lines = Files.readAllLines(DOC);
    int at = lines.indexOf(heading);
    assertTrue(at >= 0, DOC + " has no " + heading);
    Map<String, Set<String>> rows = new LinkedHashMap<>();
    for (String line : lines.subList(at + 1, lines.size())) {
      if (line.startsWith("## ")) {
        break;
      }
      String[] cells = line.split("\\|", -1);
      if (cells.length != 5 || !cells[1].strip().matches("[A-Z_]+")) {
        continue;
      }
      Set<String> next = new TreeSet<>();
      Arrays.stream(cells[3].split(","))
          .map(String::strip)
          .filter(s -> !s.isEmpty())
          .forEach(next::add);
      assertTrue(rows.put(cells[1].strip(), next) == null, cells[1] + " has two rows");
    }
    return rows;
  }

  private static <P extends Enum<P>> void matches(PhaseTable<P> table, String heading)
      throws IOException {
    Map<String, Set<String>> rows = documented(heading);
    P[] phases = table.type().getEnumConstants();
    assertEquals(
        Arrays.stream(phases).map(Enum::name).toList(),
        List.copyOf(rows.keySet()),
        heading + ": the phases, in order");
    for (P phase : phases) {
      Set<String> next = new TreeSet<>();
      table.next(phase).forEach(p -> next.add(p.name()));
      assertEquals(next, rows.get(phase.name()), heading + ": what may follow " + phase);
    }
  }

  @Test
  void theDocumentShowsEveryPhaseInOrderWithTheStepsTheCodeAllows() throws IOException {
    matches(MomJobPhase.TABLE, "## On the mother superior");
    matches(SisterJobPhase.TABLE, "## On a sister");
  }

  /** Every phase can be reached from a first one, every phase can reach the end, only GONE ends. */
  private static <P extends Enum<P>> void wellFormed(PhaseTable<P> table, P gone) {
    Set<P> all = EnumSet.allOf(table.type());
    Set<P> reached = table.first();
    for (int before = -1; reached.size() != before; ) {
      before = reached.size();
      for (P p : EnumSet.copyOf(reached)) {
        reached.addAll(table.next(p));
      }
    }
    assertEquals(all, reached, "reached from " + table.first());
    for (P phase : all) {
      Set<P> ahead = EnumSet.of(phase);
      for (int before = -1; ahead.size() != before; ) {
        before = ahead.size();
        for (P p : EnumSet.copyOf(ahead)) {
          ahead.addAll(table.next(p));
        }
      }
      assertTrue(ahead.contains(gone), phase + " never reaches " + gone);
      assertEquals(phase == gone, table.next(phase).isEmpty(), phase + " ends");
    }
  }

  @Test
  void everyPhaseIsReachedAndEveryJobCanEnd() {
    wellFormed(MomJobPhase.TABLE, MomJobPhase.GONE);
    wellFormed(SisterJobPhase.TABLE, SisterJobPhase.GONE);
  }

  @Test
  void aTableAllowsOnlyItsSteps() {
    PhaseTable<SisterJobPhase> t = SisterJobPhase.TABLE;
    assertTrue(t.allows(null, SisterJobPhase.PREPARING));
    assertTrue(!t.allows(null, SisterJobPhase.JOINED));
    assertTrue(t.allows(SisterJobPhase.JOINED, SisterJobPhase.ENDING_TASKS));
    assertTrue(!t.allows(SisterJobPhase.JOINED, SisterJobPhase.GONE));
  }
}

package dev.berth.core.pbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The special exit statuses against the Exit status table of docs/job-states.md. */
class ExitStatusTest {
  private static final Path DOC = Path.of("../docs/job-states.md");

  @Test
  void theDocumentListsEachSpecialStatusWithTorquesName() throws IOException {
    Map<Integer, String> rows = documented();
    assertEquals(
        Arrays.stream(ExitStatus.values()).map(ExitStatus::code).toList(),
        List.copyOf(rows.keySet()),
        "the negative exit statuses of " + DOC + ", in order");
    for (ExitStatus s : ExitStatus.values()) {
      assertTrue(
          rows.get(s.code()).contains("(" + s.torqueName() + ")")
              || rows.get(s.code()).contains("Torque's " + s.torqueName()),
          s + ": the row names " + s.torqueName());
    }
  }

  @Test
  void aCodeIsFoundAgainAndAScriptsOwnStatusIsNoSpecialOne() {
    for (ExitStatus s : ExitStatus.values()) {
      assertEquals(s, ExitStatus.of(s.code()).orElseThrow());
    }
    assertTrue(ExitStatus.of(0).isEmpty());
    assertTrue(ExitStatus.of(-3).isEmpty());
    assertEquals(271, ExitStatus.killedBy(15));
  }

  /** The rows of the Exit status table whose first cell is a negative number. */
  private static Map<Integer, String> documented() throws IOException {
    List<String> lines = Files.readAllLines(DOC);
    int at = lines.indexOf("## Exit status");
    assertTrue(at >= 0, DOC + " has no Exit status section");
    Map<Integer, String> rows = new LinkedHashMap<>();
    for (String line : lines.subList(at + 1, lines.size())) {
      if (line.startsWith("## ")) {
        break;
      }
      String[] cells = line.split("\\|", -1);
      if (cells.length > 3 && cells[1].strip().matches("-[0-9]+")) {
        rows.put(Integer.parseInt(cells[1].strip()), cells[2]);
      }
    }
    return rows;
  }
}

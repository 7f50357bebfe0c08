package dev.berth.core.pbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The attribute tables against docs/qmgr.md (server, queue, node) and docs/qsub.md (job). */
class AttributeTableTest {
  private static final Path QMGR = Path.of("../docs/qmgr.md");
  private static final Path QSUB = Path.of("../docs/qsub.md");
  private static final Map<SetBy, String> SET_BY =
      Map.of(
          SetBy.NOBODY, "nobody",
          SetBy.MANAGER, "managers",
          SetBy.OPERATOR, "operators",
          SetBy.ROOT_ON_SERVER, "root on a server host",
          SetBy.OWNER, "the owner",
          SetBy.SUBMITTER, "the owner, at qsub only");
  private static final Map<AttributeDef.Unit, String> UNITS =
      Map.of(
          AttributeDef.Unit.NONE, "—",
          AttributeDef.Unit.SECONDS, "seconds",
          AttributeDef.Unit.BYTES, "bytes",
          AttributeDef.Unit.EPOCH_SECONDS, "epoch seconds");
  private static final Map<Spelling, String> NAMES =
      Map.of(Spelling.TORQUE, "Torque", Spelling.OPENPBS, "OpenPBS", Spelling.BERTH, "Berth");

  @Test
  void theServersAttributesAreAsDocumented() throws IOException {
    assertEquals(rows(AttributeTable.SERVER), documented(QMGR, "## Attributes", "### Server"));
  }

  @Test
  void aQueuesAttributesAreAsDocumented() throws IOException {
    assertEquals(rows(AttributeTable.QUEUE), documented(QMGR, "## Attributes", "### Queue"));
  }

  @Test
  void aNodesAttributesAreAsDocumented() throws IOException {
    assertEquals(rows(AttributeTable.NODE), documented(QMGR, "## Attributes", "### Node"));
  }

  @Test
  void aJobsAttributesAreAsDocumented() throws IOException {
    assertEquals(
        rows(AttributeTable.JOB), documented(QSUB, "## Job attributes", "## Job attributes"));
  }

  @Test
  void whatNobodySetsOfAJobIsAsDocumented() throws IOException {
    assertEquals(
        rows(AttributeTable.JOB_STATUS),
        documented(QSUB, "## Job attributes", "### What nobody sets"));
  }

  @Test
  void nobodySetsAJobsStatusAndNoNameIsBothSetAndKept() {
    for (AttributeDef d : AttributeTable.JOB_STATUS.definitions()) {
      assertTrue(d.readOnly(), d.name());
      assertTrue(AttributeTable.JOB.find(d.name()).isEmpty(), d.name() + " is in JOB too");
    }
  }

  @Test
  void aSettableMeasureNamesItsUnitAndOnlyTheServerKeepsReadOnlyOnes() {
    for (AttributeTable table : AttributeTable.values()) {
      for (AttributeDef d : table.definitions()) {
        if (d.type() == ValueType.DURATION) {
          assertEquals(AttributeDef.Unit.SECONDS, d.unit(), d.name());
        }
        if (d.type() == ValueType.SIZE) {
          assertEquals(AttributeDef.Unit.BYTES, d.unit(), d.name());
        }
        if (d.readOnly()) {
          assertEquals(null, d.defaultValue(), d.name() + ": nobody sets it, so no default");
        }
      }
    }
  }

  @Test
  void lookupIgnoresCaseOnlyWhenAskedTo() {
    assertTrue(AttributeTable.QUEUE.find("priority").isEmpty());
    assertEquals("Priority", AttributeTable.QUEUE.findIgnoringCase("priority").get().name());
    assertEquals("True", AttributeTable.SERVER.defaults().get("scheduling"));
    assertTrue(AttributeTable.SERVER.find("nosuch").isEmpty());
  }

  /** Each attribute as the document's columns show it, but the effect. */
  private static List<String> rows(AttributeTable table) {
    List<String> rows = new ArrayList<>();
    for (AttributeDef d : table.definitions()) {
      rows.add(
          String.join(
              " | ",
              "`" + d.name() + "`",
              d.type().name().toLowerCase(Locale.ROOT),
              d.defaultValue() == null ? "—" : d.defaultValue(),
              UNITS.get(d.unit()),
              SET_BY.get(d.setBy()),
              NAMES.get(d.spelling())));
    }
    return rows;
  }

  /** The first six columns of each row of the table under {@code heading} in {@code section}. */
  private static List<String> documented(Path doc, String section, String heading)
      throws IOException {
    List<String> lines = Files.readAllLines(doc);
    int at = lines.subList(lines.indexOf(section), lines.size()).indexOf(heading);
    assertTrue(lines.indexOf(section) >= 0 && at >= 0, doc + " has no " + heading + " table");
    at += lines.indexOf(section);
    List<String> rows = new ArrayList<>();
    for (String line : lines.subList(at + 1, lines.size())) {
      if (line.startsWith("#")) {
        break;
      }
      if (!line.startsWith("| `")) {
        continue;
      }
      String[] cells = line.split(" \\| ", -1);
      rows.add(String.join(" | ", List.of(cells).subList(0, 6)).substring(2));
    }
    return rows;
  }
}

package dev.berth.tools.qstat;

import static dev.berth.tools.testing.TerminalSafety.assertSafe;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.proto.Job;
import dev.berth.tools.format.AttrText;
import dev.berth.tools.testing.FakeCli;
import dev.berth.tools.testing.TerminalSafety;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every qstat view of a job whose free-text fields hold control characters (older jobs, values set
 * by moms or the server, a server that did not check) shows them escaped: nothing reaches the
 * terminal as an escape and no value forges a line.
 */
class HostileValuesTest {
  private final Job job = TerminalSafety.hostileJob().build();
  private final long now = FakeCli.NOW;

  @Test
  void defaultListing() {
    String row = JobTable.row(job);
    assertSafe(row);
    assertEquals(1, row.split("\n").length, row);
  }

  @Test
  void alternateListingWithNodesAndComment() {
    String rows =
        AltJobTable.header(
                "srv\u001b[31m",
                "comment\n",
                new AltJobTable.Style(true, false, true, false, SizeUnit.AS_GIVEN))
            + AltJobTable.row(
                job,
                new AltJobTable.Style(true, false, true, false, SizeUnit.AS_GIVEN),
                now,
                ZoneOffset.UTC);
    assertSafe(rows);
    assertTrue(rows.contains("   done\\x1b]0;owned\\x07\n"), rows);
  }

  @Test
  void fullListingShowsEveryValueEscapedOnItsOwnLine() {
    String full = JobDocuments.full(List.of(job), now, ZoneOffset.UTC, AttrText.LINESIZE);
    assertSafe(full);
    assertTrue(full.contains("    Job_Name = evil\\x1b[2J\\nJob_Owner = root@head\n"), full);
    assertTrue(full.contains("    Account_Name = acct\\r\\x00\n"), full);
    assertTrue(full.contains("X=a\\n    Job_Owner = root@head\\x9b"), full);
    assertTrue(full.contains("    exit_reason = walltime\\u202e\n"), full);
    String oneLine = JobDocuments.full(List.of(job), now, ZoneOffset.UTC, AttrText.NO_FOLD);
    assertSafe(oneLine);
  }

  @Test
  void xmlIsOneLineOfXml10Characters() {
    String xml = JobDocuments.xml(List.of(job), now);
    assertSafe(xml);
    assertEquals(2, xml.split("\n").length, "declaration and one document line: " + xml);
    assertTrue(xml.contains("<Job_Name>evil\\x1b[2J\\nJob_Owner = root@head</Job_Name>"), xml);
  }

  @Test
  void jsonEscapesThemAsJsonDoes() {
    String json = JobDocuments.json(List.of(job), "srv", "Berth-0.1.0", now, ZoneOffset.UTC);
    assertSafe(json);
    assertTrue(json.contains("\"Job_Name\":\"evil\\u001b[2J\\nJob_Owner = root@head\""), json);
    assertTrue(json.contains("\"X\":\"a\\n    Job_Owner = root@head\\u009b\""), json);
    assertTrue(json.contains("\"exit_reason\":\"walltime\\u202e\""), json);
  }
}

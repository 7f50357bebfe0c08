package dev.berth.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

/**
 * Berth's commands, pbsdsh and pbs_tmrsh where job scripts find them: a job script runs in a login
 * shell, whose profile sets PATH afresh, so they must be in a standard directory, as a package
 * would put them. ops/test and ops/quickstart run ops/link-commands; when the tests run on their
 * own it is run here.
 */
final class JobTools {
  private JobTools() {}

  static void ensureOnPath() {
    TestCluster.Result linked =
        TestCluster.exec(
            TestCluster.ROOT, List.of(TestCluster.ROOT.resolve("ops/link-commands").toString()));
    assertEquals(0, linked.exit(), linked.toString());
  }
}

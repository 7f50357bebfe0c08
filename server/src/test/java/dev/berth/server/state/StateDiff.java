package dev.berth.server.state;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;

/** Says where two states differ, so a failed equality points at the job or index at fault. */
final class StateDiff {
  private StateDiff() {}

  static void assertSame(ClusterState expected, ClusterState actual, String context) {
    if (expected.equals(actual)) {
      return;
    }
    fail(context + ": states differ: " + describe(expected, actual));
  }

  static String describe(ClusterState a, ClusterState b) {
    List<String> out = new ArrayList<>();
    if (a.lastSeq != b.lastSeq) {
      out.add("lastSeq " + a.lastSeq + " vs " + b.lastSeq);
    }
    if (a.nextJobNumber != b.nextJobNumber) {
      out.add("nextJobNumber " + a.nextJobNumber + " vs " + b.nextJobNumber);
    }
    map(out, "job", a.jobs, b.jobs);
    map(out, "script", a.scripts, b.scripts);
    map(out, "node", a.nodes, b.nodes);
    map(out, "queue", a.queues, b.queues);
    map(out, "server", a.server, b.server);
    map(out, "usage", a.usage, b.usage);
    map(out, "array counts", a.arrays, b.arrays);
    map(out, "submission id", a.submissions, b.submissions);
    map(out, "holding job", a.holding, b.holding);
    map(out, "user usage", a.userUsage, b.userUsage);
    map(out, "account usage", a.accountUsage, b.accountUsage);
    map(out, "reservation", a.reservations, b.reservations);
    if (!a.unfinishedByOwner.equals(b.unfinishedByOwner)) {
      out.add("unfinished " + a.unfinishedByOwner + " vs " + b.unfinishedByOwner);
    }
    if (!a.jobBytes.equals(b.jobBytes)) {
      out.add("job bytes " + a.jobBytes + " vs " + b.jobBytes);
    }
    if (!a.eligible.equals(b.eligible)) {
      out.add("eligible " + a.eligible + " vs " + b.eligible);
    }
    if (!a.completed.equals(b.completed)) {
      out.add("completed " + a.completed + " vs " + b.completed);
    }
    return String.join("\n", out);
  }

  private static <V> void map(List<String> out, String what, Map<String, V> a, Map<String, V> b) {
    TreeSet<String> keys = new TreeSet<>(a.keySet());
    keys.addAll(b.keySet());
    for (String k : keys) {
      if (!Objects.equals(a.get(k), b.get(k))) {
        out.add(what + " " + k + ":\n  expected " + a.get(k) + "\n  actual   " + b.get(k));
      }
    }
  }
}

package dev.berth.tools.sinfo;

import dev.berth.core.slurm.HostList;
import dev.berth.tools.slurm.SlurmFormat;
import dev.berth.tools.slurm.SlurmFormat.Field;
import dev.berth.tools.slurm.SlurmNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * sinfo's {@code -o} formats: a line per partition, or per partition and node state when the format
 * shows a state ({@code %t}, {@code %T}), as Slurm's sinfo merges the lines whose shown fields
 * agree. Its fields: {@code %P} the partition ({@code *} for the default), {@code %R} its name,
 * {@code %a} available, {@code %l} the time limit, {@code %D} the nodes, {@code %t}/{@code %T}
 * their state, {@code %N} their host list, {@code %C} CPUs and {@code %F} nodes as
 * allocated/idle/other/ total; any other letter is refused by name.
 */
final class SinfoFormat {
  /** A line: a partition and (all, or those in one state of) its nodes. */
  record Line(
      String partition, boolean isDefault, String avail, String limit, List<SlurmNode> nodes) {
    private String state(boolean longForm) {
      if (nodes.isEmpty()) {
        return "n/a";
      }
      SlurmNode first = nodes.get(0);
      return longForm ? first.longState() : first.state();
    }

    private static boolean other(SlurmNode n) {
      return n.state().startsWith("d");
    }

    private String cpus() {
      long total = nodes.stream().mapToLong(SlurmNode::cpus).sum();
      long other = nodes.stream().filter(Line::other).mapToLong(SlurmNode::cpus).sum();
      long allocated = nodes.stream().filter(n -> !other(n)).mapToLong(SlurmNode::used).sum();
      return allocated + "/" + (total - other - allocated) + "/" + other + "/" + total;
    }

    private String nodeCounts() {
      long other = nodes.stream().filter(Line::other).count();
      long allocated = nodes.stream().filter(n -> n.used() > 0 && !other(n)).count();
      return allocated
          + "/"
          + (nodes.size() - allocated - other)
          + "/"
          + other
          + "/"
          + nodes.size();
    }
  }

  private static final Map<Character, Field<Line>> FIELDS =
      Map.of(
          'P',
          new Field<>("PARTITION", l -> l.partition() + (l.isDefault() ? "*" : "")),
          'R',
          new Field<>("PARTITION", Line::partition),
          'a',
          new Field<>("AVAIL", Line::avail),
          'l',
          new Field<>("TIMELIMIT", Line::limit),
          'D',
          new Field<>("NODES", l -> Integer.toString(l.nodes().size())),
          't',
          new Field<>("STATE", l -> l.state(false)),
          'T',
          new Field<>("STATE", l -> l.state(true)),
          'N',
          new Field<>(
              "NODELIST", l -> HostList.compress(l.nodes().stream().map(SlurmNode::name).toList())),
          'C',
          new Field<>("CPUS(A/I/O/T)", Line::cpus),
          'F',
          new Field<>("NODES(A/I/O/T)", Line::nodeCounts));

  private SinfoFormat() {}

  /**
   * @throws IllegalArgumentException naming a field Berth's sinfo does not show
   */
  static SlurmFormat<Line> parse(String format) {
    return SlurmFormat.parse(format, FIELDS, "sinfo");
  }

  /** Whether the format splits a partition's nodes by state. */
  static boolean byState(String format) {
    return format.matches("(?s).*%[.0-9]*[tT].*");
  }

  /** A partition's lines: one, or one per state of its nodes (in the order they come). */
  static List<Line> lines(
      String partition,
      boolean isDefault,
      String avail,
      String limit,
      List<SlurmNode> nodes,
      boolean byState) {
    if (!byState || nodes.isEmpty()) {
      return List.of(new Line(partition, isDefault, avail, limit, nodes));
    }
    Map<String, List<SlurmNode>> states = new LinkedHashMap<>();
    for (SlurmNode n : nodes) {
      states.computeIfAbsent(n.longState(), s -> new ArrayList<>()).add(n);
    }
    List<Line> lines = new ArrayList<>();
    states
        .values()
        .forEach(group -> lines.add(new Line(partition, isDefault, avail, limit, group)));
    return lines;
  }
}

package dev.berth.core;

import dev.berth.proto.NodeGroup;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Torque's {@code nodes=} resource: {@code +}-separated groups, each {@code {count|host}} followed
 * by {@code :ppn=N}, {@code :gpus=N}, a GPU mode and node properties, with an optional {@code
 * #shared} or {@code #excl} suffix on the whole spec. A group that starts with a name is a named
 * host when such a node exists and a property otherwise; the server decides which. The totals
 * (nodes, and processes: count times ppn over all groups) must fit in an int, so that no one who
 * sums them later can overflow.
 */
public final class NodeSpec {
  private static final Set<String> GPU_MODES =
      Set.of("exclusive_process", "exclusive_thread", "exclusive", "default", "shared", "reseterr");
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.\\-]*");

  private NodeSpec() {}

  public record Parsed(List<NodeGroup> groups, boolean exclusive) {
    public int nodeCount() {
      return groups.stream().mapToInt(NodeGroup::getCount).sum();
    }

    public int processCount() {
      return groups.stream().mapToInt(g -> g.getCount() * g.getPpn()).sum();
    }
  }

  public static Parsed parse(String text) {
    String spec = text.trim();
    boolean exclusive = false;
    int hash = spec.indexOf('#');
    if (hash >= 0) {
      String suffix = spec.substring(hash + 1);
      if (!suffix.equals("excl") && !suffix.equals("shared")) {
        throw new BadValueException(
            "nodes '" + text + "': unknown suffix '#" + suffix + "' (use #excl or #shared)");
      }
      exclusive = suffix.equals("excl");
      spec = spec.substring(0, hash);
    }
    if (spec.isEmpty()) {
      throw new BadValueException("nodes request is empty");
    }
    List<NodeGroup> groups = new ArrayList<>();
    long processes = 0; // at least the node count, since every ppn is at least 1
    for (String group : spec.split("\\+", -1)) {
      NodeGroup g = group(text, group);
      groups.add(g);
      processes += (long) g.getCount() * g.getPpn();
      if (processes > Integer.MAX_VALUE) {
        throw new BadValueException(
            "nodes '" + text + "' asks for more than " + Integer.MAX_VALUE + " processes");
      }
    }
    return new Parsed(List.copyOf(groups), exclusive);
  }

  private static NodeGroup group(String text, String group) {
    String[] parts = group.split(":", -1);
    NodeGroup.Builder g = NodeGroup.newBuilder().setCount(1).setPpn(1);
    String first = parts[0];
    if (first.isEmpty()) {
      throw new BadValueException("nodes '" + text + "' has an empty node group");
    }
    if (Ascii.allDigits(first)) {
      int count = positive(text, "node count", first);
      g.setCount(count);
    } else if (NAME.matcher(first).matches()) {
      g.setHost(first);
    } else {
      throw new BadValueException("nodes '" + text + "': '" + first + "' is not a count or name");
    }
    for (int i = 1; i < parts.length; i++) {
      element(text, parts[i], g);
    }
    return g.build();
  }

  private static void element(String text, String part, NodeGroup.Builder g) {
    int eq = part.indexOf('=');
    if (eq >= 0) {
      String key = part.substring(0, eq);
      String value = part.substring(eq + 1);
      switch (key) {
        case "ppn" -> g.setPpn(positive(text, "ppn", value));
        case "gpus" -> g.setGpus(positive(text, "gpus", value));
        default ->
            throw new BadValueException(
                "nodes '" + text + "': unknown node attribute '" + key + "' (use ppn= or gpus=)");
      }
    } else if (GPU_MODES.contains(part)) {
      g.setGpuMode(part);
    } else if (NAME.matcher(part).matches()) {
      g.addProperties(part);
    } else {
      throw new BadValueException("nodes '" + text + "': '" + part + "' is not a node property");
    }
  }

  private static int positive(String text, String what, String value) {
    try {
      int n = Integer.parseInt(value);
      if (n > 0) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new BadValueException(
        "nodes '" + text + "': " + what + " must be a positive number, not '" + value + "'");
  }
}

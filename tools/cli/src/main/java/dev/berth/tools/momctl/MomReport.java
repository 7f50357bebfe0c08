package dev.berth.tools.momctl;

import dev.berth.core.ControlCharacters;
import dev.berth.core.MomStatus;
import dev.berth.proto.Node;
import dev.berth.proto.NodeGpuSlot;
import dev.berth.proto.NodeJobSlot;
import dev.berth.proto.NodeStatus;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What momctl prints of a node, made from what the server knows of it: the status items its mom
 * last reported ({@code loadave}, {@code version}, {@code home}, {@code cgroups}, {@code
 * mom_started}, {@code status_update_time}, ...), when, and the jobs the server placed on it.
 * Torque's diagnostic block holds only the lines Berth has a value for; nothing is made up. Every
 * value is printed with its control characters escaped.
 */
final class MomReport {
  /** Torque's PBSE_RMUNKNOWN: a mom's answer to a query for a resource it does not know. */
  static final int RESOURCE_UNKNOWN = 15201;

  private MomReport() {}

  /**
   * One {@code -q NAME} line as Torque's momctl prints the mom's answer, {@code NAME=VALUE} or
   * {@code NAME=? 15201}: {@code n1: loadave = 'loadave=0.52'}.
   */
  static String query(String node, String name, Map<String, String> status) {
    String value = status.get(name);
    String answer = name + (value == null ? "=? " + RESOURCE_UNKNOWN : "=" + value);
    return String.format(
        "%12s: %12s = '%s'\n",
        ControlCharacters.escape(node),
        ControlCharacters.escape(name),
        ControlCharacters.escape(answer));
  }

  /**
   * Torque's {@code momctl -d LEVEL} block for one node: from a blank line to {@code diagnostics
   * complete}. Level 1 and above add the status interval and the cgroup setup.
   *
   * @param server the server's name for the {@code Server[0]} line, or empty to leave it out
   * @param now epoch seconds
   */
  static String diagnostics(NodeStatus status, int level, String server, long now) {
    Node node = status.getNode();
    Map<String, String> items = node.getStatusMap();
    boolean down = isDown(status);
    StringBuilder out = new StringBuilder("\n");
    String name = ControlCharacters.escape(node.getName());
    out.append("Host: ").append(shortName(name)).append('/').append(name);
    item(items, MomStatus.VERSION).ifPresent(v -> out.append("   Version: ").append(v));
    out.append('\n');
    if (!server.isEmpty()) {
      out.append("Server[0]: ").append(ControlCharacters.escape(server)).append('\n');
    }
    if (node.getLastStatusTime() > 0) {
      line(out, "  Last Msg To Server:     ", seconds(now - node.getLastStatusTime()));
    } else {
      out.append("  WARNING:  no messages sent to server\n");
    }
    line(out, "HomeDirectory:          ", item(items, MomStatus.HOME).orElse("N/A"));
    if (!down) {
      number(items, MomStatus.STARTED)
          .ifPresent(t -> line(out, "MOM active:             ", seconds(now - t)));
    }
    if (level >= 1) {
      number(items, MomStatus.UPDATE_INTERVAL)
          .ifPresent(t -> line(out, "Server Update Interval: ", seconds(t)));
      item(items, MomStatus.CGROUPS).ifPresent(c -> line(out, "Cgroups:                ", c));
    }
    jobs(out, status);
    if (down) {
      out.append("WARNING:  node is down: its mom is not reporting to the server\n");
    }
    if (node.getOffline()) {
      String note = ControlCharacters.escape(node.getNote().strip());
      out.append("WARNING:  node is offline").append(note.isEmpty() ? "" : ": " + note);
      out.append('\n');
    }
    item(items, MomStatus.CLEANUP)
        .ifPresent(c -> out.append("WARNING:  cannot clean up: ").append(c).append('\n'));
    return out.append("\ndiagnostics complete\n").toString();
  }

  /** Whether the server counts the node down (its mom not reporting, or never registered). */
  static boolean isDown(NodeStatus status) {
    return List.of(status.getState().split(",")).contains("down");
  }

  /** The jobs the server placed on the node, by their first CPU, and the CPUs they hold. */
  private static void jobs(StringBuilder out, NodeStatus status) {
    Set<String> jobs = new LinkedHashSet<>();
    Set<Integer> cpus = new HashSet<>();
    status.getJobsList().stream()
        .sorted(Comparator.comparingInt(NodeJobSlot::getCpu))
        .forEach(
            slot -> {
              jobs.add(slot.getJobId());
              cpus.add(slot.getCpu());
            });
    status.getGpuJobsList().stream().map(NodeGpuSlot::getJobId).forEach(jobs::add);
    if (jobs.isEmpty()) {
      out.append("NOTE:  no local jobs detected\n");
      return;
    }
    for (String job : jobs) {
      out.append("job[").append(ControlCharacters.escape(job)).append("]  state=RUNNING\n");
    }
    line(out, "Assigned CPU Count:     ", Integer.toString(cpus.size()));
  }

  private static void line(StringBuilder out, String label, String value) {
    out.append(label).append(value).append('\n');
  }

  private static String seconds(long seconds) {
    return Math.max(0, seconds) + " seconds";
  }

  /** A status item, escaped; empty when the mom did not report it. */
  private static Optional<String> item(Map<String, String> items, String name) {
    String value = items.getOrDefault(name, "").strip();
    return value.isEmpty() ? Optional.empty() : Optional.of(ControlCharacters.escape(value));
  }

  private static Optional<Long> number(Map<String, String> items, String name) {
    try {
      return Optional.of(Long.parseLong(items.getOrDefault(name, "").strip()));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  /** {@code n1} of {@code n1.cluster.org}; an address stays whole. */
  private static String shortName(String name) {
    int dot = name.indexOf('.');
    boolean address = name.chars().allMatch(c -> c == '.' || Character.isDigit(c));
    return dot <= 0 || address ? name : name.substring(0, dot);
  }
}

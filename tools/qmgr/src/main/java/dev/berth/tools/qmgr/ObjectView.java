package dev.berth.tools.qmgr;

import dev.berth.core.ControlCharacters;
import dev.berth.core.ServerAttributeNames;
import dev.berth.proto.Attribute;
import dev.berth.proto.Manage.ObjectType;
import dev.berth.proto.Node;
import dev.berth.proto.Queue;
import dev.berth.proto.ServerStatus;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * A server, queue or node as qmgr shows it: its name and its attributes as {@code name[.resource] =
 * value} entries in Torque's order ({@link AttributeCatalog#rank}, then name, then resource). Every
 * part is held as shown, control characters escaped, so neither {@code list} nor {@code print} can
 * emit a forged line (or, from {@code print}, a directive nobody set).
 */
record ObjectView(ObjectType type, String name, List<Entry> entries) {

  /** One attribute, its parts kept with their control characters escaped. */
  record Entry(String name, String resource, String value) {
    Entry {
      name = ControlCharacters.escape(name);
      resource = ControlCharacters.escape(resource);
      value = ControlCharacters.escape(value);
    }

    /** {@code name} or {@code name.resource}. */
    String key() {
      return resource.isEmpty() ? name : name + "." + resource;
    }
  }

  /** Torque's order of job states in {@code state_count}. */
  private static final List<String[]> STATES =
      List.of(
          new String[] {"T", "Transit"},
          new String[] {"Q", "Queued"},
          new String[] {"H", "Held"},
          new String[] {"W", "Waiting"},
          new String[] {"R", "Running"},
          new String[] {"E", "Exiting"},
          new String[] {"C", "Complete"});

  /** Torque's order of the items of a node's {@code status}. */
  private static final List<String> STATUS_ORDER =
      List.of(
          "rectime",
          "macaddr",
          "cpuclock",
          "varattr",
          "jobs",
          "state",
          "netload",
          "gres",
          "loadave",
          "ncpus",
          "physmem",
          "availmem",
          "totmem",
          "idletime",
          "nusers",
          "nsessions",
          "sessions",
          "uname",
          "opsys");

  ObjectView {
    name = ControlCharacters.escape(name);
    List<Entry> sorted = new ArrayList<>(entries);
    sorted.sort(
        Comparator.comparingInt((Entry e) -> AttributeCatalog.rank(type, e.name()))
            .thenComparing(Entry::name)
            .thenComparing(Entry::resource));
    entries = List.copyOf(sorted);
  }

  /**
   * The server's attributes as the reply carries them; {@code total_jobs} and {@code state_count}
   * come from the reply's counts when it has any and its attributes do not already hold them.
   */
  static ObjectView server(ServerStatus server) {
    List<Entry> entries = fromMap(server.getAttributesMap());
    boolean counted = server.getStateCountCount() > 0 || server.getTotalJobs() > 0;
    if (counted && !server.containsAttributes(ServerAttributeNames.TOTAL_JOBS)) {
      entries.add(
          new Entry(ServerAttributeNames.TOTAL_JOBS, "", String.valueOf(server.getTotalJobs())));
    }
    if (counted && !server.containsAttributes(ServerAttributeNames.STATE_COUNT)) {
      entries.add(
          new Entry(ServerAttributeNames.STATE_COUNT, "", stateCount(server.getStateCountMap())));
    }
    return new ObjectView(ObjectType.SERVER, server.getName(), entries);
  }

  static ObjectView queue(Queue queue) {
    return new ObjectView(ObjectType.QUEUE, queue.getName(), fromMap(queue.getAttributesMap()));
  }

  /**
   * A node's fields under Torque's attribute names: {@code state} (free, down, offline or
   * "down,offline"), {@code np}, {@code properties}, {@code ntype}, {@code status} (the mom's
   * items, with {@code physmem} from the node record when the items lack it), {@code note} and
   * {@code gpus}; empty ones are left out.
   */
  static ObjectView node(Node node) {
    List<Entry> entries = new ArrayList<>();
    entries.add(new Entry("state", "", nodeState(node)));
    entries.add(new Entry("np", "", String.valueOf(node.getNp())));
    if (node.getPropertiesCount() > 0) {
      entries.add(new Entry("properties", "", String.join(",", node.getPropertiesList())));
    }
    if (!node.getNtype().isEmpty()) {
      entries.add(new Entry("ntype", "", node.getNtype()));
    }
    String status = nodeStatus(node);
    if (!status.isEmpty()) {
      entries.add(new Entry("status", "", status));
    }
    if (!node.getNote().isEmpty()) {
      entries.add(new Entry("note", "", node.getNote()));
    }
    if (node.getGpus() > 0) {
      entries.add(new Entry("gpus", "", String.valueOf(node.getGpus())));
    }
    return new ObjectView(ObjectType.NODE, node.getName(), entries);
  }

  /**
   * Only the attributes asked for, as in {@code list queue batch max_running,resources_max}: an
   * attribute without a resource selects every resource of it; none asked for selects all.
   */
  ObjectView select(List<Attribute> wanted) {
    if (wanted.isEmpty()) {
      return this;
    }
    List<Entry> selected = new ArrayList<>();
    for (Entry entry : entries) {
      for (Attribute attribute : wanted) {
        if (attribute.getName().equalsIgnoreCase(entry.name())
            && (attribute.getResource().isEmpty()
                || attribute.getResource().equals(entry.resource()))) {
          selected.add(entry);
          break;
        }
      }
    }
    return new ObjectView(type, name, selected);
  }

  private static List<Entry> fromMap(Map<String, String> attributes) {
    List<Entry> entries = new ArrayList<>();
    attributes.forEach(
        (key, value) -> {
          int dot = key.indexOf('.');
          entries.add(
              dot < 0
                  ? new Entry(key, "", value)
                  : new Entry(key.substring(0, dot), key.substring(dot + 1), value));
        });
    return entries;
  }

  /** {@code Transit:0 Queued:3 Held:0 Waiting:0 Running:1 Exiting:0 Complete:0 }, as Torque. */
  private static String stateCount(Map<String, Integer> counts) {
    StringBuilder text = new StringBuilder();
    for (String[] state : STATES) {
      text.append(state[1]).append(':').append(counts.getOrDefault(state[0], 0)).append(' ');
    }
    return text.toString();
  }

  private static String nodeState(Node node) {
    if (node.getDown() && node.getOffline()) {
      return "down,offline";
    }
    if (node.getDown()) {
      return "down";
    }
    return node.getOffline() ? "offline" : "free";
  }

  private static String nodeStatus(Node node) {
    List<Map.Entry<String, String>> items = new ArrayList<>(node.getStatusMap().entrySet());
    if (node.getPhysmem() > 0 && !node.containsStatus("physmem")) {
      items.add(Map.entry("physmem", node.getPhysmem() / 1024 + "kb"));
    }
    items.sort(
        Comparator.comparingInt((Map.Entry<String, String> e) -> statusRank(e.getKey()))
            .thenComparing(Map.Entry::getKey));
    List<String> parts = new ArrayList<>();
    for (Map.Entry<String, String> item : items) {
      parts.add(item.getKey() + "=" + item.getValue());
    }
    return String.join(",", parts);
  }

  private static int statusRank(String key) {
    int rank = STATUS_ORDER.indexOf(key);
    return rank < 0 ? STATUS_ORDER.size() : rank;
  }
}

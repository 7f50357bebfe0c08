package dev.berth.tools.pbsnodes;

import static dev.berth.core.NodeAttributeNames.GPUS;
import static dev.berth.core.NodeAttributeNames.JOBS;
import static dev.berth.core.NodeAttributeNames.NOTE;
import static dev.berth.core.NodeAttributeNames.NP;
import static dev.berth.core.NodeAttributeNames.NTYPE;
import static dev.berth.core.NodeAttributeNames.PROPERTIES;
import static dev.berth.core.NodeAttributeNames.STATE;
import static dev.berth.core.NodeAttributeNames.STATUS;

import dev.berth.core.CpuRanges;
import dev.berth.proto.Gpu;
import dev.berth.proto.Node;
import dev.berth.proto.NodeJobSlot;
import dev.berth.proto.NodeStatus;
import dev.berth.tools.format.Attr;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A node as Torque 6's pbsnodes lists it, in the order of Torque's node attribute table: state, np,
 * properties, ntype, jobs ({@code 0-1/12.srv,2/13.srv}: the CPUs each job holds), status (the mom's
 * last report), note, gpus, gpu_status (the GPUs the mom found and the jobs that hold them).
 * Attributes the node does not have are left out. The names are core's ({@link
 * dev.berth.core.NodeAttributeNames}), but gpu_status, which only pbsnodes shows.
 */
public final class NodeAttributeList {
  /** The order in which a Torque mom reports its status items; others follow by name. */
  private static final List<String> STATUS_ORDER =
      List.of(
          "opsys",
          "uname",
          "sessions",
          "nsessions",
          "nusers",
          "idletime",
          "totmem",
          "availmem",
          "physmem",
          "ncpus",
          "loadave",
          "gres",
          "netload",
          "state",
          "varattr",
          "cpuclock",
          "macaddr",
          "version",
          "rectime",
          "jobs");

  private NodeAttributeList() {}

  public static List<Attr> of(NodeStatus status) {
    Node node = status.getNode();
    List<Attr> attrs = new ArrayList<>();
    attrs.add(Attr.text(STATE, status.getState()));
    attrs.add(Attr.number(NP, node.getNp()));
    if (node.getPropertiesCount() > 0) {
      attrs.add(Attr.text(PROPERTIES, String.join(",", node.getPropertiesList())));
    }
    attrs.add(Attr.text(NTYPE, node.getNtype().isEmpty() ? "cluster" : node.getNtype()));
    List<String> jobs = jobs(status.getJobsList());
    if (!jobs.isEmpty()) {
      attrs.add(Attr.list(JOBS, String.join(",", jobs), jobs));
    }
    List<Map.Entry<String, String>> items = statusItems(node);
    if (!items.isEmpty()) {
      attrs.add(Attr.entries(STATUS, statusText(items), items));
    }
    if (!node.getNote().isEmpty()) {
      attrs.add(Attr.text(NOTE, node.getNote()));
    }
    if (node.getGpus() > 0) {
      attrs.add(Attr.number(GPUS, node.getGpus()));
    }
    List<String> gpus = gpuStatus(status);
    if (!gpus.isEmpty()) {
      attrs.add(Attr.list("gpu_status", String.join(",", gpus), gpus));
    }
    return attrs;
  }

  /**
   * Torque's gpu_status items, {@code gpu[N]=gpu_id=...;gpu_product_name=...;gpu_state=...}, for
   * the GPUs the mom found, with the device file and the job that holds each.
   */
  static List<String> gpuStatus(NodeStatus status) {
    Map<Integer, String> holders = new TreeMap<>();
    status.getGpuJobsList().forEach(s -> holders.put(s.getGpu(), s.getJobId()));
    List<String> items = new ArrayList<>();
    for (Gpu g : status.getNode().getGpuDevicesList()) {
      StringBuilder item = new StringBuilder("gpu[").append(g.getIndex()).append("]=");
      item.append("gpu_id=").append(g.getBusId().isEmpty() ? g.getDevice() : g.getBusId());
      if (!g.getModel().isEmpty()) {
        item.append(";gpu_product_name=").append(g.getModel());
      }
      if (!g.getUuid().isEmpty()) {
        item.append(";gpu_uuid=").append(g.getUuid());
      }
      if (g.getMemory() > 0) {
        item.append(";gpu_memory_total=").append(g.getMemory() >> 20).append(" MB");
      }
      item.append(";gpu_device=").append(g.getDevice());
      String job = holders.get(g.getIndex());
      item.append(";gpu_state=").append(job == null ? "Unallocated" : "Exclusive");
      if (job != null) {
        item.append(";gpu_job=").append(job);
      }
      items.add(item.toString());
    }
    return items;
  }

  /** Torque 6's jobs items: per job, in order of first appearance, its CPU ranges and its id. */
  static List<String> jobs(List<NodeJobSlot> slots) {
    Map<String, List<Integer>> cpus = new LinkedHashMap<>();
    for (NodeJobSlot slot : slots) {
      cpus.computeIfAbsent(slot.getJobId(), id -> new ArrayList<>()).add(slot.getCpu());
    }
    List<String> items = new ArrayList<>();
    cpus.forEach(
        (id, list) -> {
          list.sort(null);
          items.add(CpuRanges.format(list) + "/" + id);
        });
    return items;
  }

  private static List<Map.Entry<String, String>> statusItems(Node node) {
    Map<String, String> rest = new TreeMap<>(node.getStatusMap());
    if (!rest.containsKey("rectime") && node.getLastStatusTime() > 0) {
      rest.put("rectime", Long.toString(node.getLastStatusTime()));
    }
    List<Map.Entry<String, String>> items = new ArrayList<>();
    for (String key : STATUS_ORDER) {
      String value = rest.remove(key);
      if (value != null) {
        items.add(new AbstractMap.SimpleImmutableEntry<>(key, value));
      }
    }
    rest.forEach((key, value) -> items.add(new AbstractMap.SimpleImmutableEntry<>(key, value)));
    return items;
  }

  private static String statusText(List<Map.Entry<String, String>> items) {
    StringBuilder out = new StringBuilder();
    for (Map.Entry<String, String> item : items) {
      if (out.length() > 0) {
        out.append(',');
      }
      out.append(item.getKey()).append('=').append(item.getValue());
    }
    return out.toString();
  }
}

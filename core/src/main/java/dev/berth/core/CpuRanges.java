package dev.berth.core;

import dev.berth.proto.NodeAllocation;
import java.util.List;

/**
 * Torque 6's range strings: CPU ids {@code 0,1,2,5} print as {@code 0-2,5}, and an exec_host as
 * {@code node1/0-1+node2/0-1}; and Torque's exec_gpus, {@code node1-gpu/0+node1-gpu/1}.
 */
public final class CpuRanges {
  private CpuRanges() {}

  /** Consecutive runs joined with {@code -}, runs separated by {@code ,}, in the given order. */
  public static String format(List<Integer> ids) {
    StringBuilder out = new StringBuilder();
    int i = 0;
    while (i < ids.size()) {
      int first = ids.get(i);
      int last = first;
      while (i + 1 < ids.size() && ids.get(i + 1) == last + 1) {
        last = ids.get(++i);
      }
      if (out.length() > 0) {
        out.append(',');
      }
      out.append(first);
      if (last != first) {
        out.append('-').append(last);
      }
      i++;
    }
    return out.toString();
  }

  /** The exec_host string: {@code node/ranges} per allocation, joined with {@code +}. */
  public static String execHost(List<NodeAllocation> allocations) {
    StringBuilder out = new StringBuilder();
    for (NodeAllocation allocation : allocations) {
      if (out.length() > 0) {
        out.append('+');
      }
      out.append(allocation.getNode());
      if (allocation.getCpusCount() > 0) {
        out.append('/').append(format(allocation.getCpusList()));
      }
    }
    return out.toString();
  }

  /**
   * Torque's exec_gpus: {@code node-gpu/id} for every GPU the job holds, joined with {@code +};
   * empty when it holds none.
   */
  public static String execGpus(List<NodeAllocation> allocations) {
    StringBuilder out = new StringBuilder();
    for (NodeAllocation allocation : allocations) {
      for (int id : allocation.getGpuIdsList()) {
        if (out.length() > 0) {
          out.append('+');
        }
        out.append(allocation.getNode()).append("-gpu/").append(id);
      }
    }
    return out.toString();
  }
}

package dev.berth.mom.job;

import dev.berth.proto.Job;
import dev.berth.proto.NodeAllocation;
import java.util.ArrayList;
import java.util.List;

/** PBS_NODEFILE: one line per execution slot, nodes in exec_host order (Torque's layout). */
public final class NodeFile {
  private NodeFile() {}

  public static List<String> lines(Job job) {
    List<String> lines = new ArrayList<>();
    for (NodeAllocation a : job.getExecNodesList()) {
      for (int i = 0; i < a.getCpusCount(); i++) {
        lines.add(a.getNode());
      }
    }
    return lines;
  }
}

package dev.berth.tools.qmgr;

import dev.berth.proto.Node;
import dev.berth.proto.Queue;
import dev.berth.proto.ServerStatus;
import java.util.LinkedHashMap;
import java.util.Map;

/** Replies as a server might send them; maps are filled out of Torque's order on purpose. */
final class SampleObjects {
  private SampleObjects() {}

  static ServerStatus server() {
    Map<String, String> attributes = new LinkedHashMap<>();
    attributes.put("cgroup_enable", "True");
    attributes.put("keep_completed", "300");
    attributes.put("resources_default.walltime", "01:00:00");
    attributes.put("managers", "root@head,alice@head");
    attributes.put("default_queue", "batch");
    attributes.put("resources_default.nodes", "1");
    attributes.put("scheduling", "True");
    attributes.put("comment", "head node, rack 4");
    attributes.put("server_state", "Active");
    return ServerStatus.newBuilder()
        .setName("head")
        .putAllAttributes(attributes)
        .putStateCount("Q", 3)
        .putStateCount("R", 1)
        .setTotalJobs(4)
        .build();
  }

  static Queue batch() {
    Map<String, String> attributes = new LinkedHashMap<>();
    attributes.put("started", "True");
    attributes.put("enabled", "True");
    attributes.put("site_flag", "x");
    attributes.put("resources_default.walltime", "01:00:00");
    attributes.put("acl_users", "alice,bob");
    attributes.put("resources_max.walltime", "24:00:00");
    attributes.put("max_running", "10");
    attributes.put("queue_type", "Execution");
    return Queue.newBuilder().setName("batch").putAllAttributes(attributes).build();
  }

  static Queue fast() {
    return Queue.newBuilder()
        .setName("fast")
        .putAttributes("enabled", "False")
        .putAttributes("queue_type", "Execution")
        .build();
  }

  static Node n1() {
    return Node.newBuilder()
        .setName("n1")
        .setNp(4)
        .addProperties("fast")
        .addProperties("gpu")
        .setGpus(2)
        .setPhysmem(16L << 30)
        .setOffline(true)
        .setNote("disk replaced")
        .setNtype("cluster")
        .putStatus("uname", "Linux n1")
        .putStatus("loadave", "0.50")
        .putStatus("rectime", "1700000000")
        .build();
  }

  static Node n2() {
    return Node.newBuilder().setName("n2").setNp(8).setNtype("cluster").build();
  }
}

package dev.berth.scheduler;

import dev.berth.proto.Job;
import dev.berth.proto.NodeAllocation;
import dev.berth.proto.NodeGroup;
import dev.berth.proto.ResourceRequest;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;

/** Hand-built nodes, requests and jobs for the scheduler tests. */
final class Fixtures {
  static final long GB = 1L << 30;

  private Fixtures() {}

  /** A node with CPUs 0..np-1, all free, no memory reported, no GPUs, up and idle. */
  static NodeBuilder node(String name, int np) {
    return new NodeBuilder(name, IntStream.range(0, np).boxed().toList());
  }

  static final class NodeBuilder {
    private final String name;
    private Set<String> properties = Set.of();
    private List<Integer> cpuIds;
    private List<Integer> free;
    private long physmem;
    private Long memFree;
    private int gpus;
    private Integer gpusFree;
    private boolean usable = true;
    private Boolean idle;
    private Hosting hosting = Hosting.ANY;

    private NodeBuilder(String name, List<Integer> cpuIds) {
      this.name = name;
      this.cpuIds = cpuIds;
      this.free = cpuIds;
    }

    NodeBuilder props(String... names) {
      properties = Set.of(names);
      return this;
    }

    /** CPU ids as the mom offers them, all free. */
    NodeBuilder cpus(Integer... ids) {
      cpuIds = List.of(ids);
      free = cpuIds;
      return this;
    }

    NodeBuilder free(Integer... ids) {
      free = List.of(ids);
      return this;
    }

    NodeBuilder mem(long bytes) {
      physmem = bytes;
      return this;
    }

    NodeBuilder memFree(long bytes) {
      memFree = bytes;
      return this;
    }

    NodeBuilder gpus(int n) {
      gpus = n;
      return this;
    }

    NodeBuilder gpusFree(int n) {
      gpusFree = n;
      return this;
    }

    /** Down, offline or not yet reported: not usable. */
    NodeBuilder unusable() {
      usable = false;
      return this;
    }

    NodeBuilder idle(boolean value) {
      idle = value;
      return this;
    }

    /** Its mom makes no cgroups (a host without them). */
    NodeBuilder noCgroups() {
      hosting = new Hosting(false, hosting.rootJobs());
      return this;
    }

    /** Its mom was started without --root-jobs. */
    NodeBuilder noRootJobs() {
      hosting = new Hosting(hosting.cgroups(), false);
      return this;
    }

    NodeCapacity build() {
      return new NodeCapacity(
          name,
          properties,
          cpuIds,
          free,
          physmem,
          memFree != null ? memFree : physmem,
          gpus,
          gpusFree != null ? gpusFree : gpus,
          usable,
          idle != null ? idle : free.size() == cpuIds.size(),
          hosting);
    }
  }

  static NodeGroup group(int count, int ppn, String... properties) {
    return NodeGroup.newBuilder()
        .setCount(count)
        .setPpn(ppn)
        .addAllProperties(List.of(properties))
        .build();
  }

  static NodeGroup host(String host, int ppn, String... properties) {
    return NodeGroup.newBuilder()
        .setCount(1)
        .setHost(host)
        .setPpn(ppn)
        .addAllProperties(List.of(properties))
        .build();
  }

  static NodeGroup gpuGroup(int count, int ppn, int gpus) {
    return group(count, ppn).toBuilder().setGpus(gpus).build();
  }

  static ResourceRequest.Builder nodes(NodeGroup... groups) {
    return ResourceRequest.newBuilder().addAllNodeGroups(List.of(groups));
  }

  static Job job(String id, ResourceRequest.Builder resources) {
    return Job.newBuilder().setId(id).setResources(resources).build();
  }

  static Job job(String id, NodeGroup... groups) {
    return job(id, nodes(groups));
  }

  static Job exclusive(String id, NodeGroup... groups) {
    return job(id, groups).toBuilder().setNodeExclusive(true).build();
  }

  static Job subjob(String parent, int index, int slotLimit, NodeGroup... groups) {
    String number = parent.substring(0, parent.indexOf('['));
    return job(number + "[" + index + "].s", groups).toBuilder()
        .setArrayParent(parent)
        .setArrayIndex(index)
        .setArraySlotLimit(slotLimit)
        .build();
  }

  static NodeAllocation alloc(String node, List<Integer> cpus, long mem, int gpus) {
    return NodeAllocation.newBuilder()
        .setNode(node)
        .addAllCpus(cpus)
        .setMem(mem)
        .setGpus(gpus)
        .build();
  }

  static NodeAllocation alloc(String node, Integer... cpus) {
    return alloc(node, List.of(cpus), 0, 0);
  }
}

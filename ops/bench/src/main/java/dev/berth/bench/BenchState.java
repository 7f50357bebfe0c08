package dev.berth.bench;

import com.google.protobuf.ByteString;
import dev.berth.proto.AttributeValue;
import dev.berth.proto.Event;
import dev.berth.proto.Job;
import dev.berth.proto.JobDispatched;
import dev.berth.proto.JobStarted;
import dev.berth.proto.JobState;
import dev.berth.proto.JobSubmitted;
import dev.berth.proto.Node;
import dev.berth.proto.NodeAllocation;
import dev.berth.proto.NodeCreated;
import dev.berth.proto.NodeGroup;
import dev.berth.proto.ResourceRequest;
import dev.berth.proto.ServerAttributesChanged;
import dev.berth.server.command.Context;
import dev.berth.server.command.Decider;
import dev.berth.server.state.ClusterState;
import dev.berth.server.state.StateMachine;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

/**
 * Builds a benchmark's cluster state from events through the server's own state machine, as a
 * replayed journal builds it, starting from the queue and settings a fresh server bootstraps.
 */
final class BenchState {
  private static final ByteString SCRIPT = ByteString.copyFromUtf8("#!/bin/sh\ntrue\n");
  private ClusterState state = ClusterState.EMPTY;
  private final List<Event> events = new ArrayList<>();
  private long number = 1;

  BenchState() {
    Decider.decide(ClusterState.EMPTY, new Decider.Bootstrap(), new Context(1_000_000, "bench"))
        .events()
        .forEach(e -> apply(e.toBuilder()));
  }

  ClusterState state() {
    return state;
  }

  /** The events that built the state, as a journal holds them. */
  List<Event> events() {
    return events;
  }

  void apply(Event.Builder body) {
    Event e = body.setSeq(state.lastSeq() + 1).setTime(1_000).build();
    state = StateMachine.apply(state, e);
    events.add(e);
  }

  void server(String name, String value) {
    apply(
        Event.newBuilder()
            .setServerAttributesChanged(
                ServerAttributesChanged.newBuilder()
                    .addChanges(AttributeValue.newBuilder().setName(name).setValue(value))));
  }

  void node(String name, int cpus) {
    apply(
        Event.newBuilder()
            .setNodeCreated(
                NodeCreated.newBuilder()
                    .setNode(
                        Node.newBuilder()
                            .setName(name)
                            .setNp(cpus)
                            .addAllCpuIds(IntStream.range(0, cpus).boxed().toList())
                            .setRegistered(true)
                            // the busy server's clients submit as root, which the server refuses
                            // where no node runs root's jobs
                            .setRunsRootJobs(true)
                            .setNtype("cluster"))));
  }

  /** A queued job asking for {@code count} nodes of {@code ppn} CPUs (walltime 0 = none). */
  Job submit(int count, int ppn, long walltime, long qtime) {
    long n = number++;
    ResourceRequest.Builder r =
        ResourceRequest.newBuilder()
            .putValues("nodes", count + ":ppn=" + ppn)
            .addNodeGroups(NodeGroup.newBuilder().setCount(count).setPpn(ppn));
    if (walltime > 0) {
      r.setWalltime(walltime).putValues("walltime", Long.toString(walltime));
    }
    Job job =
        Job.newBuilder()
            .setId(n + ".bench")
            .setNumber(n)
            .setName("STDIN")
            .setOwner("alice@login1")
            .setEuser("alice")
            .setQueue("batch")
            .setServer("bench")
            .setState(JobState.QUEUED)
            .setQtime(qtime)
            .setResources(r)
            .build();
    apply(
        Event.newBuilder()
            .setJobSubmitted(JobSubmitted.newBuilder().setJob(job).setScript(SCRIPT)));
    return job;
  }

  /** Dispatches a job to these allocations and records its start at {@code startTime}. */
  void run(Job job, List<NodeAllocation> allocations, long startTime) {
    apply(
        Event.newBuilder()
            .setJobDispatched(
                JobDispatched.newBuilder().setJobId(job.getId()).addAllExecNodes(allocations)));
    if (startTime > 0) {
      apply(
          Event.newBuilder()
              .setJobStarted(
                  JobStarted.newBuilder()
                      .setJobId(job.getId())
                      .setSessionId(1)
                      .setStartTime(startTime)));
    }
  }

  static NodeAllocation cpus(String node, int from, int to) {
    return NodeAllocation.newBuilder()
        .setNode(node)
        .addAllCpus(IntStream.range(from, to).boxed().toList())
        .build();
  }
}

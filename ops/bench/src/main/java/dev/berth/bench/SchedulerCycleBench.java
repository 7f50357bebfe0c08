package dev.berth.bench;

import com.google.protobuf.ByteString;
import dev.berth.proto.Event;
import dev.berth.proto.Job;
import dev.berth.proto.JobDispatched;
import dev.berth.proto.JobState;
import dev.berth.proto.JobSubmitted;
import dev.berth.proto.Node;
import dev.berth.proto.NodeAllocation;
import dev.berth.proto.NodeCreated;
import dev.berth.proto.NodeGroup;
import dev.berth.proto.ResourceRequest;
import dev.berth.scheduler.Fifo;
import dev.berth.scheduler.RunDecision;
import dev.berth.server.command.Context;
import dev.berth.server.command.Decider;
import dev.berth.server.command.StateView;
import dev.berth.server.state.ClusterState;
import dev.berth.server.state.StateMachine;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * One scheduling cycle as the server runs it (the view of a committed state, then the policy's
 * plan) on a large cluster with 100,000 jobs queued: nodes of 32 CPUs, each running a job on 31 of
 * them. In {@code aCpuIsFree} one node has its last CPU free and every queued job needs one CPU
 * (the cycle after a job's end); in {@code nothingFits} every node has one CPU free and every
 * queued job needs two on one node, so the cycle looks at every job on every node. The states are
 * built from events through the server's own state machine, as a replayed journal builds them.
 */
@State(Scope.Benchmark)
@Fork(value = 1, jvmArgsAppend = "-Xmx6g")
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class SchedulerCycleBench {
  static final int QUEUED = 100_000;
  static final int CPUS = 32;
  private static final int MAX_STARTS = 1000;

  @Param({"1000", "10000"})
  int nodes;

  private ClusterState oneFree;
  private ClusterState blocked;

  @Setup(Level.Trial)
  public void build() {
    oneFree = state(nodes, 1, true);
    blocked = state(nodes, 2, false);
  }

  @Benchmark
  @BenchmarkMode(Mode.SampleTime)
  @Warmup(iterations = 2, time = 5)
  @Measurement(iterations = 3, time = 10)
  public List<RunDecision> aCpuIsFree() {
    return check(Fifo.plan(new StateView(oneFree), MAX_STARTS), 1);
  }

  @Benchmark
  @BenchmarkMode(Mode.SingleShotTime)
  @Warmup(iterations = 1)
  @Measurement(iterations = 3)
  public List<RunDecision> nothingFits() {
    return check(Fifo.plan(new StateView(blocked), MAX_STARTS), 0);
  }

  /** A benchmark of cycles that decided wrongly measures nothing. */
  private static List<RunDecision> check(List<RunDecision> plan, int starts) {
    if (plan.size() != starts) {
      throw new IllegalStateException("planned " + plan.size() + " starts, expected " + starts);
    }
    return plan;
  }

  /**
   * Nodes of {@link #CPUS} CPUs each running a job on all but one (all, but for the first node,
   * when {@code onlyFirstHasRoom}), then {@link #QUEUED} jobs each asking for {@code ppn} CPUs on
   * one node.
   */
  static ClusterState state(int nodes, int ppn, boolean onlyFirstHasRoom) {
    Builder b = new Builder();
    // the batch queue and server settings a fresh server starts with
    Decider.decide(ClusterState.EMPTY, new Decider.Bootstrap(), new Context(1_000_000, "bench"))
        .events()
        .forEach(e -> b.apply(e.toBuilder()));
    for (int n = 0; n < nodes; n++) {
      b.apply(
          Event.newBuilder()
              .setNodeCreated(
                  NodeCreated.newBuilder()
                      .setNode(
                          Node.newBuilder()
                              .setName("n" + n)
                              .setNp(CPUS)
                              .addAllCpuIds(IntStream.range(0, CPUS).boxed().toList())
                              .setRegistered(true)
                              .setNtype("cluster"))));
      int busy = onlyFirstHasRoom && n > 0 ? CPUS : CPUS - 1;
      Job running = b.submit(busy);
      b.apply(
          Event.newBuilder()
              .setJobDispatched(
                  JobDispatched.newBuilder()
                      .setJobId(running.getId())
                      .addExecNodes(
                          NodeAllocation.newBuilder()
                              .setNode("n" + n)
                              .addAllCpus(IntStream.range(0, busy).boxed().toList()))));
    }
    for (int i = 0; i < QUEUED; i++) {
      b.submit(ppn);
    }
    return b.state;
  }

  private static final class Builder {
    private static final ByteString SCRIPT = ByteString.copyFromUtf8("#!/bin/sh\ntrue\n");
    private ClusterState state = ClusterState.EMPTY;
    private long number = 1;

    void apply(Event.Builder body) {
      state = StateMachine.apply(state, body.setSeq(state.lastSeq() + 1).setTime(1_000).build());
    }

    Job submit(int ppn) {
      long n = number++;
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
              .setResources(
                  ResourceRequest.newBuilder()
                      .putValues("nodes", "1:ppn=" + ppn)
                      .addNodeGroups(NodeGroup.newBuilder().setCount(1).setPpn(ppn)))
              .build();
      apply(
          Event.newBuilder()
              .setJobSubmitted(JobSubmitted.newBuilder().setJob(job).setScript(SCRIPT)));
      return job;
    }
  }

  /** Runs both cycles at both sizes in a forked JVM and prints JMH's figures. */
  static void run() throws RunnerException {
    new Runner(new OptionsBuilder().include(SchedulerCycleBench.class.getName()).build()).run();
  }
}

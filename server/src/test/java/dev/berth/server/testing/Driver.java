package dev.berth.server.testing;

import dev.berth.core.AttributeNames;
import dev.berth.proto.AlterJob;
import dev.berth.proto.Attribute;
import dev.berth.proto.DeleteJob;
import dev.berth.proto.Event;
import dev.berth.proto.HoldJob;
import dev.berth.proto.Job;
import dev.berth.proto.JobObitReport;
import dev.berth.proto.JobStartedReport;
import dev.berth.proto.Manage;
import dev.berth.proto.Node;
import dev.berth.proto.NodeHello;
import dev.berth.proto.ReleaseJob;
import dev.berth.proto.Request;
import dev.berth.proto.ResourcesUsed;
import dev.berth.proto.ServerInbound;
import dev.berth.proto.SignalJob;
import dev.berth.proto.SubmitJob;
import dev.berth.scheduler.Plan;
import dev.berth.scheduler.Planner;
import dev.berth.server.command.Caller;
import dev.berth.server.command.Context;
import dev.berth.server.command.Decider;
import dev.berth.server.command.Outcome;
import dev.berth.server.command.job.JobBudget;
import dev.berth.server.command.schedule.StateView;
import dev.berth.server.endpoint.ClientLimits;
import dev.berth.server.state.ClusterState;
import dev.berth.server.state.StateMachine;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;

/**
 * Drives {@link Decider} the way the server's pipeline does (decide, number and time the events,
 * apply them, weigh them against the {@link JobBudget}, then follow {@link Decider#cascade} for a
 * few rounds), keeping the live state and the journal of every event written. Time is a field the
 * test moves; nothing reads a clock.
 */
public final class Driver {
  public static final String SERVER = "srv";
  public static final Caller ROOT = new Caller("root", "root", "head");
  public static final Caller ALICE = new Caller("alice", "users", "login1");
  public static final Caller BOB = new Caller("bob", "users", "login1");
  public static final Caller SCHEDULER = Caller.system(Caller.SCHEDULER, "head");

  public ClusterState state = ClusterState.EMPTY;
  public final List<Event> journal = new ArrayList<>();
  public long nowMillis = 1_700_000_000_000L;

  /** What jobs may take of the state, as a server with a 2 GiB heap has it by default. */
  public JobBudget budget = ClientLimits.defaults(2L << 30).jobBudget();

  /** A bootstrapped server (queue batch, default_queue) with nodes n1 and n2 of 4 CPUs each. */
  public static Driver withTwoNodes() {
    Driver d = new Driver();
    d.run(new Decider.Bootstrap(), "server");
    d.hello("n1", 4);
    d.hello("n2", 4);
    return d;
  }

  public long nowSeconds() {
    return nowMillis / 1000;
  }

  public void advance(long seconds) {
    nowMillis += seconds * 1000;
  }

  public Context context() {
    return new Context(nowMillis, SERVER);
  }

  /** Decides, records and applies a command and the cascade that follows it. */
  public Outcome run(Decider.Command command, String actor) {
    Context ctx = context();
    Outcome outcome = Decider.decide(state, command, ctx);
    int start = journal.size();
    ClusterState before = state;
    record(outcome.events(), ctx, actor);
    try {
      budget.admit(before, state, command);
    } catch (RuntimeException e) {
      state = before;
      journal.subList(start, journal.size()).clear();
      throw e;
    }
    Outcome follow = Decider.cascade(state, journal.subList(start, journal.size()));
    for (int round = 0; round < 10 && !follow.events().isEmpty(); round++) {
      int from = journal.size();
      record(follow.events(), ctx, "server");
      follow = Decider.cascade(state, journal.subList(from, journal.size()));
    }
    return outcome;
  }

  private void record(List<Event> events, Context ctx, String actor) {
    for (Event body : events) {
      Event e =
          body.toBuilder()
              .setSeq(state.lastSeq() + 1)
              .setTime(ctx.nowMillis())
              .setActor(actor)
              .build();
      state = StateMachine.apply(state, e);
      journal.add(e);
    }
  }

  /** Only what {@link Decider#decide} returns, without recording anything. */
  public Outcome decide(Decider.Command command) {
    return Decider.decide(state, command, context());
  }

  public Outcome client(Caller caller, Request.Builder request) {
    return run(new Decider.ClientCommand(request.build(), caller), caller.principal());
  }

  // ---- qsub ----

  /** Submits with a working directory (as qsub always sends one) and returns the new job's id. */
  public String submit(Caller caller, Attribute... attributes) {
    List<Attribute> all = new ArrayList<>();
    all.add(attr(AttributeNames.WORK_DIR, "/home/" + caller.user()));
    all.addAll(Arrays.asList(attributes));
    return client(caller, submitRequest(all)).reply().getSubmitted().getJobId();
  }

  /** A submission with qsub's submission id; a repeated id answers with the earlier job. */
  public String submitWithId(Caller caller, String submissionId, Attribute... attributes) {
    List<Attribute> all = new ArrayList<>();
    all.add(attr(AttributeNames.WORK_DIR, "/home/" + caller.user()));
    all.addAll(Arrays.asList(attributes));
    Request.Builder request = submitRequest(all);
    request.getSubmitBuilder().setSubmissionId(submissionId);
    return client(caller, request).reply().getSubmitted().getJobId();
  }

  public static Request.Builder submitRequest(List<Attribute> attributes) {
    return Request.newBuilder()
        .setSubmit(
            SubmitJob.newBuilder()
                .addAllAttributes(attributes)
                .setScript(com.google.protobuf.ByteString.copyFromUtf8("#!/bin/sh\ntrue\n")));
  }

  public static Attribute attr(String name, String value) {
    return Attribute.newBuilder().setName(name).setValue(value).build();
  }

  public static Attribute resource(String resource, String value) {
    return Attribute.newBuilder()
        .setName(AttributeNames.RESOURCE_LIST)
        .setResource(resource)
        .setValue(value)
        .build();
  }

  // ---- job control ----

  public Outcome qdel(Caller caller, String id) {
    return client(caller, Request.newBuilder().setDelete(DeleteJob.newBuilder().setJobId(id)));
  }

  public Outcome qdelPurge(Caller caller, String id) {
    return client(
        caller, Request.newBuilder().setDelete(DeleteJob.newBuilder().setJobId(id).setPurge(true)));
  }

  public Outcome qhold(Caller caller, String id, String types) {
    return client(
        caller,
        Request.newBuilder().setHold(HoldJob.newBuilder().setJobId(id).setHoldTypes(types)));
  }

  public Outcome qrls(Caller caller, String id, String types) {
    return client(
        caller,
        Request.newBuilder().setRelease(ReleaseJob.newBuilder().setJobId(id).setHoldTypes(types)));
  }

  public Outcome qalter(Caller caller, String id, Attribute... attributes) {
    return client(
        caller,
        Request.newBuilder()
            .setAlter(AlterJob.newBuilder().setJobId(id).addAllAttributes(List.of(attributes))));
  }

  public Outcome qsig(Caller caller, String id, String signal) {
    return client(
        caller,
        Request.newBuilder().setSignal(SignalJob.newBuilder().setJobId(id).setSignal(signal)));
  }

  // ---- qmgr ----

  public Outcome qmgr(
      Caller caller,
      Manage.Command command,
      Manage.ObjectType type,
      List<String> names,
      Attribute... attributes) {
    return client(
        caller,
        Request.newBuilder()
            .setManage(
                Manage.newBuilder()
                    .setCommand(command)
                    .setObjectType(type)
                    .addAllNames(names)
                    .addAllAttributes(List.of(attributes))));
  }

  /** As root: queue express, a started preemptor, and batch's preempt_mode {@code mode}. */
  public void preemption(String mode) {
    qmgr(
        ROOT,
        Manage.Command.CREATE,
        Manage.ObjectType.QUEUE,
        List.of("express"),
        attr("enabled", "true"),
        attr("started", "true"),
        attr("preemptor", "true"));
    qmgr(
        ROOT,
        Manage.Command.SET,
        Manage.ObjectType.QUEUE,
        List.of("batch"),
        attr("preempt_mode", mode));
  }

  public Outcome setServer(Caller caller, Attribute... attributes) {
    return qmgr(caller, Manage.Command.SET, Manage.ObjectType.SERVER, List.of(), attributes);
  }

  public static Attribute op(String name, Attribute.Op op, String value) {
    return Attribute.newBuilder().setName(name).setOp(op).setValue(value).build();
  }

  public static Attribute op(String name, String resource, Attribute.Op op, String value) {
    return Attribute.newBuilder()
        .setName(name)
        .setResource(resource)
        .setOp(op)
        .setValue(value)
        .build();
  }

  // ---- moms and scheduler ----

  /** A node whose mom runs root's jobs too (a mom started as root with --root-jobs). */
  public static Node node(String name, int cpus, String... properties) {
    return Node.newBuilder()
        .setName(name)
        .addAllCpuIds(IntStream.range(0, cpus).boxed().toList())
        .setPhysmem(16L << 30)
        .setRunsRootJobs(true)
        .addAllProperties(List.of(properties))
        .build();
  }

  public Outcome hello(String name, int cpus, String... runningJobs) {
    return hello(node(name, cpus), runningJobs);
  }

  public Outcome hello(Node node, String... runningJobs) {
    return fromNode(
        node.getName(),
        ServerInbound.newBuilder()
            .setHello(
                NodeHello.newBuilder().setNode(node).addAllRunningJobs(List.of(runningJobs))));
  }

  public Outcome fromNode(String node, ServerInbound.Builder message) {
    return run(new Decider.FromNode(message.build()), "node:" + node);
  }

  /**
   * One scheduling cycle as the server's scheduler makes it now; returns the jobs it dispatched.
   */
  public List<String> schedule() {
    return schedule(plan());
  }

  /** The plan a scheduling cycle makes now. */
  public Plan plan() {
    return Planner.plan(new StateView(state, nowSeconds()), 1000);
  }

  /** Records a plan's decisions; returns the jobs they dispatched. */
  public List<String> schedule(Plan plan) {
    Outcome out =
        run(
            new Decider.Schedule(plan.decisions(), plan.preemptions(), plan.resumptions()),
            Caller.SCHEDULER);
    return out.events().stream()
        .filter(Event::hasJobDispatched)
        .map(e -> e.getJobDispatched().getJobId())
        .toList();
  }

  /** The mother superior of a dispatched job reports that it started. */
  public Outcome started(String jobId) {
    return started(motherSuperior(jobId), jobId);
  }

  public Outcome started(String node, String jobId) {
    return fromNode(
        node,
        ServerInbound.newBuilder()
            .setStarted(
                JobStartedReport.newBuilder()
                    .setNode(node)
                    .setJobId(jobId)
                    .setSessionId(4242)
                    .setStartTime(nowSeconds())));
  }

  public Outcome obit(String jobId, int status) {
    return obit(motherSuperior(jobId), jobId, status);
  }

  public Outcome obit(String node, String jobId, int status) {
    return fromNode(
        node,
        ServerInbound.newBuilder()
            .setObit(
                JobObitReport.newBuilder()
                    .setNode(node)
                    .setJobId(jobId)
                    .setExitStatus(status)
                    .setEndTime(nowSeconds())
                    .setResourcesUsed(ResourcesUsed.newBuilder().setCput(3).setWalltime(5))));
  }

  public Outcome tick() {
    return run(new Decider.Tick(), "server");
  }

  /** Runs a submitted job to completion: schedule, start, obit. */
  public void runToEnd(String jobId, int status) {
    schedule();
    started(jobId);
    obit(jobId, status);
  }

  public String motherSuperior(String jobId) {
    return job(jobId).getExecNodes(0).getNode();
  }

  public Job job(String id) {
    return state.job(id).orElseThrow(() -> new AssertionError("no job " + id + " in the state"));
  }

  public List<Event> eventsSince(int index) {
    return List.copyOf(journal.subList(index, journal.size()));
  }
}

package dev.berth.mom.tm;

import dev.berth.core.Signals;
import dev.berth.core.pbs.ExitStatus;
import dev.berth.mom.os.Environment;
import dev.berth.mom.output.JobOutput;
import dev.berth.proto.Job;
import dev.berth.proto.MomInbound;
import dev.berth.proto.NodeAllocation;
import dev.berth.proto.SignalTask;
import dev.berth.proto.SpawnTask;
import dev.berth.proto.TaskInput;
import dev.berth.proto.TaskObit;
import dev.berth.proto.TaskObitAck;
import dev.berth.proto.TaskOutput;
import dev.berth.proto.TaskOutputAck;
import dev.berth.proto.TaskStarted;
import dev.berth.proto.TmAck;
import dev.berth.proto.TmError;
import dev.berth.proto.TmExited;
import dev.berth.proto.TmInput;
import dev.berth.proto.TmNode;
import dev.berth.proto.TmNodeList;
import dev.berth.proto.TmOutput;
import dev.berth.proto.TmRequest;
import dev.berth.proto.TmResponse;
import dev.berth.proto.TmSpawn;
import dev.berth.proto.TmSpawned;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import org.slf4j.Logger;

/**
 * The task manager of one job, on its mother superior: answers the job's TM requests, gives out
 * task ids, sends SPAWN_TASK to the task's node (again, until the node answers), passes each task's
 * output on in order — to the connection that relays it, else to the job's output files — and tells
 * those waiting when a task has ended, after all of its output. Every method runs on the job
 * actor's thread; the socket ({@link TmEndpoint}) and the task nodes ({@link TaskHost}) are reached
 * by messages only.
 *
 * <p>Over 400 lines: the task-manager protocol (Torque's tm_ calls) is one table of requests over
 * one table of tasks, answered on the connection that asked.
 */
public final class TaskManager {

  private record Waiter(long connection, long request) {}

  private static final class Entry {
    final int id;
    final String node;
    SpawnTask spawn; // kept only until the node answers it
    Runnable held = () -> {}; // gives the spawn request's bytes back to the socket's budget
    long pid;

    /** The last piece passed on (written to its connection or the job's files). */
    final java.util.concurrent.atomic.AtomicLong written =
        new java.util.concurrent.atomic.AtomicLong(-1);

    final long spawnConnection;
    final long spawnRequest;
    Long relay; // the connection its output and stdin go through, while it is open
    boolean started;
    boolean ended;
    boolean endDelivered;
    int exitStatus;
    String error = "";
    long expectedSeq;
    long outputPieces = -1;
    final List<Waiter> waiters = new ArrayList<>();

    Entry(int id, String node, SpawnTask spawn, long spawnConnection, long spawnRequest) {
      this.id = id;
      this.node = node;
      this.spawn = spawn;
      this.spawnConnection = spawnConnection;
      this.spawnRequest = spawnRequest;
    }
  }

  /** Hands out task ids; the job's record keeps the counter across mom restarts. */
  public interface TaskIds {
    int next() throws java.io.IOException;
  }

  private final Job job;
  private final String self;
  private final TmNodeList nodes;
  private final Map<String, String> jobEnvironment;
  private final TaskIds ids;
  private final BiConsumer<String, MomInbound> toNode;
  private final TmEndpoint endpoint;
  private final JobOutput output;
  private final Set<Long> localSessions;
  private final Logger log;
  private final Map<Integer, Entry> tasks = new LinkedHashMap<>();

  /**
   * @param jobEnvironment what a task gets when its spawner sends no environment
   * @param toNode delivers a message to the task host of the job on a node (this one included)
   * @param localSessions sessions of tasks on this node, whose processes may use the socket too
   */
  public TaskManager(
      Job job,
      String self,
      Map<String, String> jobEnvironment,
      TaskIds ids,
      BiConsumer<String, MomInbound> toNode,
      TmEndpoint endpoint,
      JobOutput output,
      Set<Long> localSessions,
      Logger log) {
    this.job = job;
    this.self = self;
    this.nodes = nodeList(job);
    this.jobEnvironment = Map.copyOf(jobEnvironment);
    this.ids = ids;
    this.toNode = toNode;
    this.endpoint = endpoint;
    this.output = output;
    this.localSessions = localSessions;
    this.log = log;
  }

  /** The job's nodes in exec_host order, each with its slots and the index of its first one. */
  static TmNodeList nodeList(Job job) {
    Map<String, Integer> slots = new LinkedHashMap<>();
    for (NodeAllocation a : job.getExecNodesList()) {
      slots.merge(a.getNode(), Math.max(1, a.getCpusCount()), Integer::sum);
    }
    TmNodeList.Builder list = TmNodeList.newBuilder().setJobId(job.getId());
    int index = 0;
    int vnode = 0;
    for (var e : slots.entrySet()) {
      list.addNodes(
          TmNode.newBuilder()
              .setIndex(index++)
              .setName(e.getKey())
              .setSlots(e.getValue())
              .setFirstVnode(vnode));
      vnode += e.getValue();
    }
    return list.build();
  }

  /**
   * Answers a request; {@code done} runs once it is no longer held here: at once, or for a spawn
   * once its node has answered (the spawn is kept to be sent again until then).
   */
  public void request(long connection, TmRequest r, Runnable done) {
    Entry spawned = null;
    switch (r.getBodyCase()) {
      case NODES -> answer(connection, r.getId(), TmResponse.newBuilder().setNodes(nodes));
      case SPAWN -> spawned = spawn(connection, r.getId(), r.getSpawn());
      case WAIT -> waitFor(connection, r.getId(), r.getWait().getTaskId());
      case SIGNAL ->
          signal(connection, r.getId(), r.getSignal().getTaskId(), r.getSignal().getSignal());
      case INPUT -> input(connection, r.getInput());
      default -> fail(connection, r.getId(), "unknown request " + r.getBodyCase());
    }
    if (spawned != null && spawned.spawn != null) {
      spawned.held = done;
    } else {
      done.run();
    }
  }

  /** The task the spawn asks for, sent to its node; null when it is refused. */
  private Entry spawn(long connection, long request, TmSpawn s) {
    TmNode node =
        nodes.getNodesList().stream()
            .filter(n -> n.getName().equals(s.getNode()))
            .findFirst()
            .orElse(null);
    if (node == null) {
      fail(connection, request, s.getNode() + " is not a node of job " + job.getId());
      return null;
    }
    if (s.getArgvCount() == 0 || s.getArgv(0).isEmpty()) {
      fail(connection, request, "no program to start");
      return null;
    }
    String bad = invalid(s);
    if (!bad.isEmpty()) {
      fail(connection, request, bad);
      return null;
    }
    int id;
    try {
      id = ids.next();
    } catch (java.io.IOException e) {
      fail(connection, request, "cannot give out a task id: " + e.getMessage());
      return null;
    }
    int vnode = s.getVnode();
    if (vnode < node.getFirstVnode() || vnode >= node.getFirstVnode() + node.getSlots()) {
      vnode = node.getFirstVnode();
    }
    Map<String, String> env = new HashMap<>(s.getEnvCount() > 0 ? s.getEnvMap() : jobEnvironment);
    env.put("PBS_TASKNUM", Integer.toString(id));
    env.put("PBS_NODENUM", Integer.toString(node.getIndex()));
    env.put("PBS_VNODENUM", Integer.toString(vnode));
    SpawnTask spawn =
        SpawnTask.newBuilder()
            .setJobId(job.getId())
            .setTaskId(id)
            .addAllArgv(s.getArgvList())
            .putAllEnv(env)
            .setCwd(s.getCwd())
            .setFrom(self)
            .setStdinRelayed(s.getRelayOutput())
            .addAllGpus(s.getGpusList())
            .build();
    Entry e = new Entry(id, node.getName(), spawn, connection, request);
    if (s.getRelayOutput()) {
      e.relay = connection;
    }
    tasks.put(id, e);
    toNode.accept(e.node, MomInbound.newBuilder().setSpawn(spawn).build());
    return e;
  }

  /** Why a spawn request cannot become a process, or "". */
  private static String invalid(TmSpawn s) {
    if (s.getArgvList().stream().anyMatch(a -> a.indexOf('\0') >= 0)) {
      return "an argument holds a NUL byte";
    }
    if (s.getCwd().indexOf('\0') >= 0 || !s.getCwd().isEmpty() && !s.getCwd().startsWith("/")) {
      return "the working directory must be an absolute path";
    }
    return Environment.check(s.getEnvMap());
  }

  private void waitFor(long connection, long request, int taskId) {
    Entry e = tasks.get(taskId);
    if (e == null) {
      fail(connection, request, "job " + job.getId() + " has no task " + taskId);
    } else if (e.endDelivered) {
      answer(connection, request, exited(e));
    } else if (e.waiters.stream().anyMatch(w -> w.connection() == connection)) {
      // Once per connection: else a loop of waits would grow the list without end.
      fail(connection, request, "this connection waits for task " + taskId + " already");
    } else {
      e.waiters.add(new Waiter(connection, request));
    }
  }

  private void signal(long connection, long request, int taskId, int signal) {
    Entry e = tasks.get(taskId);
    if (e == null) {
      fail(connection, request, "job " + job.getId() + " has no task " + taskId);
    } else if (e.ended) {
      fail(connection, request, "task " + taskId + " has ended");
    } else {
      sendSignal(e, signal);
      answer(connection, request, TmResponse.newBuilder().setAck(TmAck.getDefaultInstance()));
    }
  }

  private void sendSignal(Entry e, int signal) {
    toNode.accept(
        e.node,
        MomInbound.newBuilder()
            .setSignalTask(
                SignalTask.newBuilder().setJobId(job.getId()).setTaskId(e.id).setSignal(signal))
            .build());
  }

  /** Only the connection that relays a task feeds its stdin. */
  private void input(long connection, TmInput in) {
    Entry e = tasks.get(in.getTaskId());
    if (e == null || e.relay == null || e.relay != connection || e.ended) {
      return;
    }
    toNode.accept(
        e.node,
        MomInbound.newBuilder()
            .setTaskInput(
                TaskInput.newBuilder()
                    .setJobId(job.getId())
                    .setTaskId(e.id)
                    .setData(in.getData())
                    .setEof(in.getEof()))
            .build());
  }

  /**
   * A connection is gone: its waits are dropped, and tasks it relayed get SIGHUP, as over a dropped
   * ssh session; what they print from now on goes to the job's files.
   */
  public void closed(long connection) {
    for (Entry e : tasks.values()) {
      e.waiters.removeIf(w -> w.connection() == connection);
      if (e.relay != null && e.relay == connection) {
        e.relay = null;
        if (!e.ended) {
          sendSignal(e, Signals.SIGHUP);
        }
      }
    }
  }

  /** TASK_STARTED, TASK_OUTPUT or TASK_OBIT from a node of the job. */
  public void fromNode(MomInbound m) {
    switch (m.getBodyCase()) {
      case TASK_STARTED -> started(m.getTaskStarted());
      case TASK_OUTPUT -> output(m.getTaskOutput());
      case TASK_OBIT -> obit(m.getTaskObit());
      default -> log.warn("job {}: unexpected {}", job.getId(), m.getBodyCase());
    }
  }

  private void started(TaskStarted s) {
    Entry e = tasks.get(s.getTaskId());
    if (e == null || e.started) {
      return;
    }
    e.started = true;
    answered(e);
    e.pid = s.getPid();
    if (!s.getError().isEmpty()) {
      String why = "cannot start task " + e.id + " on " + e.node + ": " + s.getError();
      fail(e.spawnConnection, e.spawnRequest, why);
      e.ended = true;
      e.exitStatus = ExitStatus.EXEC_FAILED.code(); // a task that never ran
      e.error = s.getError();
      e.outputPieces = 0;
      deliverEnd(e);
      return;
    }
    if (e.node.equals(self)) {
      localSessions.add(s.getPid());
    }
    answer(
        e.spawnConnection,
        e.spawnRequest,
        TmResponse.newBuilder().setSpawned(TmSpawned.newBuilder().setTaskId(e.id).setNode(e.node)));
  }

  /**
   * Pieces are taken in order only; a repeated one is acknowledged again, one after a gap waits for
   * the node to resend what is missing.
   */
  private void output(TaskOutput piece) {
    Entry e = tasks.get(piece.getTaskId());
    if (e == null) {
      // A task from before this mom restarted: its output still belongs in the job's files.
      e = new Entry(piece.getTaskId(), piece.getNode(), null, 0, 0);
      e.started = true;
      e.expectedSeq = piece.getSeq();
      tasks.put(e.id, e);
    }
    if (piece.getSeq() != e.expectedSeq) {
      // A piece sent again: only what has really been passed on is acknowledged, so that a slow
      // reader keeps the task's node waiting rather than this mom's memory growing.
      if (piece.getSeq() < e.expectedSeq && e.written.get() >= 0) {
        acknowledge(e.node, e.id, e.written.get());
      }
      return;
    }
    e.expectedSeq++;
    String node = e.node;
    int id = e.id;
    long seq = piece.getSeq();
    var written = e.written;
    Runnable after =
        () -> {
          written.accumulateAndGet(seq, Math::max);
          acknowledge(node, id, seq);
        };
    if (e.relay != null) {
      endpoint.send(
          e.relay,
          TmResponse.newBuilder()
              .setId(e.spawnRequest)
              .setOutput(
                  TmOutput.newBuilder()
                      .setTaskId(id)
                      .setStream(piece.getStream())
                      .setData(piece.getData()))
              .build(),
          after);
    } else {
      output.write(piece.getStream(), piece.getData().toByteArray(), after);
    }
    if (e.ended && e.expectedSeq >= e.outputPieces) {
      deliverEnd(e);
    }
  }

  /** Runs on an outlet's thread: sending to an actor is safe from anywhere. */
  private void acknowledge(String node, int taskId, long seq) {
    toNode.accept(
        node,
        MomInbound.newBuilder()
            .setTaskOutputAck(
                TaskOutputAck.newBuilder().setJobId(job.getId()).setTaskId(taskId).setSeq(seq))
            .build());
  }

  private void obit(TaskObit obit) {
    toNode.accept(
        obit.getNode(),
        MomInbound.newBuilder()
            .setTaskObitAck(
                TaskObitAck.newBuilder().setJobId(job.getId()).setTaskId(obit.getTaskId()))
            .build());
    Entry e = tasks.get(obit.getTaskId());
    if (e == null || e.ended) {
      return;
    }
    e.started = true;
    answered(e);
    e.ended = true;
    if (e.node.equals(self)) {
      localSessions.remove(e.pid); // a reused pid must not let another session in
    }
    e.exitStatus = obit.getExitStatus();
    e.error = obit.getError();
    e.outputPieces = obit.getOutputPieces();
    if (obit.getExitStatus() != 0 || !obit.getError().isEmpty()) {
      log.info(
          "job {}: task {} on {} ended with status {}{}",
          job.getId(),
          e.id,
          e.node,
          obit.getExitStatus(),
          obit.getError().isEmpty() ? "" : " (" + obit.getError() + ")");
    }
    if (e.expectedSeq >= e.outputPieces) {
      deliverEnd(e);
    }
  }

  private void deliverEnd(Entry e) {
    if (e.endDelivered) {
      return;
    }
    e.endDelivered = true;
    for (Waiter w : e.waiters) {
      answer(w.connection(), w.request(), exited(e));
    }
    e.waiters.clear();
  }

  private TmResponse.Builder exited(Entry e) {
    return TmResponse.newBuilder()
        .setExited(
            TmExited.newBuilder()
                .setTaskId(e.id)
                .setNode(e.node)
                .setExitStatus(e.exitStatus)
                .setError(e.error));
  }

  /** SPAWN_TASK again to nodes that have not answered it. */
  public void resend() {
    for (Entry e : tasks.values()) {
      if (e.spawn != null) {
        toNode.accept(e.node, MomInbound.newBuilder().setSpawn(e.spawn).build());
      }
    }
  }

  /** The spawn's node has answered it: it need not be kept to be sent again. */
  private static void answered(Entry e) {
    e.spawn = null;
    e.held.run();
  }

  /** The job is over: no more requests; output still arriving goes to the job's files. */
  public void close() {
    if (endpoint != null) {
      endpoint.close();
    }
    for (Entry e : tasks.values()) {
      e.relay = null;
      e.waiters.clear();
    }
  }

  /** The job's output files are complete. */
  public void closeOutput() {
    output.close();
  }

  private void answer(long connection, long request, TmResponse.Builder response) {
    if (endpoint != null) {
      endpoint.send(connection, response.setId(request).build());
    }
  }

  private void fail(long connection, long request, String message) {
    answer(
        connection,
        request,
        TmResponse.newBuilder().setError(TmError.newBuilder().setMessage(message)));
  }
}

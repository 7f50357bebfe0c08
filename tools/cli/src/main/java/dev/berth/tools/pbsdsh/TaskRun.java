package dev.berth.tools.pbsdsh;

import dev.berth.client.Invocation;
import dev.berth.client.TmClient;
import dev.berth.client.TmException;
import dev.berth.proto.TmExited;
import dev.berth.proto.TmSpawn;
import dev.berth.proto.TmSpawned;
import dev.berth.tools.pbsdsh.Targets.Target;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One pbsdsh run over its targets: starts the tasks, waits for them and keeps the worst exit
 * status. Signals caught meanwhile go on to every task still running.
 */
final class TaskRun {
  private static final int NONE = -1;
  private static final byte[] NOTHING = new byte[0];

  private final Invocation invocation;
  private final PbsdshOptions options;
  private final TmClient client;
  private final Set<Integer> running = ConcurrentHashMap.newKeySet();
  private volatile int caught;
  private boolean connectionLost;
  private int status;

  TaskRun(Invocation invocation, PbsdshOptions options, TmClient client) {
    this.invocation = invocation;
    this.options = options;
    this.client = client;
  }

  /** {@code -o}: starts every task, output to the job's files, and waits for none. */
  int startAll(List<Target> targets) {
    List<CompletableFuture<TmSpawned>> spawns = new ArrayList<>();
    for (Target target : targets) {
      spawns.add(client.spawn(spawn(target, false)));
    }
    for (int i = 0; i < targets.size(); i++) {
      started(targets.get(i), spawns.get(i));
    }
    return status;
  }

  /** The default: starts every task, then waits for them all. */
  int allAtOnce(List<Target> targets) {
    List<CompletableFuture<TmSpawned>> spawns = new ArrayList<>();
    for (Target target : targets) {
      spawns.add(client.spawn(spawn(target, true)));
    }
    List<Integer> tasks = new ArrayList<>();
    List<CompletableFuture<TmExited>> waits = new ArrayList<>();
    for (int i = 0; i < targets.size(); i++) {
      int task = started(targets.get(i), spawns.get(i));
      tasks.add(task);
      waits.add(task == NONE ? null : track(task));
    }
    for (int i = 0; i < targets.size(); i++) {
      if (waits.get(i) != null) {
        finished(targets.get(i), tasks.get(i), waits.get(i));
      }
    }
    return status;
  }

  /** {@code -s}: one task after the other; after a caught signal no further task starts. */
  int oneByOne(List<Target> targets) {
    for (Target target : targets) {
      if (caught != 0) {
        break;
      }
      int task = started(target, client.spawn(spawn(target, true)));
      if (task != NONE) {
        finished(target, task, track(task));
      }
    }
    return status;
  }

  /** Passes a caught signal on to every running task. */
  void forward(int signal) {
    caught = signal;
    for (int task : running) {
      client.signal(task, signal);
    }
  }

  private TmSpawn spawn(Target target, boolean relay) {
    return TmSpawn.newBuilder()
        .setNode(target.node())
        .addAllArgv(options.argv())
        .putAllEnv(invocation.env())
        .setCwd(invocation.cwd().toAbsolutePath().toString())
        .setVnode(target.vnode())
        .setRelayOutput(relay)
        .build();
  }

  /** The started task's id, or {@link #NONE} when it did not start. */
  private int started(Target target, CompletableFuture<TmSpawned> spawn) {
    try {
      TmSpawned spawned = TaskManager.await(spawn);
      if (options.verbose()) {
        invocation.error(
            "task "
                + spawned.getTaskId()
                + " started on "
                + target.node()
                + " (vnode "
                + target.vnode()
                + ")");
      }
      return spawned.getTaskId();
    } catch (TmException | IOException e) {
      invocation.error(
          "cannot start "
              + options.program()
              + " on "
              + target.node()
              + ": "
              + TaskManager.describe(e));
      worst(1);
      return NONE;
    }
  }

  /** Closes the task's stdin (tasks get none, as in Torque) and asks for its end. */
  private CompletableFuture<TmExited> track(int task) {
    running.add(task);
    int signal = caught;
    if (signal != 0) {
      client.signal(task, signal);
    }
    try {
      client.input(task, NOTHING, true);
    } catch (IOException e) {
      // the connection is gone; waiting for the task reports it
    }
    return client.waitFor(task);
  }

  private void finished(Target target, int task, CompletableFuture<TmExited> wait) {
    try {
      TmExited exited = TaskManager.await(wait);
      int code = TaskStatus.normalise(exited.getExitStatus());
      if (exited.getExitStatus() < 0) {
        invocation.error(
            "task " + task + " on " + target.node() + " could not start: " + exited.getError());
      } else if (exited.getExitStatus() >= 256) {
        // A task killed by a signal (an OOM kill among them) is reported even without -v.
        invocation.error(
            "task "
                + task
                + " on "
                + target.node()
                + " was killed by signal "
                + (exited.getExitStatus() - 256)
                + " (status "
                + code
                + ")");
      } else if (options.verbose()) {
        invocation.error("task " + task + " on " + target.node() + " exited with status " + code);
      }
      worst(code);
    } catch (TmException e) {
      invocation.error(
          "cannot wait for task " + task + " on " + target.node() + ": " + e.getMessage());
      worst(1);
    } catch (IOException e) {
      if (!connectionLost) {
        connectionLost = true;
        invocation.error("lost the connection to the task manager: " + TaskManager.describe(e));
      }
      worst(1);
    } finally {
      running.remove(task);
    }
  }

  private void worst(int code) {
    status = Math.max(status, code);
  }
}

package dev.berth.tools.tmrsh;

import dev.berth.client.Getopt;
import dev.berth.client.Invocation;
import dev.berth.client.TmClient;
import dev.berth.client.TmException;
import dev.berth.proto.TmExited;
import dev.berth.proto.TmNode;
import dev.berth.proto.TmNodeList;
import dev.berth.proto.TmSpawn;
import dev.berth.tools.pbsdsh.JobNodes;
import dev.berth.tools.pbsdsh.OutputRelay;
import dev.berth.tools.pbsdsh.SignalTrap;
import dev.berth.tools.pbsdsh.TaskManager;
import dev.berth.tools.pbsdsh.TaskStatus;
import dev.berth.tools.pbsdsh.TmContext;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * {@code pbs_tmrsh [options] host command...}: an rsh/ssh look-alike that runs the command on a
 * node of the caller's job through the job's task manager, for MPI launchers (Open MPI's and
 * MPICH's) that start their daemons with rsh or ssh. Output, input, signals and the exit status
 * pass through as over an ssh session; like ssh it exits 255 for its own failures.
 */
public final class PbsTmrsh {
  /** ssh's status for its own errors. */
  static final int FAILED = 255;

  private static final List<String> FORWARDED = List.of("INT", "TERM", "HUP");
  private static final int CHUNK = 64 << 10;
  private static final byte[] NOTHING = new byte[0];

  private PbsTmrsh() {}

  public static int run(Invocation invocation) {
    return run(invocation, TmContext.DEFAULT);
  }

  public static int run(Invocation invocation, TmContext context) {
    TmrshCommandLine line;
    try {
      line = TmrshCommandLine.parse(invocation.args());
    } catch (Getopt.UsageException e) {
      invocation.error(e.getMessage());
      invocation.err().print(TmrshCommandLine.USAGE);
      return FAILED;
    }
    Optional<String> refusal = line.refusal(context.userName());
    if (refusal.isPresent()) {
      invocation.error(refusal.get());
      return FAILED;
    }
    if (line.command().isEmpty()) {
      invocation.error("no command given (interactive logins are not supported)");
      return FAILED;
    }
    OutputRelay relay = new OutputRelay(invocation.out(), invocation.err());
    try (TmClient client = TaskManager.connect(invocation, relay)) {
      return run(invocation, context, line, client);
    } catch (TaskManager.Unreachable e) {
      invocation.error(e.getMessage());
      return FAILED;
    }
  }

  private static int run(
      Invocation invocation, TmContext context, TmrshCommandLine line, TmClient client) {
    TmNode node;
    try {
      TmNodeList job = TaskManager.await(client.nodes());
      Optional<TmNode> found = JobNodes.find(job.getNodesList(), line.host());
      if (found.isEmpty()) {
        invocation.error(
            line.host()
                + " is not a node of job "
                + job.getJobId()
                + " (its nodes: "
                + JobNodes.names(job.getNodesList())
                + ")");
        return FAILED;
      }
      node = found.get();
    } catch (TmException | IOException e) {
      invocation.error("cannot get the job's nodes: " + TaskManager.describe(e));
      return FAILED;
    }
    int task;
    try {
      task = TaskManager.await(client.spawn(spawn(invocation, line, node))).getTaskId();
    } catch (TmException | IOException e) {
      invocation.error("cannot start a task on " + line.host() + ": " + TaskManager.describe(e));
      return FAILED;
    }
    SignalTrap.Installed trap =
        context.signals().install(FORWARDED, signal -> client.signal(task, signal));
    try {
      feed(invocation.in(), line.noStdin(), client, task);
      TmExited exited = TaskManager.await(client.waitFor(task));
      if (exited.getExitStatus() < 0) {
        invocation.error("cannot run the command on " + line.host() + ": " + exited.getError());
        return FAILED;
      }
      return TaskStatus.normalise(exited.getExitStatus());
    } catch (TmException e) {
      invocation.error("cannot wait for the task on " + line.host() + ": " + e.getMessage());
      return FAILED;
    } catch (IOException e) {
      invocation.error("lost the connection to the task manager: " + TaskManager.describe(e));
      return FAILED;
    } finally {
      trap.close();
    }
  }

  private static TmSpawn spawn(Invocation invocation, TmrshCommandLine line, TmNode node) {
    return TmSpawn.newBuilder()
        .setNode(node.getName())
        .addAllArgv(line.argv(invocation.env()))
        .putAllEnv(invocation.env())
        .setCwd("")
        .setVnode(node.getFirstVnode())
        .setRelayOutput(true)
        .build();
  }

  /** Copies stdin to the task on a daemon thread, or closes the task's stdin at once. */
  private static void feed(InputStream in, boolean noStdin, TmClient client, int task) {
    if (noStdin) {
      closeInput(client, task);
      return;
    }
    Thread copier = new Thread(() -> copy(in, client, task), "pbs_tmrsh-stdin");
    copier.setDaemon(true);
    copier.start();
  }

  private static void copy(InputStream in, TmClient client, int task) {
    byte[] buffer = new byte[CHUNK];
    try {
      int n;
      while ((n = in.read(buffer)) >= 0) {
        if (n > 0) {
          client.input(task, Arrays.copyOf(buffer, n), false);
        }
      }
    } catch (IOException e) {
      // stdin is unreadable or the connection is gone: close the task's stdin if still possible
    }
    closeInput(client, task);
  }

  private static void closeInput(TmClient client, int task) {
    try {
      client.input(task, NOTHING, true);
    } catch (IOException e) {
      // the connection is gone; waiting for the task reports it
    }
  }
}

package dev.berth.mom.tm;

import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;

/**
 * One task's standard input on its node: what its spawner sends (pbsdsh's, an MPI launcher's) is
 * written to the task's pipe by a thread of the task's own, since the task may never read it and a
 * blocked write must hold up only this task. What waits to be written has a budget a task, a job on
 * the node and the node (the moms of one JVM together); a task over one has its stdin closed, and
 * the bytes go back to the budgets once written, dropped or never to be written.
 */
public final class TaskStdin {
  /** stdin bytes a task may have waiting in this mom before its stdin is closed. */
  public static final long MAX_STDIN_QUEUED = 8L << 20;

  /** stdin bytes all tasks of a job on this node may have waiting together. */
  public static final long MAX_JOB_STDIN_QUEUED = 16L << 20;

  /**
   * stdin bytes the tasks of all jobs may have waiting in this JVM together (the moms of {@code
   * berth up} share one heap): a job cannot get past its own limit by spawning more tasks.
   */
  public static final long MAX_NODE_STDIN_QUEUED = 64L << 20;

  private static final AtomicLong nodeQueued = new AtomicLong();

  private final String jobId;
  private final int taskId;
  private final AtomicLong jobQueued;
  private final Logger log;
  private final AtomicLong queued = new AtomicLong();

  /** The task's pipe; null once closed. */
  private OutputStream pipe;

  /** The task's writer; null until the first write. */
  private ExecutorService writer;

  /**
   * @param jobQueued what the stdin of the job's tasks on this node has waiting, together
   */
  TaskStdin(String jobId, int taskId, OutputStream pipe, AtomicLong jobQueued, Logger log) {
    this.jobId = jobId;
    this.taskId = taskId;
    this.pipe = pipe;
    this.jobQueued = jobQueued;
    this.log = log;
  }

  /** Whether the task's stdin takes more. */
  boolean open() {
    return pipe != null;
  }

  /** {@code bytes} for the task, then its end of file with {@code endOfFile}. */
  void write(byte[] bytes, boolean endOfFile) {
    if (writer == null) {
      writer =
          Executors.newSingleThreadExecutor(
              r -> {
                Thread w = new Thread(r, "task-" + jobId + "-" + taskId + "-in");
                w.setDaemon(true);
                return w;
              });
    }
    OutputStream stdin = pipe;
    String full = full(bytes.length);
    if (full != null) {
      // The task does not read what its spawner sends: this mom will not hold more for it.
      log.warn("job {}: closing the stdin of task {}: {}", jobId, taskId, full);
    }
    byte[] data = full != null ? new byte[0] : bytes;
    boolean eof = full != null || endOfFile;
    List<AtomicLong> budgets = List.of(queued, jobQueued, nodeQueued);
    budgets.forEach(q -> q.addAndGet(data.length));
    writer.execute(
        new Write() {
          @Override
          public void run() {
            try {
              if (data.length > 0) {
                stdin.write(data);
                stdin.flush();
              }
              if (eof) {
                stdin.close();
              }
            } catch (IOException e) {
              // the task closed its stdin; what it did not read is dropped, as with a pipe
            } finally {
              dropped();
            }
          }

          @Override
          public void dropped() {
            budgets.forEach(q -> q.addAndGet(-data.length));
          }
        });
    if (eof) {
      pipe = null;
      writer.shutdown();
    }
  }

  /** A write to the stdin, whose bytes are given back also when it never runs. */
  private interface Write extends Runnable {
    void dropped();
  }

  /** Why {@code n} more bytes are too many, or null. */
  private String full(long n) {
    if (queued.get() + n > MAX_STDIN_QUEUED) {
      return "it does not read it (" + queued.get() + " bytes waiting, limit 8mb a task)";
    }
    if (jobQueued.get() + n > MAX_JOB_STDIN_QUEUED) {
      return "the job's tasks here have "
          + jobQueued.get()
          + " bytes of stdin waiting (limit 16mb a job)";
    }
    if (nodeQueued.get() + n > MAX_NODE_STDIN_QUEUED) {
      return "the node's tasks have " + nodeQueued.get() + " bytes of stdin waiting (limit 64mb)";
    }
    return null;
  }

  /** The task takes no stdin: its pipe closes at once. */
  void close() {
    try {
      pipe.close();
    } catch (IOException e) {
      // already closed
    }
    pipe = null;
  }

  /** The task has ended: what is queued is still written, then the writer ends. */
  void finish() {
    if (writer != null) {
      writer.shutdown();
    }
    pipe = null;
  }

  /** The job ends here: what was never written goes back to the budgets. */
  void drop() {
    if (writer != null) {
      for (Runnable never : writer.shutdownNow()) {
        ((Write) never).dropped();
      }
    }
  }
}

package dev.berth.mom.tm;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What the jobs' task-manager connections hold of this mom, counted against {@link TmLimits}:
 * connections, bytes of requests (per connection, per job, for the node) and bytes of answers not
 * yet written (per job, for the node). A request waits for room, since the thread reading it can;
 * an answer does not, since the thread offering it is the job's actor. Thread-safe.
 *
 * <p>A job's account closes with the job and gives back the requests it still holds: a request the
 * job's actor never finished (a message it dropped as it stopped) must not shrink the node's budget
 * for good. Answers and connections are given back by the connections themselves, which always
 * close.
 */
final class TmBudget {
  /** A limit that stopped something, by the name log lines and refusals give it. */
  enum Limit {
    JOB_CONNECTIONS("job_connections"),
    NODE_CONNECTIONS("node_connections"),
    CONNECTION_BYTES("connection_bytes"),
    JOB_BYTES("job_bytes"),
    NODE_BYTES("node_bytes"),
    JOB_REPLIES("job_replies"),
    NODE_REPLIES("node_replies"),
    JOB_ENDED("job_ended");

    final String setting;

    Limit(String setting) {
      this.setting = setting;
    }
  }

  /** What was refused, and why in words. */
  static final class Refused extends Exception {
    private static final long serialVersionUID = 1L;
    private final transient Limit limit;

    Refused(Limit limit, String why) {
      super(why, null, false, false);
      this.limit = limit;
    }

    Limit limit() {
      return limit;
    }
  }

  private final TmLimits limits;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition nodeRoom = lock.newCondition();
  private int connections;
  private long bytes;
  private long replies;
  private int waitingForNode;

  TmBudget(TmLimits limits) {
    this.limits = limits;
  }

  TmLimits limits() {
    return limits;
  }

  /** An account for a job that is starting to serve its task manager. */
  Job job(String jobId) {
    return new Job(jobId);
  }

  /** Connections open on the node. */
  int connections() {
    lock.lock();
    try {
      return connections;
    } finally {
      lock.unlock();
    }
  }

  /** Bytes of requests held for all jobs. */
  long bytes() {
    lock.lock();
    try {
      return bytes;
    } finally {
      lock.unlock();
    }
  }

  /** Bytes of answers not yet written, for all jobs. */
  long replies() {
    lock.lock();
    try {
      return replies;
    } finally {
      lock.unlock();
    }
  }

  /** What one job's connections hold. */
  final class Job {
    private final String jobId;
    private final Condition room = lock.newCondition();
    private int connections;
    private long bytes;
    private long replies;
    private boolean closed;

    private Job(String jobId) {
      this.jobId = jobId;
    }

    /** Counts a new connection of the job, or says which limit forbids it. */
    Connection open() throws Refused {
      lock.lock();
      try {
        if (closed) {
          throw new Refused(Limit.JOB_ENDED, "the job " + jobId + " has ended");
        }
        if (connections >= limits.jobConnections()) {
          throw new Refused(
              Limit.JOB_CONNECTIONS,
              "the job has "
                  + connections
                  + " task manager connections open (limit "
                  + limits.jobConnections()
                  + " a job)");
        }
        if (TmBudget.this.connections >= limits.nodeConnections()) {
          throw new Refused(
              Limit.NODE_CONNECTIONS,
              "the node has "
                  + TmBudget.this.connections
                  + " task manager connections open (limit "
                  + limits.nodeConnections()
                  + ")");
        }
        connections++;
        TmBudget.this.connections++;
        return new Connection(this);
      } finally {
        lock.unlock();
      }
    }

    /**
     * Counts {@code n} more bytes of answers to be written to a connection of the job, or says
     * which limit they do not fit.
     */
    void takeReply(long n) throws Refused {
      lock.lock();
      try {
        if (replies + n > limits.jobReplyBytes()) {
          throw new Refused(
              Limit.JOB_REPLIES,
              "the job's connections have "
                  + replies
                  + " bytes of answers unread (limit "
                  + TmLimits.size(limits.jobReplyBytes())
                  + " a job)");
        }
        if (TmBudget.this.replies + n > limits.nodeReplyBytes()) {
          throw new Refused(
              Limit.NODE_REPLIES,
              "the node's task manager connections have "
                  + TmBudget.this.replies
                  + " bytes of answers unread (limit "
                  + TmLimits.size(limits.nodeReplyBytes())
                  + ")");
        }
        replies += n;
        TmBudget.this.replies += n;
      } finally {
        lock.unlock();
      }
    }

    void releaseReply(long n) {
      lock.lock();
      try {
        replies -= n;
        TmBudget.this.replies -= n;
      } finally {
        lock.unlock();
      }
    }

    /** The job has ended: its requests count no more, and no connection may open. */
    void close() {
      lock.lock();
      try {
        if (closed) {
          return;
        }
        closed = true;
        TmBudget.this.bytes -= bytes;
        bytes = 0;
        room.signalAll();
        nodeRoom.signalAll();
      } finally {
        lock.unlock();
      }
    }

    /** Bytes of requests the job holds. */
    long bytes() {
      lock.lock();
      try {
        return bytes;
      } finally {
        lock.unlock();
      }
    }
  }

  /** What one connection holds. */
  final class Connection {
    private final Job job;
    private long bytes;
    private boolean closed;

    private Connection(Job job) {
      this.job = job;
    }

    /**
     * Takes {@code n} bytes for a request being read, waiting for room until {@code deadline}
     * ({@link System#nanoTime()}); then, or once the job has ended, says which limit it did not
     * fit.
     */
    void take(long n, long deadline) throws Refused {
      lock.lock();
      try {
        while (true) {
          Refused full = full(n);
          if (full == null) {
            bytes += n;
            if (!job.closed) {
              job.bytes += n;
              TmBudget.this.bytes += n;
            }
            return;
          }
          long left = deadline - System.nanoTime();
          if (full.limit() == Limit.JOB_ENDED
              || left <= 0
              || !await(full.limit() == Limit.NODE_BYTES, left)) {
            throw full;
          }
        }
      } finally {
        lock.unlock();
      }
    }

    /** Waits for room to be given back; false when interrupted. */
    private boolean await(boolean forNode, long nanos) {
      try {
        if (forNode) {
          waitingForNode++;
          try {
            nodeRoom.await(nanos, TimeUnit.NANOSECONDS);
          } finally {
            waitingForNode--;
          }
        } else {
          job.room.await(nanos, TimeUnit.NANOSECONDS);
        }
        return true;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }

    /** Which limit {@code n} more bytes would break, or null. */
    private Refused full(long n) {
      if (job.closed) {
        return new Refused(Limit.JOB_ENDED, "the job " + job.jobId + " has ended");
      }
      if (bytes + n > limits.connectionBytes()) {
        return new Refused(
            Limit.CONNECTION_BYTES,
            "the connection holds "
                + bytes
                + " bytes of requests (limit "
                + TmLimits.size(limits.connectionBytes())
                + " a connection)");
      }
      if (job.bytes + n > limits.jobBytes()) {
        return new Refused(
            Limit.JOB_BYTES,
            "the job's connections hold "
                + job.bytes
                + " bytes of requests (limit "
                + TmLimits.size(limits.jobBytes())
                + " a job)");
      }
      if (TmBudget.this.bytes + n > limits.nodeBytes()) {
        return new Refused(
            Limit.NODE_BYTES,
            "the node's task manager connections hold "
                + TmBudget.this.bytes
                + " bytes of requests (limit "
                + TmLimits.size(limits.nodeBytes())
                + ")");
      }
      return null;
    }

    /** Gives back {@code n} bytes of requests: read no further, or done with. */
    void release(long n) {
      lock.lock();
      try {
        bytes -= n;
        if (!job.closed) {
          job.bytes -= n;
          TmBudget.this.bytes -= n;
          job.room.signalAll();
          if (waitingForNode > 0) {
            nodeRoom.signalAll();
          }
        }
      } finally {
        lock.unlock();
      }
    }

    /** The connection has closed (once its answers are written or dropped). */
    void close() {
      lock.lock();
      try {
        if (!closed) {
          closed = true;
          job.connections--;
          TmBudget.this.connections--;
        }
      } finally {
        lock.unlock();
      }
    }
  }
}

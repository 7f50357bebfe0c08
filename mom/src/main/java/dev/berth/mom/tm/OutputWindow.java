package dev.berth.mom.tm;

import com.google.protobuf.ByteString;
import dev.berth.proto.TaskOutput;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.function.BiConsumer;

/**
 * One task's output on its way to the mother superior: read from the task's pipes by a thread per
 * stream into numbered pieces, at most {@link #WINDOW} of them unacknowledged (a reader that finds
 * no room stops reading, and a task that writes faster than its reader waits on its pipe), each
 * kept until the mother superior acknowledges it, and all sent again when nothing moved for a
 * resend interval. The reading threads only take window permits; the rest is the task host's, on
 * its actor.
 */
final class OutputWindow {
  /** Output pieces a task may have unacknowledged before its pipe is left unread. */
  static final int WINDOW = 16;

  static final int PIECE = 64 * 1024;

  private final String jobId;
  private final int taskId;
  private final String node;
  private final Semaphore window = new Semaphore(WINDOW);
  private final ArrayDeque<TaskOutput> unacked = new ArrayDeque<>();
  private long nextSeq;
  private long lastProgress;

  OutputWindow(String jobId, int taskId, String node) {
    this.jobId = jobId;
    this.taskId = taskId;
    this.node = node;
  }

  /**
   * Reads {@code in}, the task's {@code stream} (1 stdout, 2 stderr), on a thread of its own, one
   * window permit a piece: each piece goes to {@code read}, and null once the stream is over.
   */
  void read(InputStream in, int stream, BiConsumer<Integer, byte[]> read) {
    Thread reader =
        new Thread(
            () -> {
              byte[] buffer = new byte[PIECE];
              try (in) {
                while (true) {
                  window.acquire();
                  int n = in.read(buffer);
                  if (n < 0) {
                    break;
                  }
                  read.accept(stream, Arrays.copyOf(buffer, n));
                }
              } catch (IOException e) {
                // the pipe broke: the stream is over
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              read.accept(stream, null);
            },
            "task-" + jobId + "-" + taskId + (stream == 1 ? "-out" : "-err"));
    reader.setDaemon(true);
    reader.start();
  }

  /** The task has started: the resend interval counts from now. */
  void started() {
    lastProgress = System.currentTimeMillis();
  }

  /** The next piece, {@code data} of {@code stream}, kept until it is acknowledged. */
  TaskOutput piece(int stream, byte[] data) {
    TaskOutput piece =
        TaskOutput.newBuilder()
            .setJobId(jobId)
            .setTaskId(taskId)
            .setNode(node)
            .setSeq(nextSeq++)
            .setStream(stream)
            .setData(ByteString.copyFrom(data))
            .build();
    if (unacked.isEmpty()) {
      lastProgress = System.currentTimeMillis();
    }
    unacked.add(piece);
    return piece;
  }

  /**
   * The mother superior has every piece up to {@code seq}: their permits go back to the readers.
   */
  void acknowledged(long seq) {
    while (!unacked.isEmpty() && unacked.peek().getSeq() <= seq) {
      unacked.poll();
      window.release();
      lastProgress = System.currentTimeMillis();
    }
  }

  /**
   * The pieces to send again at {@code now}: all unacknowledged, when none moved for {@code
   * resend}.
   */
  List<TaskOutput> due(long now, Duration resend) {
    if (unacked.isEmpty() || now - lastProgress < resend.toMillis()) {
      return List.of();
    }
    lastProgress = now;
    return List.copyOf(unacked);
  }

  /** Whether every piece has been acknowledged. */
  boolean acknowledged() {
    return unacked.isEmpty();
  }

  /** How many pieces the task's output came to. */
  long pieces() {
    return nextSeq;
  }

  /**
   * No piece will be acknowledged any more (the tasks here are ended): readers waiting for a window
   * that will never open again read on to the end of the pipe.
   */
  void close() {
    window.release(Integer.MAX_VALUE / 2);
  }
}

package dev.berth.mom.output;

import java.io.IOException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Consumer;

/**
 * Bytes for one blocking destination (a task manager connection, a job's output file), written in
 * order by a thread of their own so that a slow reader never holds up an actor. Each piece may
 * carry an action run once it is written (or dropped): the acknowledgement that lets the task's
 * node read more, so a task that outpaces its reader waits on its pipe instead of filling memory.
 */
public final class Outlet {
  /** Where the bytes go. */
  public interface Destination {
    void write(byte[] data) throws IOException;

    public void close() throws IOException;
  }

  private record Piece(byte[] data, Runnable after) {}

  private static final Piece END = new Piece(new byte[0], () -> {});

  /**
   * Bytes an outlet holds for a destination that does not take them before it gives up on it: task
   * output is held back at its node by acknowledgements, so only answers a client asks for and does
   * not read can pile up here.
   */
  static final long MAX_QUEUED = 16L << 20;

  private final LinkedBlockingQueue<Piece> queue = new LinkedBlockingQueue<>();
  private long queued;
  private boolean overflowed;
  private final Destination destination;
  private final Consumer<IOException> onFailure;
  private boolean closed;

  /** Starts the writer thread; {@code onFailure} hears once about a destination that broke. */
  public Outlet(String name, Destination destination, Consumer<IOException> onFailure) {
    this.destination = destination;
    this.onFailure = onFailure;
    Thread writer = new Thread(this::drain, name);
    writer.setDaemon(true);
    writer.start();
  }

  /**
   * Queues {@code data}; {@code after} runs once it is written, or at once if the outlet is shut.
   */
  public synchronized void offer(byte[] data, Runnable after) {
    if (closed || overflowed) {
      after.run();
      return;
    }
    queued += data.length;
    if (queued > MAX_QUEUED) {
      overflowed = true;
      onFailure.accept(new IOException("the reader takes nothing; " + queued + " bytes waiting"));
      close();
      after.run();
      return;
    }
    queue.add(new Piece(data, after));
  }

  private synchronized void written(int bytes) {
    queued -= bytes;
  }

  /** Writes what is queued, then closes the destination. */
  public synchronized void close() {
    if (!closed) {
      closed = true;
      queue.add(END);
    }
  }

  private synchronized boolean overflowed() {
    return overflowed;
  }

  private void drain() {
    boolean broken = false;
    try {
      while (true) {
        Piece p = queue.take();
        if (p == END) {
          break;
        }
        if (!broken && !overflowed()) {
          try {
            destination.write(p.data());
          } catch (IOException e) {
            broken = true;
            onFailure.accept(e);
          }
        }
        written(p.data().length);
        p.after().run();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      synchronized (this) {
        closed = true;
      }
      queue.forEach(p -> p.after().run());
      try {
        destination.close();
      } catch (IOException e) {
        // closing what already failed or ended
      }
    }
  }
}

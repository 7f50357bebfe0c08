package dev.berth.server.journal;

import dev.berth.proto.Event;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Batches waiting to be made durable, and the one thread that writes them: it takes every batch
 * that has arrived while the previous write was in progress and hands them to the journal as one
 * group (one sync, or one transaction), which is what lets many concurrent submissions share a
 * write.
 */
final class GroupCommit {
  /** Events waiting, and who hears when they are durable. */
  record Pending(List<Event> events, CompletableFuture<Void> done) {}

  private final BlockingQueue<Pending> queue = new LinkedBlockingQueue<>();
  private final Consumer<List<Pending>> write;
  private final Thread writer;
  private volatile boolean closed;

  /**
   * Starts the writer thread; {@code write} makes a group durable and completes (or fails) each
   * pending future.
   */
  GroupCommit(String name, Consumer<List<Pending>> write) {
    this.write = write;
    writer = new Thread(this::loop, name);
    writer.setDaemon(true);
    writer.start();
  }

  CompletableFuture<Void> append(List<Event> batch) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    synchronized (queue) { // so that no batch lands in the queue after the writer has left
      if (closed) {
        done.completeExceptionally(new JournalException("the journal is closed"));
        return done;
      }
      queue.add(new Pending(List.copyOf(batch), done));
    }
    return done;
  }

  private void loop() {
    List<Pending> group = new ArrayList<>();
    while (!closed || !queue.isEmpty()) {
      try {
        Pending first = queue.poll(100, TimeUnit.MILLISECONDS);
        if (first == null) {
          continue;
        }
        group.add(first);
        queue.drainTo(group);
        write.accept(group);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } finally {
        group.clear();
      }
    }
  }

  /** Writes what is waiting, then stops the writer; returns false if it was closed already. */
  boolean close(Duration timeout) {
    synchronized (queue) {
      if (closed) {
        return false;
      }
      closed = true;
    }
    try {
      writer.join(timeout.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return true;
  }
}

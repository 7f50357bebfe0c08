package dev.berth.server.relay;

import dev.berth.core.Sizes;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What the relays may make the server hold: the bytes of requests read and not yet answered and of
 * replies made and not yet written, per submit host and for the whole port. A relay's connection is
 * read from only while its host and the port have room, so a login host someone has taken over
 * holds at most its host's share however many requests it sends and however few replies it reads,
 * and all relays together at most the port's. Replies are counted but never refused (the server has
 * made them); they keep their host from sending more until they are written. Thread-safe.
 */
final class RelayBudget {
  private final long hostBytes;
  private final long portBytes;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition room = lock.newCondition();
  private final Map<String, Long> held = new HashMap<>();
  private long total;

  /**
   * @param hostBytes what one submit host's connections may hold together
   * @param portBytes what all of them may hold together
   */
  RelayBudget(long hostBytes, long portBytes) {
    if (portBytes < hostBytes) {
      throw new IllegalArgumentException("the port's budget must hold a host's");
    }
    this.hostBytes = hostBytes;
    this.portBytes = portBytes;
  }

  /**
   * The budget for requests of at most {@code frameBytes} each, on a server whose local clients may
   * hold {@code bufferBytes}: the port as much as the local clients, but at least four of the
   * largest requests and at most sixteen; a host a quarter of that, but at least one largest
   * request and at most four.
   */
  static RelayBudget forFrames(int frameBytes, long bufferBytes) {
    long port = Math.min(Math.max(bufferBytes, 4L * frameBytes), 16L * frameBytes);
    return new RelayBudget(Math.min(Math.max(port / 4, frameBytes), 4L * frameBytes), port);
  }

  long hostBytes() {
    return hostBytes;
  }

  long portBytes() {
    return portBytes;
  }

  /**
   * Counts {@code bytes} of a request of {@code host}, waiting up to {@code patience} until they
   * fit in its share and the port's; a request no larger than a host's share always fits once the
   * host holds nothing.
   */
  void takeRequest(String host, long bytes, Duration patience) throws IOException {
    long deadline = System.nanoTime() + patience.toNanos();
    lock.lock();
    try {
      while (!fits(host, bytes)) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new IOException(
              "the relay of "
                  + host
                  + " has no room for a request of "
                  + Sizes.format(bytes)
                  + " within "
                  + (patience.toMillis() < 1000
                      ? patience.toMillis() + " ms"
                      : patience.toSeconds() + " s")
                  + ": its host holds "
                  + Sizes.format(held.getOrDefault(host, 0L))
                  + " of "
                  + Sizes.format(hostBytes)
                  + ", all relays "
                  + Sizes.format(total)
                  + " of "
                  + Sizes.format(portBytes)
                  + " in requests not yet answered and replies not yet read");
        }
        room.await(left, TimeUnit.NANOSECONDS);
      }
      add(host, bytes);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while waiting for room", e);
    } finally {
      lock.unlock();
    }
  }

  /** Counts a reply for {@code host}, whatever it holds already. */
  void takeReply(String host, long bytes) {
    lock.lock();
    try {
      add(host, bytes);
    } finally {
      lock.unlock();
    }
  }

  /** Gives back {@code bytes} that {@code host} held. */
  void giveBack(String host, long bytes) {
    if (bytes == 0) {
      return;
    }
    lock.lock();
    try {
      long left = held.getOrDefault(host, 0L) - bytes;
      if (left <= 0) {
        held.remove(host);
      } else {
        held.put(host, left);
      }
      total -= bytes;
      room.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** What {@code host} holds now. */
  long held(String host) {
    lock.lock();
    try {
      return held.getOrDefault(host, 0L);
    } finally {
      lock.unlock();
    }
  }

  /** What all hosts hold now. */
  long total() {
    lock.lock();
    try {
      return total;
    } finally {
      lock.unlock();
    }
  }

  private boolean fits(String host, long bytes) {
    long ofHost = held.getOrDefault(host, 0L);
    return (ofHost == 0 || ofHost + bytes <= hostBytes) && total + bytes <= portBytes;
  }

  private void add(String host, long bytes) {
    held.merge(host, bytes, Long::sum);
    total += bytes;
  }
}

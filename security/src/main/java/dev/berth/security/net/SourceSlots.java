package dev.berth.security.net;

import java.util.HashMap;
import java.util.Map;

/**
 * Slots of something a port gives each connection for a while (a handshake in progress, a
 * connection), bounded in all and per source ({@link Sources}), so that one host cannot take them
 * all. Remembers only sources that hold a slot. Thread-safe.
 */
public final class SourceSlots {
  /** Why a slot was not given. */
  public enum Refusal {
    /** Every slot is taken. */
    ALL,
    /** The source holds its share. */
    SOURCE
  }

  private final int total;
  private final int perSource;
  private final Map<String, Integer> held = new HashMap<>();
  private int taken;

  /**
   * @param total slots in all
   * @param perSource slots one source may hold at once
   */
  public SourceSlots(int total, int perSource) {
    if (total < 1 || perSource < 1) {
      throw new IllegalArgumentException("slots must be positive: " + total + ", " + perSource);
    }
    this.total = total;
    this.perSource = perSource;
  }

  /** Takes a slot for {@code source}; null when taken, else why not. */
  public synchronized Refusal take(String source) {
    if (taken >= total) {
      return Refusal.ALL;
    }
    int now = held.getOrDefault(source, 0);
    if (now >= perSource) {
      return Refusal.SOURCE;
    }
    held.put(source, now + 1);
    taken++;
    return null;
  }

  /** Gives back a slot {@code source} took. */
  public synchronized void release(String source) {
    Integer now = held.get(source);
    if (now == null) {
      throw new IllegalStateException(source + " holds no slot");
    }
    if (now == 1) {
      held.remove(source);
    } else {
      held.put(source, now - 1);
    }
    taken--;
  }

  /** Slots taken now. */
  public synchronized int taken() {
    return taken;
  }

  /** Slots {@code source} holds now. */
  public synchronized int held(String source) {
    return held.getOrDefault(source, 0);
  }

  public int total() {
    return total;
  }

  public int perSource() {
    return perSource;
  }
}

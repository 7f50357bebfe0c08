package dev.berth.core;

/**
 * What one input may make a daemon hold at its worst: every unit (connection, user, job, reply) at
 * its limit at once. Each input states its own, next to its limits; a daemon adds up the budgets of
 * the inputs it serves and refuses to start when they do not fit in its heap, and docs/security.md
 * keeps the table of them.
 *
 * @param input what is taken: a port, a socket, replies, a kind of state
 * @param limits the limits that bound it, per unit and in total, in words
 * @param heapBytes the most it makes the daemon hold on its heap
 * @param threads the most threads it takes (their stacks are outside the heap)
 */
public record Budget(String input, String limits, long heapBytes, int threads) {
  public Budget {
    if (heapBytes < 0 || threads < 0) {
      throw new IllegalArgumentException(input + ": a budget cannot be negative");
    }
  }
}

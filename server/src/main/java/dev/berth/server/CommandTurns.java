package dev.berth.server;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executor;

/**
 * Runs the native client's commands on a few threads with the users taking turns: each user has at
 * most {@code perUser} commands running, and a user whose commands wait goes to the back of the
 * line after each one starts. So one user's 64 parallel shell loops cannot keep another user's
 * qstat waiting behind them; that user's next command starts as soon as a thread is free.
 */
final class CommandTurns {
  private final Executor threads;
  private final int perUser;
  private final Map<String, Deque<Runnable>> waiting = new HashMap<>();
  private final Map<String, Integer> running = new HashMap<>();

  /** Users with a command waiting and room to run one, in the order they get a thread. */
  private final Deque<String> turns = new ArrayDeque<>();

  /**
   * @param threads runs the commands; its threads bound how many run at once
   */
  CommandTurns(Executor threads, int perUser) {
    this.threads = threads;
    this.perUser = perUser;
  }

  /** Runs {@code command} for {@code user} when it is their turn. */
  void submit(String user, Runnable command) {
    synchronized (this) {
      waiting.computeIfAbsent(user, u -> new ArrayDeque<>()).add(command);
      if (!queueTurn(user)) {
        return;
      }
    }
    threads.execute(this::runNext);
  }

  /** Puts {@code user} in line if they have a command waiting and room to run it. */
  private boolean queueTurn(String user) {
    Deque<Runnable> mine = waiting.get(user);
    if (mine == null || mine.isEmpty() || running.getOrDefault(user, 0) >= perUser) {
      return false;
    }
    if (turns.contains(user)) {
      return false;
    }
    turns.add(user);
    return true;
  }

  private void runNext() {
    String user;
    Runnable command;
    boolean again;
    synchronized (this) {
      user = turns.poll();
      if (user == null) {
        return;
      }
      Deque<Runnable> mine = waiting.get(user);
      command = mine.poll();
      if (mine.isEmpty()) {
        waiting.remove(user);
      }
      running.merge(user, 1, Integer::sum);
      again = queueTurn(user); // to the back of the line
    }
    if (again) {
      threads.execute(this::runNext);
    }
    try {
      command.run();
    } finally {
      boolean next;
      synchronized (this) {
        if (running.merge(user, -1, Integer::sum) == 0) {
          running.remove(user);
        }
        next = queueTurn(user);
      }
      if (next) {
        threads.execute(this::runNext);
      }
    }
  }
}

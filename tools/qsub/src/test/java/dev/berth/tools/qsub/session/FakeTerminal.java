package dev.berth.tools.qsub.session;

import dev.berth.proto.WindowSize;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A terminal in the test's hands: the test says whether stdin is one and how large it is, types
 * answers, and sends Ctrl-C and resizes; it records raw mode.
 */
public final class FakeTerminal implements Terminal {
  /** An answer that never comes (readLine waits out its timeout). */
  public static final String SILENCE = "\u0000silence";

  private final boolean terminal;
  private volatile WindowSize size;
  private final BlockingQueue<String> answers = new LinkedBlockingQueue<>();
  private volatile Runnable interrupt;
  private volatile Runnable resize;
  public volatile int rawEntered;
  public volatile int rawRestored;
  public volatile int questions;

  public FakeTerminal(boolean terminal, WindowSize size) {
    this.terminal = terminal;
    this.size = size;
  }

  public FakeTerminal answer(String line) {
    answers.add(line);
    return this;
  }

  /** Ctrl-C (or SIGTERM), if qsub is listening for it. */
  public void interrupt() {
    Runnable action = interrupt;
    if (action != null) {
      action.run();
    }
  }

  /** The window changes size; waits until qsub listens for that. */
  public void resize(WindowSize newSize) throws InterruptedException {
    size = newSize;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (resize == null && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    resize.run();
  }

  public boolean listensForInterrupts() {
    return interrupt != null;
  }

  @Override
  public boolean isTerminal() {
    return terminal;
  }

  @Override
  public Optional<WindowSize> size() {
    return Optional.ofNullable(size);
  }

  @Override
  public Handle raw() {
    if (!terminal) {
      return () -> {};
    }
    rawEntered++;
    boolean[] closed = {false};
    return () -> {
      if (!closed[0]) {
        closed[0] = true;
        rawRestored++;
      }
    };
  }

  @Override
  public Optional<String> readLine(Duration timeout) {
    questions++;
    String line = answers.poll();
    if (line == null || line.equals(SILENCE)) {
      try {
        Thread.sleep(timeout.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return Optional.empty();
    }
    return Optional.of(line);
  }

  @Override
  public Handle onInterrupt(Runnable action) {
    interrupt = action;
    return () -> interrupt = null;
  }

  @Override
  public Handle onResize(Runnable action) {
    resize = action;
    return () -> resize = null;
  }
}

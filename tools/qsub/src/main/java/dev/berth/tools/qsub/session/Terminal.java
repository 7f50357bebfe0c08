package dev.berth.tools.qsub.session;

import dev.berth.proto.WindowSize;
import java.time.Duration;
import java.util.Optional;

/**
 * The user's terminal as an interactive session needs it, and the signals it sends: whether
 * standard input is one, its size, raw mode, a line typed in answer to a question, and Ctrl-C and
 * resizes. {@code os.ProcessTerminal} is the real one; {@link #NONE} is no terminal at all; tests
 * hand in fakes.
 */
public interface Terminal {
  /** Something to undo (raw mode, a signal handler); closing it twice does nothing more. */
  interface Handle extends AutoCloseable {
    @Override
    void close();
  }

  /** Whether standard input is a terminal (with {@code -x} it may be a file or a pipe). */
  boolean isTerminal();

  /** The window's size, if there is a terminal to ask. */
  Optional<WindowSize> size();

  /**
   * Puts the terminal into raw mode (no echo, no line editing, no signals from keys: every byte
   * goes to the job) until the returned handle is closed, which restores it; also restored if the
   * process ends first. Does nothing when standard input is not a terminal.
   */
  Handle raw();

  /**
   * The next line the user types (without its newline), waiting at most {@code timeout}; empty when
   * no answer came: the time ran out, input ended, or there is no terminal to ask.
   */
  Optional<String> readLine(Duration timeout);

  /** Runs {@code action} on each SIGINT or SIGTERM until the returned handle is closed. */
  Handle onInterrupt(Runnable action);

  /** Runs {@code action} each time the window is resized (SIGWINCH) until the handle is closed. */
  Handle onResize(Runnable action);

  /** No terminal: standard input is a file or a pipe, and no signal is caught. */
  Terminal NONE =
      new Terminal() {
        @Override
        public boolean isTerminal() {
          return false;
        }

        @Override
        public Optional<WindowSize> size() {
          return Optional.empty();
        }

        @Override
        public Handle raw() {
          return () -> {};
        }

        @Override
        public Optional<String> readLine(Duration timeout) {
          return Optional.empty();
        }

        @Override
        public Handle onInterrupt(Runnable action) {
          return () -> {};
        }

        @Override
        public Handle onResize(Runnable action) {
          return () -> {};
        }
      };
}

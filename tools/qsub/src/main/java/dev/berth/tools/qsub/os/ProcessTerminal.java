package dev.berth.tools.qsub.os;

import dev.berth.proto.WindowSize;
import dev.berth.tools.qsub.session.Terminal;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * This process's terminal: its standard input, set with {@code stty} (Java has no termios), and the
 * signals it sends, caught with {@code sun.misc.Signal}. Nothing is run or caught before an
 * interactive job needs it, so constructing one costs nothing.
 */
public final class ProcessTerminal implements Terminal {
  private static final File TTY = new File("/dev/tty");
  private static final long STTY_WAIT_SECONDS = 5;

  private final InputStream in;
  private boolean probed;
  private Optional<String> saved = Optional.empty(); // stty -g of standard input, if a terminal

  /**
   * @param in standard input, which answers questions when it is the terminal
   */
  public ProcessTerminal(InputStream in) {
    this.in = in;
  }

  @Override
  public synchronized boolean isTerminal() {
    if (!probed) {
      saved = stty(ProcessBuilder.Redirect.INHERIT, "-g").map(String::strip);
      probed = true;
    }
    return saved.isPresent();
  }

  @Override
  public Optional<WindowSize> size() {
    ProcessBuilder.Redirect from =
        isTerminal() ? ProcessBuilder.Redirect.INHERIT : ProcessBuilder.Redirect.from(TTY);
    String[] words = stty(from, "size").map(String::strip).orElse("").split("\\s+");
    try {
      int rows = Integer.parseInt(words[0]);
      int columns = Integer.parseInt(words[1]);
      return rows > 0 && columns > 0
          ? Optional.of(WindowSize.newBuilder().setRows(rows).setColumns(columns).build())
          : Optional.empty();
    } catch (NumberFormatException | ArrayIndexOutOfBoundsException e) {
      return Optional.empty();
    }
  }

  @Override
  public Handle raw() {
    if (!isTerminal()) {
      return () -> {};
    }
    String settings = saved.get();
    AtomicBoolean restored = new AtomicBoolean();
    Runnable restore =
        () -> {
          if (restored.compareAndSet(false, true)) {
            stty(ProcessBuilder.Redirect.INHERIT, settings);
          }
        };
    Thread onExit = new Thread(restore, "qsub-terminal-restore");
    Runtime.getRuntime().addShutdownHook(onExit); // a signal that ends qsub restores it too
    stty(ProcessBuilder.Redirect.INHERIT, "raw", "-echo");
    return () -> {
      restore.run();
      try {
        Runtime.getRuntime().removeShutdownHook(onExit);
      } catch (IllegalStateException e) {
        // already shutting down: the hook runs, and finds the terminal restored
      }
    };
  }

  @Override
  public Optional<String> readLine(Duration timeout) {
    boolean fromStdin = isTerminal();
    InputStream source;
    try {
      source = fromStdin ? in : new FileInputStream(TTY); // else stdin is the job's (-x)
    } catch (IOException e) {
      return Optional.empty();
    }
    CompletableFuture<String> line = new CompletableFuture<>();
    Runnable read =
        () -> {
          line.complete(readLine(source));
          if (!fromStdin) {
            closeQuietly(source);
          }
        };
    Thread reader = new Thread(read, "qsub-answer");
    reader.setDaemon(true); // still blocked if no answer comes: qsub deletes the job and ends
    reader.start();
    try {
      return Optional.ofNullable(line.get(timeout.toMillis(), TimeUnit.MILLISECONDS));
    } catch (TimeoutException | ExecutionException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  /** A line of {@code source}, or null at its end. */
  private static String readLine(InputStream source) {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    try {
      for (int b = source.read(); b != '\n'; b = source.read()) {
        if (b < 0) {
          return null;
        }
        line.write(b);
      }
      return line.toString(StandardCharsets.UTF_8);
    } catch (IOException e) {
      return null;
    }
  }

  private static void closeQuietly(InputStream stream) {
    try {
      stream.close();
    } catch (IOException e) {
      // read already: nothing more to do with it
    }
  }

  @Override
  public Handle onInterrupt(Runnable action) {
    return handle(action, "INT", "TERM");
  }

  @Override
  public Handle onResize(Runnable action) {
    return handle(action, "WINCH");
  }

  /** Catches {@code names} until closed, then puts back what caught them before (the JVM's). */
  private static Handle handle(Runnable action, String... names) {
    List<Signal> caught = new ArrayList<>();
    List<SignalHandler> before = new ArrayList<>();
    for (String name : names) {
      try {
        Signal signal = new Signal(name);
        before.add(Signal.handle(signal, s -> action.run()));
        caught.add(signal);
      } catch (IllegalArgumentException e) {
        // not a signal here, or the JVM keeps it (-Xrs): left as it is
      }
    }
    AtomicBoolean closed = new AtomicBoolean();
    return () -> {
      if (closed.compareAndSet(false, true)) {
        for (int i = 0; i < caught.size(); i++) {
          Signal.handle(caught.get(i), before.get(i));
        }
      }
    };
  }

  /** Runs {@code stty args} on the terminal {@code from}; its output if it succeeded. */
  private static Optional<String> stty(ProcessBuilder.Redirect from, String... args) {
    List<String> command = new ArrayList<>(List.of("stty"));
    command.addAll(List.of(args));
    try {
      Process stty =
          new ProcessBuilder(command)
              .redirectInput(from)
              .redirectError(ProcessBuilder.Redirect.DISCARD)
              .start();
      if (!stty.waitFor(STTY_WAIT_SECONDS, TimeUnit.SECONDS)) { // stopped (SIGTTOU) or stuck
        stty.destroyForcibly();
        return Optional.empty();
      }
      byte[] output = stty.getInputStream().readAllBytes(); // a line: it fits in the pipe
      return stty.exitValue() == 0
          ? Optional.of(new String(output, StandardCharsets.UTF_8))
          : Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }
}

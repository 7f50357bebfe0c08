package dev.berth.it;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A command run as a user on a pseudo-terminal of its own (util-linux {@code script}), driven as a
 * person at a keyboard would: the test types, and reads what the terminal shows.
 */
final class TerminalDriver implements AutoCloseable {
  private final Process process;
  private final OutputStream keys;
  private final StringBuffer screen = new StringBuffer();
  private final Thread reader;

  /** How far {@link #await} has read: each wait looks only at what came after the last match. */
  private int seen;

  private TerminalDriver(Process process) {
    this.process = process;
    this.keys = process.getOutputStream();
    InputStream out = process.getInputStream();
    this.reader =
        new Thread(
            () -> {
              byte[] buffer = new byte[8192];
              try {
                int n;
                while ((n = out.read(buffer)) > 0) {
                  screen.append(new String(buffer, 0, n, StandardCharsets.UTF_8));
                }
              } catch (IOException e) {
                // the terminal closed
              }
            },
            "terminal-reader");
    reader.setDaemon(true);
    reader.start();
  }

  /**
   * Runs the shell line {@code command} as {@code user} in {@code dir} on a terminal whose window
   * is {@code rows} x {@code columns}, with {@code env} (NAME=value) added.
   */
  static TerminalDriver start(
      String user, Path dir, List<String> env, int rows, int columns, String command)
      throws IOException {
    return start(UnaryOperator.identity(), user, dir, env, rows, columns, command);
  }

  /** {@link #start} on {@code host}. */
  static TerminalDriver startOn(
      VirtualHosts.Host host,
      String user,
      Path dir,
      List<String> env,
      int rows,
      int columns,
      String command)
      throws IOException {
    return start(host::command, user, dir, env, rows, columns, command);
  }

  private static TerminalDriver start(
      UnaryOperator<List<String>> on,
      String user,
      Path dir,
      List<String> env,
      int rows,
      int columns,
      String command)
      throws IOException {
    String line = "stty rows " + rows + " cols " + columns + "; exec " + command;
    List<String> argv =
        new java.util.ArrayList<>(List.of("runuser", "-u", user, "--", "env", "SHELL=/bin/sh"));
    argv.addAll(env);
    // in dir on the host, whatever directory entering its namespaces leaves
    argv.addAll(
        List.of(
            "sh", "-c", "cd \"$0\" && exec script -qfec \"$1\" /dev/null", dir.toString(), line));
    return new TerminalDriver(
        new ProcessBuilder(on.apply(argv))
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .start());
  }

  /** Types {@code text}. */
  void type(String text) throws IOException {
    keys.write(text.getBytes(StandardCharsets.UTF_8));
    keys.flush();
  }

  /** Waits until the terminal shows {@code pattern} after the last match; returns the match. */
  Matcher await(Pattern pattern, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      Matcher m = pattern.matcher(screen.substring(seen));
      if (m.find()) {
        Matcher whole = pattern.matcher(screen);
        whole.find(seen);
        seen = whole.end();
        return whole;
      }
      if (!process.isAlive()
          && !reader.isAlive()
          && !pattern.matcher(screen.substring(seen)).find()) {
        fail("the terminal's command ended without showing " + pattern + ":\n" + screen);
      }
      TestCluster.sleep(50);
    }
    fail("the terminal did not show " + pattern + " within " + timeout + ":\n" + screen);
    return null;
  }

  Matcher await(String regex) {
    return await(Pattern.compile(regex), Duration.ofSeconds(60));
  }

  /** The command's exit status, once it has ended. */
  int exitStatus(Duration timeout) throws InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      fail("the terminal's command did not end within " + timeout + ":\n" + screen);
    }
    return process.exitValue();
  }

  String screen() {
    return screen.toString();
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
    }
  }
}

package dev.berth.it;

import static org.junit.jupiter.api.Assertions.fail;

import dev.berth.client.BerthClient;
import dev.berth.client.ServerUnavailableException;
import dev.berth.proto.Request;
import dev.berth.proto.StatServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A Berth server as a real separate process (as berth-server.service starts it, no moms), so a test
 * can kill it with SIGKILL (or stop it with SIGSTOP) and start it again on the same home.
 */
final class ServerProcess implements AutoCloseable {
  /**
   * The client limits the tests' small servers (256 MiB; 512 MiB with a relay port) start with:
   * fewer connections than the defaults, so that the budgets of their inputs fit in such a heap
   * (docs/security.md, "Budgets").
   */
  static final String SMALL_HEAP_LIMITS = "connections=1024";

  final Path home;
  final Path socket;
  private final List<String> options = new java.util.ArrayList<>();
  private final List<String> javaOptions = new java.util.ArrayList<>();
  private final java.util.Map<String, String> environment = new java.util.HashMap<>();
  private Process process;
  private int logStart;

  ServerProcess(Path home, String... options) throws IOException {
    this.home = home;
    this.socket = home.resolve("server.sock");
    this.options.addAll(List.of(options));
    TestAuthority.ensure(home);
  }

  /** Adds JVM options ({@code -Dname=value}) to the server's next start. */
  ServerProcess javaOptions(String... more) {
    javaOptions.addAll(List.of(more));
    return this;
  }

  /** Sets {@code name} in the environment of the server's next start (BERTH_HEAP, say). */
  ServerProcess environment(String name, String value) {
    environment.put(name, value);
    return this;
  }

  long pid() {
    return process.pid();
  }

  boolean alive() {
    return process != null && process.isAlive();
  }

  /** Sends {@code signal} (STOP, CONT, ...) to the server process. */
  void signal(String signal) {
    TestCluster.Result r =
        TestCluster.exec(home, List.of("kill", "-" + signal, Long.toString(process.pid())));
    if (r.exit() != 0) {
      fail("kill -" + signal + " failed: " + r);
    }
  }

  /** Starts the server and waits until it answers; returns false if it exited instead. */
  boolean start() throws IOException {
    launch();
    return awaitLog(this::answers, "answer");
  }

  /** Starts a standby server and waits until it follows the journal. */
  boolean startStandby() throws IOException {
    launch();
    return awaitLog(
        () -> {
          String log = log().substring(logStart);
          return log.contains("standing by with the state") && log.contains("cluster member up");
        },
        "stand by");
  }

  private void launch() throws IOException {
    logStart = log().startsWith("(no log") ? 0 : log().length();
    List<String> conf =
        new java.util.ArrayList<>(
            List.of(
                "--home",
                home.toString(),
                "--socket",
                socket.toString(),
                "--nodes",
                "0",
                "--server-name",
                TestCluster.SERVER));
    conf.addAll(options);
    List<String> argv = Units.command("berth-server", home.resolve("server.conf"), conf);
    ProcessBuilder builder =
        new ProcessBuilder(argv)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(home.resolve("serve.log").toFile()));
    // RocksDB unpacks its native library into the temp directory; a SIGKILLed server cannot
    // delete it, so it goes into the home this test removes.
    List<String> java = new java.util.ArrayList<>(List.of("-Djava.io.tmpdir=" + home));
    java.addAll(javaOptions);
    builder.environment().put("BERTH_JAVA_OPTS", String.join(" ", java));
    builder.environment().putAll(environment);
    process = builder.start();
  }

  private boolean awaitLog(java.util.function.BooleanSupplier ready, String what) {
    Duration wait = TimeScale.of(Duration.ofSeconds(60));
    long deadline = System.currentTimeMillis() + wait.toMillis();
    while (System.currentTimeMillis() < deadline) {
      if (!process.isAlive()) {
        return false;
      }
      if (ready.getAsBoolean()) {
        return true;
      }
      TestCluster.sleep(100);
    }
    return fail("the server did not " + what + " within " + wait + ": " + log());
  }

  /** Whether it answers on its socket now. */
  boolean answers() {
    if (!Files.exists(socket)) {
      return false;
    }
    try (BerthClient c = BerthClient.connect(socket)) {
      return !c.call(Request.newBuilder().setStatServer(StatServer.getDefaultInstance()))
          .hasError();
    } catch (ServerUnavailableException e) {
      return false;
    }
  }

  int waitForExit() throws InterruptedException {
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      fail(
          "the server did not exit within 60 s; its threads:\n"
              + threads()
              + "\nits log:\n"
              + log());
    }
    return process.exitValue();
  }

  /** The server's thread dump (jcmd), to show where a server that should have ended hangs. */
  private String threads() {
    try {
      Process jcmd =
          new ProcessBuilder("jcmd", Long.toString(process.pid()), "Thread.print")
              .redirectErrorStream(true)
              .start();
      String dump = new String(jcmd.getInputStream().readAllBytes());
      jcmd.waitFor(30, TimeUnit.SECONDS);
      return dump;
    } catch (IOException e) {
      return "(no thread dump: " + e.getMessage() + ")";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "(no thread dump: interrupted)";
    }
  }

  void kill9() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
  }

  void stop() throws InterruptedException {
    process.destroy();
    waitForExit();
  }

  /**
   * {@code ops/bin/COMMAND ARGS} as {@code user}, in the server's home, with a login's environment
   * and {@code extra} variables.
   */
  TestCluster.Result as(String user, Map<String, String> extra, String command, String... args) {
    List<String> argv = new java.util.ArrayList<>(TestUsers.loginEnv(user));
    argv.addAll(List.of("LANG=C.UTF-8", "BERTH_SERVER=" + socket));
    extra.forEach((k, v) -> argv.add(k + "=" + v));
    argv.add(TestCluster.ROOT.resolve("ops/bin").resolve(command).toString());
    argv.addAll(List.of(args));
    return TestCluster.exec(home, argv, null, new byte[0]);
  }

  /** {@code qmgr -c DIRECTIVE} as root. */
  TestCluster.Result qmgr(String directive) {
    return TestCluster.exec(
        home,
        List.of(TestCluster.ROOT.resolve("ops/bin/qmgr").toString(), "-c", directive),
        Map.of("BERTH_SERVER", socket.toString(), "PATH", "/usr/local/bin:/usr/bin:/bin"),
        new byte[0]);
  }

  String log() {
    try {
      return Files.readString(home.resolve("serve.log"));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  @Override
  public void close() throws InterruptedException {
    if (process != null && process.isAlive()) {
      kill9();
    }
  }
}

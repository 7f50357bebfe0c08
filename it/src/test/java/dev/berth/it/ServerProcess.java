package dev.berth.it;

import static org.junit.jupiter.api.Assertions.fail;

import dev.berth.client.BerthClient;
import dev.berth.client.ServerUnavailableException;
import dev.berth.proto.Request;
import dev.berth.proto.StatServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A Berth server as a real separate process ({@code ops/bin/berth serve}, no moms), so a test can
 * kill it with SIGKILL and start it again on the same home.
 */
final class ServerProcess implements AutoCloseable {
  final Path home;
  final Path socket;
  private Process process;

  ServerProcess(Path home) {
    this.home = home;
    this.socket = home.resolve("server.sock");
  }

  /** Starts the server and waits until it answers; returns false if it exited instead. */
  boolean start() throws IOException {
    ProcessBuilder builder =
        new ProcessBuilder(
                List.of(
                    TestCluster.ROOT.resolve("ops/bin/berth").toString(),
                    "serve",
                    "--home",
                    home.toString(),
                    "--socket",
                    socket.toString(),
                    "--nodes",
                    "0",
                    "--server-name",
                    TestCluster.SERVER))
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(home.resolve("serve.log").toFile()));
    // RocksDB unpacks its native library into the temp directory; a SIGKILLed server cannot
    // delete it, so it goes into the home this test removes.
    builder.environment().put("BERTH_JAVA_OPTS", "-Djava.io.tmpdir=" + home);
    process = builder.start();
    long deadline = System.currentTimeMillis() + 60_000;
    while (System.currentTimeMillis() < deadline) {
      if (!process.isAlive()) {
        return false;
      }
      if (answers()) {
        return true;
      }
      TestCluster.sleep(100);
    }
    return fail("the server did not answer within 60 s: " + log());
  }

  private boolean answers() {
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
      fail("the server did not exit");
    }
    return process.exitValue();
  }

  void kill9() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
  }

  void stop() throws InterruptedException {
    process.destroy();
    waitForExit();
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

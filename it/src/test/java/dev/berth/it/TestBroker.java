package dev.berth.it;

import dev.berth.daemon.KafkaBroker;
import dev.berth.mom.os.JobFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A KRaft broker in the test JVM (from the Kafka jars) for one test class, with its data in a
 * scratch directory that also holds whatever else the tests put there; a test may stop it and start
 * it again (same port, same data).
 */
final class TestBroker implements BeforeAllCallback, AfterAllCallback {
  private final String prefix;
  private Path dir;
  private KafkaBroker broker;

  TestBroker(String prefix) {
    this.prefix = prefix;
  }

  @Override
  public void beforeAll(ExtensionContext context) throws IOException {
    dir = Files.createTempDirectory(Path.of("/tmp"), prefix);
    start();
  }

  @Override
  public void afterAll(ExtensionContext context) throws IOException {
    if (broker != null) {
      stop();
    }
    JobFiles.removeTree(dir);
  }

  /** The scratch directory of the class's tests. */
  Path dir() {
    return dir;
  }

  /** Starts the broker (again: same port, same data). */
  void start() throws IOException {
    broker = KafkaBroker.start(dir.resolve("broker"), "127.0.0.1", 0, Optional.empty());
  }

  void stop() {
    broker.close();
    broker = null;
  }

  String bootstrapServers() {
    return broker.bootstrapServers();
  }
}

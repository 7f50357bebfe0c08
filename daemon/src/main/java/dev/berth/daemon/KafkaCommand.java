package dev.berth.daemon;

import dev.berth.security.pki.Credential;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * A single-node Kafka broker under the home directory ({@code HOME/kafka}) for a one-host
 * demonstration of the replicated journal: {@code berth kafka start}, then {@code berth up
 * --journal kafka://127.0.0.1:PORT}. It is secured with a broker credential from the home's CA
 * ({@link BrokerSecurity}) unless started with {@code --insecure}.
 */
@Command(
    name = "kafka",
    description = "Run a single-node Kafka broker for the replicated journal (demonstrations).",
    subcommands = {KafkaCommand.Start.class, KafkaCommand.Stop.class, KafkaCommand.Run.class})
final class KafkaCommand {
  static Path dir(BerthHome home) {
    return home.root().resolve("kafka");
  }

  /** Where the broker listens and whether it is secured (start passes them on to run). */
  static final class Listener {
    @Option(names = "--port", defaultValue = "9092", description = "The broker's port.")
    int port;

    @Option(
        names = "--host",
        defaultValue = "127.0.0.1",
        description = "The address clients connect to (its certificate names it).")
    String host;

    @Option(
        names = "--insecure",
        description =
            "Plaintext without authentication: anyone who reaches the port may read, write and"
                + " fence every journal.")
    boolean insecure;

    /** The broker's credential, issued from the home's CA if it has none; none if insecure. */
    Optional<Credential> credential(BerthHome home) throws IOException {
      return insecure ? Optional.empty() : Optional.of(BrokerCredential.resolve(home, host));
    }

    List<String> arguments() {
      List<String> argv = new ArrayList<>(List.of("--port", Integer.toString(port)));
      argv.addAll(List.of("--host", host));
      if (insecure) {
        argv.add("--insecure");
      }
      return argv;
    }
  }

  /**
   * Whether the broker's own jars are on the class path (the berth-kafka package puts them in
   * lib/kafka; the server's Kafka journal needs only the client); says what to install if not.
   * Asked by name: KafkaBroker itself cannot even be loaded without them.
   */
  static boolean brokerInstalled() {
    try {
      Class.forName("kafka.server.KafkaRaftServer", false, KafkaCommand.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      System.err.println(
          "berth kafka: the Kafka broker is not installed here: install the berth-kafka package"
              + " (its jars go to /usr/lib/berth/lib/kafka), or use a site's own brokers");
      return false;
    }
  }

  @Command(name = "start", description = "Start the broker in the background and wait for it.")
  static final class Start implements Callable<Integer> {
    @Mixin HomeOptions home;

    @Mixin Listener listener;

    @Option(names = "--timeout", defaultValue = "120", description = "Seconds to wait for it.")
    int timeout;

    @Override
    public Integer call() throws Exception {
      if (!brokerInstalled()) {
        return 1;
      }
      BerthHome h = home.home();
      Path dir = dir(h);
      if (Daemons.running(dir.resolve("kafka.pid"), "kafka").isPresent()) {
        System.out.println("berth: kafka already runs (" + dir + ")");
        return 0;
      }
      try {
        listener.credential(h); // issued here, so that a missing CA is said here
      } catch (IOException e) {
        System.err.println("berth kafka: " + e.getMessage());
        return 1;
      }
      Files.createDirectories(dir);
      Files.deleteIfExists(dir.resolve("ready"));
      String java = ProcessHandle.current().info().command().orElse("java");
      List<String> argv = new ArrayList<>(List.of("setsid", java, "-Xms256m", "-Xmx512m"));
      argv.addAll(List.of("-cp", System.getProperty("java.class.path"), Berth.class.getName()));
      argv.addAll(List.of("kafka", "run", "--home", h.root().toString()));
      argv.addAll(listener.arguments());
      Process p =
          new ProcessBuilder(argv)
              .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
              .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("kafka.log").toFile()))
              .redirectErrorStream(true)
              .start();
      long deadline = System.currentTimeMillis() + timeout * 1000L;
      while (System.currentTimeMillis() < deadline) {
        if (Files.exists(dir.resolve("ready"))) {
          String bootstrap = Files.readString(dir.resolve("ready")).trim();
          System.out.println(
              "berth: kafka up at " + bootstrap + " (pid " + p.pid() + ", data in " + dir + ")");
          System.out.println(
              "berth: start Berth on it with: berth up --journal kafka://" + bootstrap);
          return 0;
        }
        if (!p.isAlive()) {
          break;
        }
        Thread.sleep(200);
      }
      System.err.println("berth: kafka did not start; see " + dir.resolve("kafka.log"));
      return 1;
    }
  }

  @Command(name = "stop", description = "Stop the broker started by berth kafka start.")
  static final class Stop implements Callable<Integer> {
    @Mixin HomeOptions home;

    @Override
    public Integer call() throws Exception {
      Path dir = dir(home.home());
      var running = Daemons.running(dir.resolve("kafka.pid"), "kafka");
      if (running.isEmpty()) {
        System.out.println("berth: kafka is not running (" + dir + ")");
        return 0;
      }
      running.get().destroy();
      running.get().onExit().get(60, TimeUnit.SECONDS);
      System.out.println("berth: kafka stopped (pid " + running.get().pid() + ")");
      return 0;
    }
  }

  /** The broker in the foreground (what start runs in the background). */
  @Command(name = "run", description = "Run the broker in the foreground.")
  static final class Run implements Callable<Integer> {
    @Mixin HomeOptions home;

    @Mixin Listener listener;

    @Override
    public Integer call() throws Exception {
      if (!brokerInstalled()) {
        return 1;
      }
      BerthHome h = home.home();
      Path dir = dir(h);
      KafkaBroker broker =
          KafkaBroker.start(dir, listener.host, listener.port, listener.credential(h));
      Files.writeString(dir.resolve("kafka.pid"), ProcessHandle.current().pid() + "\n");
      Files.writeString(dir.resolve("ready"), broker.bootstrapServers() + "\n");
      CountDownLatch stopped = new CountDownLatch(1);
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    broker.close();
                    try {
                      Files.deleteIfExists(dir.resolve("ready"));
                      Files.deleteIfExists(dir.resolve("kafka.pid"));
                    } catch (java.io.IOException ignored) {
                      // the next start checks whether that pid still runs
                    }
                    stopped.countDown();
                  }));
      stopped.await();
      return 0;
    }
  }
}

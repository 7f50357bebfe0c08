package dev.berth.it;

import dev.berth.mom.os.JobFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.producer.KafkaProducer;

/**
 * A directory every local user can read, holding {@link JournalAttacker} and the Kafka client jars
 * it runs on (the build's own copies live under root's home, which others cannot enter), and what
 * each attacker was given; runs the attacker as a process of a given user.
 */
final class AttackerSandbox implements AutoCloseable {
  private final Path dir;

  private AttackerSandbox(Path dir) {
    this.dir = dir;
  }

  static AttackerSandbox create() throws IOException {
    Path dir = Files.createTempDirectory(Path.of("/tmp"), "berth-attacker-");
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path lib = Files.createDirectories(dir.resolve("lib"));
    for (Class<?> c : List.of(KafkaProducer.class, org.slf4j.Logger.class)) {
      Path jar = Path.of(c.getProtectionDomain().getCodeSource().getLocation().getPath());
      Files.copy(jar, lib.resolve(jar.getFileName()));
    }
    Path classes =
        Path.of(
            JournalAttacker.class.getProtectionDomain().getCodeSource().getLocation().getPath());
    Path to = Files.createDirectories(dir.resolve("classes/dev/berth/it"));
    try (var files = Files.list(classes.resolve("dev/berth/it"))) {
      for (Path f :
          files.filter(f -> f.getFileName().toString().startsWith("JournalAttacker")).toList()) {
        Files.copy(f, to.resolve(f.getFileName()));
      }
    }
    openToAll(dir);
    return new AttackerSandbox(dir);
  }

  /** Makes everything under {@code dir} readable (and directories enterable) by every user. */
  private static void openToAll(Path dir) throws IOException {
    try (var all = Files.walk(dir)) {
      for (Path p : all.toList()) {
        Files.setPosixFilePermissions(
            p, PosixFilePermissions.fromString(Files.isDirectory(p) ? "rwxr-xr-x" : "rw-r--r--"));
      }
    }
  }

  /** Where in the sandbox {@code name} goes. */
  Path path(String name) {
    return dir.resolve(name);
  }

  /** Gives {@code user} the files under {@code held}, which then are that user's own. */
  void handOver(Path held, String user) {
    TestCluster.Result r =
        TestCluster.exec(dir, List.of("chown", "-R", user + ":", held.toString()));
    if (r.exit() != 0) {
      throw new IllegalStateException("chown: " + r);
    }
  }

  /** Copies {@code file} into the sandbox for everyone to read. */
  Path share(Path file, String name) throws IOException {
    Path to = Files.createDirectories(dir.resolve(name)).resolve(file.getFileName());
    Files.copy(file, to, StandardCopyOption.REPLACE_EXISTING);
    openToAll(dir.resolve(name));
    return to;
  }

  /** Runs the attacker as {@code user} (root if null) with {@code args}. */
  TestCluster.Result run(String user, String... args) {
    List<String> argv = new ArrayList<>();
    if (user != null) {
      argv.addAll(List.of("runuser", "-u", user, "--"));
    }
    argv.addAll(
        List.of(
            ProcessHandle.current().info().command().orElse("java"),
            "-Xmx128m",
            "-cp",
            dir.resolve("classes") + ":" + dir.resolve("lib") + "/*",
            JournalAttacker.class.getName()));
    argv.addAll(List.of(args));
    return TestCluster.exec(dir, argv);
  }

  @Override
  public void close() throws IOException {
    JobFiles.removeTree(dir);
  }
}

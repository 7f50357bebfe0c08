package dev.berth.it;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code berth mom} processes of a test cluster, as berth-mom.service starts them, each logging to
 * its own file.
 */
final class MomProcesses {
  private MomProcesses() {}

  /**
   * Starts the mom of {@code node} with its state in {@code home}, joining through {@code servers}
   * (comma separated cluster addresses), offering {@code cpus}, with its cgroups below {@code
   * cgroupRoot} and any more {@code options}; it logs to {@code log}.
   */
  static Process launch(
      Path home,
      String servers,
      String node,
      String cpus,
      String cgroupRoot,
      Path log,
      String... options)
      throws IOException {
    return launch(home, servers, node, cpus, cgroupRoot, log, Map.of(), options);
  }

  /** As above, with {@code environment} (BERTH_HEAP, say) added to the mom's. */
  static Process launch(
      Path home,
      String servers,
      String node,
      String cpus,
      String cgroupRoot,
      Path log,
      Map<String, String> environment,
      String... options)
      throws IOException {
    List<String> conf =
        new ArrayList<>(
            List.of(
                "--home",
                home.toString(),
                "--server",
                servers,
                "--name",
                node,
                "--cpus",
                cpus,
                "--heartbeat",
                "1",
                "--cgroup-root",
                cgroupRoot,
                // The tests' in-process commands submit as root (the servers set acl_roots).
                "--root-jobs"));
    conf.addAll(List.of(options));
    List<String> argv = Units.command("berth-mom", home.resolve("mom-" + node + ".conf"), conf);
    ProcessBuilder mom =
        new ProcessBuilder(argv)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    mom.environment().putAll(environment);
    return mom.start();
  }
}

package dev.berth.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A private single-host Slurm 22.05 for side-by-side numbers, started and stopped with the scripts
 * in ../shared/slurm-baseline (next to the checkout; BERTH_SLURM_BASELINE names another place).
 * They install Debian's packages on first use and touch no system configuration.
 */
final class Slurm implements AutoCloseable {
  private final Path scripts;
  private final Path dir;

  private Slurm(Path scripts, Path dir) {
    this.scripts = scripts;
    this.dir = dir;
  }

  /** The baseline's scripts, or empty with the reason printed. */
  static Optional<Path> scripts(Path root) {
    String named = System.getenv("BERTH_SLURM_BASELINE");
    Path scripts =
        named != null && !named.isBlank()
            ? Path.of(named)
            : root.resolve("../shared/slurm-baseline").normalize();
    if (Files.isExecutable(scripts.resolve("setup.sh"))) {
      return Optional.of(scripts);
    }
    System.out.printf("(Slurm not measured: no setup.sh in %s)%n", scripts);
    return Optional.empty();
  }

  /** Starts a fresh Slurm with the given profile (tuned: the high-throughput settings). */
  static Slurm start(Path scripts, String profile) throws IOException, InterruptedException {
    Path dir = Path.of("/tmp/berth-bench-slurm");
    Slurm slurm = new Slurm(scripts, dir);
    slurm.script("setup.sh", profile);
    return slurm;
  }

  /** The environment Slurm's commands need. */
  Map<String, String> env() {
    return Map.of("SLURM_CONF", dir.resolve("etc/slurm.conf").toString());
  }

  private void script(String name, String... args) throws IOException, InterruptedException {
    List<String> argv = new ArrayList<>(List.of(scripts.resolve(name).toString()));
    argv.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(argv).redirectErrorStream(true);
    pb.environment().put("SLURM_BENCH_DIR", dir.toString());
    pb.environment().put("FRESH", "1");
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes());
    if (p.waitFor() != 0) {
      throw new IllegalStateException(name + " " + String.join(" ", args) + " failed:\n" + out);
    }
  }

  @Override
  public void close() throws IOException, InterruptedException {
    script("stop.sh", "--purge");
  }
}

package dev.berth.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A private single-host Slurm 22.05 for side-by-side numbers, started and stopped with the scripts
 * in ../shared/slurm-baseline (next to the checkout; BERTH_SLURM_BASELINE names another place).
 * They install Debian's packages on first use and touch no system configuration. With accounting, a
 * private MariaDB and slurmdbd come first, from ops/bench/slurm-accounting, which installs nothing.
 */
final class Slurm implements AutoCloseable {
  private static final Path DIR = Path.of("/tmp/berth-bench-slurm");
  private static final Path ACCOUNTING_DIR = Path.of("/tmp/berth-bench-slurmdbd");
  private static final int SLURMDBD_PORT = 16819;

  private final Path scripts;
  private final Path dir;
  private final Optional<Path> accounting;

  private Slurm(Path scripts, Path dir, Optional<Path> accounting) {
    this.scripts = scripts;
    this.dir = dir;
    this.accounting = accounting;
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
    Slurm slurm = new Slurm(scripts, DIR, Optional.empty());
    slurm.script("setup.sh", Map.of(), profile);
    return slurm;
  }

  /**
   * Why Slurm with accounting cannot start here (the packages ops/bench/slurm-accounting needs but
   * does not install, and how to install them), or empty when it can.
   */
  static Optional<String> accountingMissing(Path root) throws IOException, InterruptedException {
    Run check = run(List.of(accountingScript(root).toString(), "check"), Map.of());
    return check.exit() == 0 ? Optional.empty() : Optional.of(check.output());
  }

  /**
   * Starts a fresh Slurm whose controller records its jobs in a private slurmdbd (so that sacct
   * lists them), with {@code users} in an account of its cluster; {@code extraConf} are more
   * slurm.conf lines. The munge key is written first, for the accounting's own munged and the
   * baseline's to share.
   */
  static Slurm startWithAccounting(
      Path root, Path scripts, String profile, String extraConf, List<String> users)
      throws IOException, InterruptedException {
    Path key = DIR.resolve("munge/munge.key");
    if (!Files.exists(key)) {
      Files.createDirectories(key.getParent());
      byte[] bytes = new byte[1024];
      new SecureRandom().nextBytes(bytes);
      Files.write(key, bytes);
      Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("r--------"));
    }
    Path accounting = accountingScript(root);
    List<String> argv =
        new ArrayList<>(
            List.of(
                accounting.toString(),
                "start",
                ACCOUNTING_DIR.toString(),
                key.toString(),
                "bench"));
    argv.addAll(users);
    Run started = run(argv, Map.of("BERTH_BENCH_SLURMDBD_PORT", Integer.toString(SLURMDBD_PORT)));
    if (started.exit() != 0) {
      throw new IllegalStateException("slurm-accounting start failed:\n" + started.output());
    }
    Slurm slurm = new Slurm(scripts, DIR, Optional.of(accounting));
    String conf =
        String.join(
            "\n",
            "AccountingStorageType=accounting_storage/slurmdbd",
            "AccountingStorageHost=127.0.0.1",
            "AccountingStoragePort=" + SLURMDBD_PORT,
            "AccountingStoragePass=" + DIR.resolve("munge/munge.socket"),
            extraConf);
    try {
      slurm.script("setup.sh", Map.of("EXTRA_CONF", conf), profile);
    } catch (IOException | InterruptedException | RuntimeException e) {
      slurm.close();
      throw e;
    }
    return slurm;
  }

  private static Path accountingScript(Path root) {
    return root.resolve("ops/bench/slurm-accounting");
  }

  /**
   * The environment Slurm's commands need: its configuration, and a PATH of Slurm's own commands
   * (Berth's sbatch, squeue, srun... are in /usr/local/bin, before them on a machine where
   * ops/link-commands ran).
   */
  Map<String, String> env() {
    return Map.of("SLURM_CONF", dir.resolve("etc/slurm.conf").toString(), "PATH", "/usr/bin:/bin");
  }

  private void script(String name, Map<String, String> env, String... args)
      throws IOException, InterruptedException {
    List<String> argv = new ArrayList<>(List.of(scripts.resolve(name).toString()));
    argv.addAll(List.of(args));
    Map<String, String> all = new HashMap<>(env);
    all.put("SLURM_BENCH_DIR", dir.toString());
    all.put("FRESH", "1");
    Run done = run(argv, all);
    if (done.exit() != 0) {
      throw new IllegalStateException(
          name + " " + String.join(" ", args) + " failed:\n" + done.output());
    }
  }

  /** A script's exit status and what it printed on stdout and stderr. */
  private record Run(int exit, String output) {}

  /**
   * Runs a script with Slurm's commands first on its PATH: an installed Berth links its own sinfo,
   * squeue, scancel, ... into /usr/local/bin, which comes first on root's.
   */
  private static Run run(List<String> argv, Map<String, String> env)
      throws IOException, InterruptedException {
    ProcessBuilder pb = new ProcessBuilder(argv).redirectErrorStream(true);
    pb.environment().put("PATH", "/usr/bin:/bin:/usr/sbin:/sbin:" + System.getenv("PATH"));
    pb.environment().putAll(env);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes());
    return new Run(p.waitFor(), out);
  }

  @Override
  public void close() throws IOException, InterruptedException {
    try {
      script("stop.sh", Map.of(), "--purge");
    } finally {
      if (accounting.isPresent()) {
        run(List.of(accounting.get().toString(), "stop", ACCOUNTING_DIR.toString()), Map.of());
      }
    }
  }
}

package dev.berth.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.berth.mom.os.JobFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * The Debian package ops/package builds, installed by dpkg into a root of its own (dpkg --instdir,
 * so this machine's /usr stays as it is) and run from there: the commands and the job-side tools
 * where users and jobs find them, the configuration and the units where systemd and an
 * administrator look, and a server started the way its unit starts it running a job that an
 * ordinary user submits with the installed qsub and that calls the installed pbsdsh.
 */
@Tag("integration")
@Timeout(600)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class) // the purge comes last
class PackageIT {
  private static final String USER = TestUsers.ALICE;

  /** The packages, in the order they depend on each other. */
  static final List<String> PACKAGES =
      List.of("berth-common", "berth-client", "berth-mom", "berth-server", "berth-kafka", "berth");

  static Path root;
  static final java.util.Map<String, Path> debs = new java.util.HashMap<>();

  @BeforeAll
  static void install() throws Exception {
    TestUsers.ensure(USER);
    TestCluster.Result built =
        TestCluster.exec(
            TestCluster.ROOT,
            List.of(TestCluster.ROOT.resolve("ops/package").toString(), "--no-build"));
    assertEquals(0, built.exit(), built.toString());
    for (String line : built.out().lines().filter(l -> l.endsWith(".deb")).toList()) {
      Path file = Path.of(line.replace("ops/package: ", ""));
      debs.put(file.getFileName().toString().replaceFirst("_.*", ""), file);
    }
    assertEquals(java.util.Set.copyOf(PACKAGES), debs.keySet(), built.out());
    root = Files.createTempDirectory(Path.of("/tmp"), "berth-package-");
    Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwxr-xr-x"));
    Files.createDirectories(root.resolve("var/lib/dpkg/info"));
    Files.createDirectories(root.resolve("var/lib/dpkg/updates"));
    Files.createFile(root.resolve("var/lib/dpkg/status"));
    List<String> dpkg =
        new ArrayList<>(
            List.of(
                "dpkg",
                "--instdir=" + root,
                "--admindir=" + root.resolve("var/lib/dpkg"),
                "--force-script-chrootless",
                "--force-depends", // its Java and libc are this machine's, not the root's
                "--no-triggers",
                "-i"));
    PACKAGES.forEach(p -> dpkg.add(debs.get(p).toString()));
    TestCluster.Result installed = TestCluster.exec(root, dpkg);
    assertEquals(0, installed.exit(), installed.toString());
  }

  @AfterAll
  static void remove() throws IOException {
    if (root != null) {
      JobFiles.removeTree(root);
    }
  }

  /** The commands the package puts on the path. */
  private static final List<String> COMMANDS =
      List.of(
          "qsub",
          "qstat",
          "qdel",
          "qhold",
          "qrls",
          "qalter",
          "qsig",
          "qselect",
          "qrun",
          "qrerun",
          "qmove",
          "qorder",
          "qchkpt",
          "momctl",
          "qmgr",
          "pbsnodes",
          "tracejob",
          "pbsfs",
          "pbs_rsub",
          "pbs_rstat",
          "pbs_rdel",
          "sbatch",
          "salloc",
          "squeue",
          "scancel",
          "sacct",
          "sinfo",
          "scontrol",
          "sprio",
          "sshare",
          "berth",
          "pbsdsh",
          "pbs_tmrsh",
          "srun");

  @Test
  void theCommandsAndTheJobToolsAreOnThePathTheConfigurationAndUnitsWhereTheyBelong()
      throws IOException {
    for (String command : COMMANDS) {
      Path onPath = root.resolve("usr/bin").resolve(command);
      assertTrue(Files.isExecutable(onPath), onPath + " is missing");
      // The Torque commands are the native client itself; the rest are scripts in bin/.
      boolean nativeClient = !List.of("berth", "pbsdsh", "pbs_tmrsh", "srun").contains(command);
      Path expected =
          nativeClient
              ? root.resolve("usr/lib/berth/libexec/berth-cmd")
              : root.resolve("usr/lib/berth/bin").resolve(command);
      assertEquals(expected, onPath.toRealPath(), onPath + " leads elsewhere");
    }
    for (String conf : List.of("server", "mom", "relay")) {
      assertTrue(Files.readString(root.resolve("etc/berth/" + conf + ".conf")).contains("--home"));
      String unit = Files.readString(root.resolve("lib/systemd/system/berth-" + conf + ".service"));
      String daemon = conf.equals("server") ? "serve" : conf;
      assertTrue(
          unit.contains(
              "ExecStart=/usr/lib/berth/bin/berth " + daemon + " @/etc/berth/" + conf + ".conf"),
          unit);
    }
    assertTrue(
        Files.readString(root.resolve("lib/systemd/system/berth-mom.service"))
            .contains("KillMode=process"),
        "restarting a mom must not end its jobs");
    assertEquals(
        "rwx------",
        PosixFilePermissions.toString(
            Files.getPosixFilePermissions(root.resolve("var/lib/berth"))));
    for (String[] owner :
        new String[][] {
          {"berth-server", "server"}, {"berth-mom", "mom"}, {"berth-client", "relay"}
        }) {
      TestCluster.Result conffiles =
          TestCluster.exec(
              root, List.of("dpkg-deb", "-I", debs.get(owner[0]).toString(), "conffiles"));
      assertEquals("/etc/berth/" + owner[1] + ".conf\n", conffiles.out(), owner[0]);
    }
  }

  /** What each role's package holds, and what it leaves to the others. */
  @Test
  void eachRolesPackageHoldsItsOwnParts() {
    assertHolds(
        "berth-common",
        List.of(
            "./usr/bin/berth",
            "lib/daemon/berth-daemon-",
            "lib/daemon/rocksdbjni-",
            "lib/daemon/kafka-clients-",
            "usr/share/doc/berth-common/install.md"),
        List.of("kafka_2.13", "berth-starter", "berth-cmd", "/etc/berth/"));
    assertHolds(
        "berth-client",
        List.of(
            "./usr/bin/qsub",
            "./usr/bin/salloc",
            "./usr/bin/srun",
            "man1/srun.1.gz",
            "libexec/berth-cmd",
            "lib/cli/berth-cli.jar",
            "man1/qstat.1.gz",
            "completions/qdel",
            "etc/berth/relay.conf",
            "berth-relay.service"),
        List.of("berth-starter", "lib/daemon/", "mom.conf"));
    assertHolds(
        "berth-mom",
        List.of(
            "./usr/bin/pbsdsh",
            "libexec/berth-starter",
            "libexec/berth-tm",
            "libexec/libberth-native.so",
            "man1/pbsdsh.1.gz",
            "etc/berth/mom.conf",
            "berth-mom.service"),
        List.of("berth-cmd", "lib/daemon/", "server.conf", "usr/bin/srun"));
    assertHolds(
        "berth-server",
        List.of("etc/berth/server.conf", "berth-server.service"),
        List.of("lib/daemon/", "berth-cmd", "berth-starter"));
    assertHolds(
        "berth-kafka",
        List.of("lib/kafka/kafka_2.13-", "lib/kafka/kafka-raft-"),
        List.of("kafka-clients", "rocksdbjni", "lib/daemon/"));
    TestCluster.Result meta =
        TestCluster.exec(root, List.of("dpkg-deb", "-f", debs.get("berth").toString(), "Depends"));
    for (String role : List.of("berth-client", "berth-mom", "berth-server")) {
      assertTrue(meta.out().contains(role + " (= "), meta.out());
    }
  }

  private static void assertHolds(String pkg, List<String> has, List<String> hasNot) {
    TestCluster.Result contents =
        TestCluster.exec(root, List.of("dpkg-deb", "-c", debs.get(pkg).toString()));
    assertEquals(0, contents.exit(), contents.toString());
    for (String part : has) {
      assertTrue(contents.out().contains(part), pkg + " lacks " + part + ":\n" + contents.out());
    }
    for (String part : hasNot) {
      assertFalse(contents.out().contains(part), pkg + " holds " + part + ":\n" + contents.out());
    }
  }

  /**
   * The broker runs from berth-kafka's jars, which the launcher adds; without them berth kafka says
   * which package to install.
   */
  @Test
  void theBrokerRunsFromItsOwnPackageAndIsNamedWhereItIsMissing() throws IOException {
    Path home = Files.createDirectories(root.resolve("var/lib/berth/kafka-test"));
    String berth = root.resolve("usr/bin/berth").toString();
    TestCluster.Result started =
        TestCluster.exec(
            home,
            List.of(
                berth, "kafka", "start", "--home", home.toString(), "--port", "0", "--insecure"));
    try {
      assertEquals(0, started.exit(), started.toString());
      assertTrue(started.out().contains("berth: kafka up at 127.0.0.1:"), started.toString());
    } finally {
      TestCluster.exec(home, List.of(berth, "kafka", "stop", "--home", home.toString()));
    }
    TestCluster.Result without =
        TestCluster.exec(
            home,
            List.of(
                "java",
                "-cp",
                root.resolve("usr/lib/berth/lib/daemon") + "/*",
                "dev.berth.daemon.Berth",
                "kafka",
                "start",
                "--home",
                home.toString(),
                "--insecure"));
    assertEquals(1, without.exit(), without.toString());
    assertTrue(without.err().contains("install the berth-kafka package"), without.toString());
  }

  /** The version the package says it is, as the build wrote it (dpkg's ~ is the build's -). */
  private static String packageVersion() {
    TestCluster.Result field =
        TestCluster.exec(root, List.of("dpkg-deb", "-f", debs.get("berth").toString(), "Version"));
    assertEquals(0, field.exit(), field.toString());
    return field.out().strip().replace('~', '-');
  }

  @Test
  void everyCommandHasAManPageCompletionAndTheOneVersion() throws IOException {
    String version = packageVersion();
    TestCluster.Result berth =
        TestCluster.exec(root, List.of(root.resolve("usr/bin/berth").toString(), "--version"));
    assertEquals("Berth " + version + "\n", berth.out(), berth.toString());
    for (String command : List.of("qdel", "qmgr", "tracejob", "pbsdsh", "pbs_tmrsh")) {
      TestCluster.Result shown =
          TestCluster.exec(
              root, List.of(root.resolve("usr/bin").resolve(command).toString(), "--version"));
      assertEquals("Version: " + version + "\n", shown.out(), command + ": " + shown);
    }
    Path manuals = root.resolve("usr/share/man");
    for (String command : COMMANDS) {
      if (command.equals("berth")) {
        continue; // berth's help is its --help and berth help COMMAND
      }
      Path page = manuals.resolve("man1/" + command + ".1.gz");
      assertTrue(Files.isRegularFile(page), page + " is missing");
      TestCluster.Result man =
          TestCluster.exec(
              root, List.of("env", "MANPATH=" + manuals, "MANWIDTH=80", "man", command));
      assertEquals(0, man.exit(), command + ": " + man);
      assertTrue(man.out().contains("\nNAME\n"), command + ": " + man.out());
      assertTrue(man.out().contains("Berth " + version), command + ": " + man.out());
      Path completion = root.resolve("usr/share/bash-completion/completions").resolve(command);
      assertTrue(Files.isReadable(completion), completion + " is missing");
    }
    // bash-completion loads a command's file on its first TAB: qdel's is the Torque commands'.
    TestCluster.Result qdel =
        TestCluster.exec(
            root,
            List.of(
                "bash",
                "-c",
                "source \"$0\"; COMP_WORDS=(qdel -); COMP_CWORD=1; _berth_torque qdel - qdel;"
                    + " printf '%s\\n' \"${COMPREPLY[@]}\"",
                root.resolve("usr/share/bash-completion/completions/qdel").toString()));
    assertEquals("--help\n--version\n-W\n-m\n-p\n", qdel.out(), qdel.toString());
    TestCluster.Result berthCompletion =
        TestCluster.exec(
            root,
            List.of(
                "bash",
                "-c",
                "source \"$0\" 2>/dev/null; COMP_WORDS=(berth ka); COMP_CWORD=1;"
                    + " COMP_LINE='berth ka'; COMP_POINT=8; _complete_berth 2>/dev/null;"
                    + " printf '%s\\n' \"${COMPREPLY[@]}\"",
                root.resolve("usr/share/bash-completion/completions/berth").toString()));
    assertEquals("kafka\n", berthCompletion.out(), berthCompletion.toString());
  }

  /**
   * A server with one mom, started with its unit's command line from the installed tree (the
   * installed configuration file with this test's home and socket), runs a job an ordinary user
   * submits with the installed qsub; the job calls pbsdsh, which it finds without any link the test
   * suite makes.
   */
  @Test
  void theInstalledServerRunsAJobSubmittedWithTheInstalledCommands() throws Exception {
    Path home = Files.createDirectories(root.resolve("var/lib/berth/it"));
    Path socket = root.resolve("run/berth/server.sock");
    Path work = MultiNodeCluster.workFor(USER, "berth-package-work-");
    TestCluster.Result ca =
        TestCluster.exec(
            home,
            List.of(
                root.resolve("usr/bin/berth").toString(),
                "ca",
                "create",
                "--home",
                home.toString()));
    assertEquals(0, ca.exit(), ca.toString());
    Path conf = root.resolve("etc/berth/server.conf");
    String installed = Files.readString(conf);
    Files.writeString(
        conf,
        installed
                .replace("--home /var/lib/berth", "--home " + home)
                .replace("--socket /run/berth/server.sock", "--socket " + socket)
                .replace("--nodes 0", "--nodes 1")
                .replace("--port 2552", "--port 0")
                .replace("--relay-port 15001", "")
            + "--cgroup-root berth-it-package\n");
    String unit = Files.readString(root.resolve("lib/systemd/system/berth-server.service"));
    String exec =
        unit.lines()
            .filter(l -> l.startsWith("ExecStart="))
            .findFirst()
            .orElseThrow()
            .substring(10);
    List<String> argv = new ArrayList<>();
    for (String word : exec.split(" ")) {
      argv.add(
          word.startsWith("/usr/lib/berth/")
              ? root + word
              : word.startsWith("@/etc/berth/") ? "@" + root + word.substring(1) : word);
    }
    Process server =
        new ProcessBuilder(argv)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(home.resolve("serve.log").toFile()))
            .start();
    try {
      MultiNodeCluster.awaitTrue(
          () -> log(home).contains("berth: serving") || !server.isAlive(),
          Duration.ofSeconds(90),
          () -> log(home));
      assertTrue(server.isAlive(), log(home));
      MultiNodeCluster.awaitTrue(
          () -> as(socket, work, "pbsnodes", "-a").out().contains("state = free"),
          Duration.ofSeconds(60),
          () -> as(socket, work, "pbsnodes", "-a") + log(home));
      // The tools the mom gives the job are the installed ones (pbs_tmrsh for MPI, pbsdsh).
      Files.writeString(
          work.resolve("job.sh"),
          "tools=$(dirname \"$OMPI_MCA_plm_rsh_agent\")\necho \"$tools\"\n"
              + "\"$tools/pbsdsh\" -u hostname\necho ran \"$PBS_VERSION\"\n");
      TestCluster.Result qsub = as(socket, work, "qsub", "-N", "packaged", "job.sh");
      assertEquals(0, qsub.exit(), qsub.toString());
      String id = qsub.out().strip();
      String number = id.substring(0, id.indexOf('.'));
      Path out = work.resolve("packaged.o" + number);
      MultiNodeCluster.awaitTrue(
          () -> as(socket, work, "qstat", "-f", id).out().contains("job_state = C"),
          Duration.ofSeconds(60),
          () -> as(socket, work, "qstat", "-f", id) + log(home));
      String qstat = as(socket, work, "qstat", "-f", id).out();
      String status = as(socket, work, "qstat", "-B", "-f").out();
      assertTrue(status.contains("pbs_version = " + packageVersion() + "\n"), status);
      assertTrue(
          qstat.contains("exit_status = 0"), qstat + read(work.resolve("packaged.e" + number)));
      assertEquals(
          root.resolve("usr/lib/berth/bin")
              + "\n"
              + dev.berth.core.Hosts.localName()
              + "\nran Berth-"
              + packageVersion()
              + "\n",
          Files.readString(out));
    } finally {
      server.destroy();
      if (!server.waitFor(60, TimeUnit.SECONDS)) {
        server.destroyForcibly();
      }
      CgroupTrees.removeTree("berth-it-package");
      JobFiles.removeTree(work);
      JobFiles.removeTree(new dev.berth.daemon.BerthHome(home).jobTmp());
    }
  }

  /**
   * What the package carries beside the files: RocksDB's native library for this machine only, and
   * the maintainer scripts that stop, disable and, on purge, remove what it made.
   */
  /**
   * The packages on a current distribution, as an administrator installs them: a guest with a
   * kernel of its own, cgroup v2 only, booted with systemd (ops/vm run --systemd), where dpkg
   * installs them, systemctl starts the server and the mom, and an ordinary user's job with
   * cgroup_enable runs in a cgroup below the mom's service, which systemd delegated to it; with the
   * units stopped, nothing of them is left (guest/systemd-site.sh does the administrator's part).
   */
  @Test
  @Timeout(1200)
  void theUnitsRunUnderSystemdAndAJobRunsInTheMomsDelegatedCgroup() throws Exception {
    String why = Guest.unavailable();
    if (why != null) {
      System.err.println("PackageIT: NO SYSTEMD GUEST: guests cannot start here: " + why);
    }
    assumeTrue(why == null, why);
    Path work = Files.createTempDirectory(Path.of("/tmp"), "berth-systemd-");
    Path log = Files.createTempFile(Path.of("/tmp"), "berth-systemd-", ".log");
    try {
      Files.setPosixFilePermissions(work, PosixFilePermissions.fromString("rwxr-xr-x"));
      Path script = TestCluster.ROOT.resolve("it/target/test-classes/guest/systemd-site.sh");
      Guest.Result r =
          Guest.run(
              Duration.ofMinutes(18),
              log,
              List.of("--systemd", "--writable", work.toString()),
              List.of(
                  "/bin/sh",
                  script.toString(),
                  debs.get("berth").getParent().toString(),
                  work.toString()));
      String journal =
          Files.exists(work.resolve("journal.log"))
              ? Files.readString(work.resolve("journal.log"))
              : "(no journal)";
      String all = r.output() + "\n" + journal;
      System.out.println(r.output());
      System.out.printf("PackageIT: the systemd guest took %d s%n", r.took().toSeconds());
      assertEquals(0, r.exit(), all);
      java.util.Map<String, String> said = new java.util.TreeMap<>();
      r.output()
          .lines()
          .filter(l -> l.matches("[a-z_]+=.*"))
          .forEach(l -> said.put(l.substring(0, l.indexOf('=')), l.substring(l.indexOf('=') + 1)));
      assertEquals("0", said.get("dpkg"), all);
      assertEquals("0", said.get("start"), all);
      assertEquals("free", said.get("node"), all);
      assertEquals("yes", said.get("delegate"), all);
      String service = "/system.slice/berth-mom.service";
      assertEquals(service + "/mom", said.get("mom_cgroup"), "the mom moved into its leaf\n" + all);
      assertEquals("0", said.get("service_procs"), "no process in the inner cgroup\n" + all);
      String id = said.get("job");
      String node = dev.berth.core.Hosts.localName(); // the guest has this host's name
      // mom.conf's cgroup root, the node, the job
      assertEquals(service + "/berth/" + node + "/" + id, said.get("job_cgroup"), all);
      assertEquals(Long.toString(64L << 20), said.get("job_memory_max"), all);
      assertEquals("0", said.get("exit_status"), all);
      assertEquals("gone", said.get("job_cgroup_after"), all);
      assertEquals("0", said.get("stop"), all);
      // a stop is not a failure (SuccessExitStatus=143: the JVM's status after SIGTERM)
      assertEquals("inactive", said.get("mom_after_stop"), all);
      assertEquals("inactive", said.get("server_after_stop"), all);
      assertEquals("gone", said.get("service_cgroup_after"), all);
      assertEquals("0", said.get("berth_processes"), all);
      System.out.println(
          "PackageIT: under systemd, up in " + said.get("up_seconds") + " s on " + node);
    } finally {
      JobFiles.removeTree(work);
      Files.deleteIfExists(log);
    }
  }

  @Test
  void itCarriesOneRocksDbLibraryAndScriptsForRemovalAndPurge() throws IOException {
    Path jar;
    try (var jars =
        Files.newDirectoryStream(root.resolve("usr/lib/berth/lib/daemon"), "rocksdbjni-*.jar")) {
      jar = jars.iterator().next();
    }
    TestCluster.Result natives =
        TestCluster.exec(root, List.of("unzip", "-Z1", jar.toString(), "librocksdbjni-*"));
    assertEquals(1, natives.out().lines().count(), natives.out());
    for (String pkg : List.of("berth-common", "berth-client", "berth-mom", "berth-server")) {
      TestCluster.Result info =
          TestCluster.exec(root, List.of("dpkg-deb", "-I", debs.get(pkg).toString()));
      List<String> scripts =
          pkg.equals("berth-common")
              ? List.of("postinst", "postrm")
              : List.of("postinst", "prerm", "postrm");
      for (String script : scripts) {
        assertTrue(
            info.out().contains(" " + script + " "),
            pkg + ": " + script + " is missing:\n" + info.out());
      }
    }
  }

  /**
   * The copyright file (Debian's machine-readable format) names every jar the package bundles that
   * is not Berth's own, with its license: a new dependency without an entry fails here.
   */
  @Test
  void theCopyrightFileNamesEveryBundledJar() throws IOException {
    String copyright = Files.readString(root.resolve("usr/share/doc/berth-common/copyright"));
    List<java.util.regex.Pattern> named = new ArrayList<>();
    String files = null;
    for (String line : (copyright + "\n").lines().toList()) {
      if (line.startsWith("Files:")) {
        files = line.substring(6);
      } else if (files != null && line.startsWith(" ")) {
        files += line;
      } else if (files != null) {
        for (String glob : files.trim().split("\\s+")) {
          if (!glob.equals("*")) {
            named.add(java.util.regex.Pattern.compile(glob.replace(".", "\\.").replace("*", ".*")));
          }
        }
        files = null;
      }
    }
    List<String> unnamed = new ArrayList<>();
    try (var jars = Files.walk(root.resolve("usr/lib/berth/lib"))) {
      for (Path jar : jars.filter(p -> p.toString().endsWith(".jar")).toList()) {
        String path = root.relativize(jar).toString();
        if (!jar.getFileName().toString().startsWith("berth-")
            && named.stream().noneMatch(p -> p.matcher(path).matches())) {
          unnamed.add(path);
        }
      }
    }
    assertEquals(List.of(), unnamed, "bundled jars the copyright file does not name");
  }

  /** A purge removes the files, the configuration and the state directory, and nothing else. */
  @Test
  @Order(Integer.MAX_VALUE)
  void purgingLeavesNothingOfIt() throws IOException {
    Files.writeString(root.resolve("var/lib/berth/left-by-a-daemon"), "state\n");
    TestCluster.Result purged =
        TestCluster.exec(
            root,
            List.of(
                "dpkg",
                "--instdir=" + root,
                "--admindir=" + root.resolve("var/lib/dpkg"),
                "--force-script-chrootless",
                "--no-triggers",
                "--purge",
                "berth",
                "berth-kafka",
                "berth-server",
                "berth-mom",
                "berth-client",
                "berth-common"));
    assertEquals(0, purged.exit(), purged.toString());
    for (String gone :
        List.of(
            "var/lib/berth",
            "etc/berth",
            "usr/lib/berth",
            "usr/bin/qsub",
            "usr/share/man/man1/qsub.1.gz",
            "lib/systemd/system/berth-mom.service")) {
      assertFalse(
          Files.exists(root.resolve(gone), java.nio.file.LinkOption.NOFOLLOW_LINKS),
          gone + " is left");
    }
  }

  /** The installed {@code command}, run by the test's user in {@code cwd}. */
  private static TestCluster.Result as(Path socket, Path cwd, String command, String... args) {
    List<String> argv =
        new ArrayList<>(
            List.of(
                "runuser",
                "-u",
                USER,
                "--",
                "env",
                "-i",
                "PATH=/usr/bin:/bin",
                "HOME=" + TestUsers.home(USER),
                "BERTH_SERVER=" + socket,
                root.resolve("usr/bin").resolve(command).toString()));
    argv.addAll(List.of(args));
    return TestCluster.exec(cwd, argv);
  }

  private static String log(Path home) {
    return read(home.resolve("serve.log"));
  }

  private static String read(Path file) {
    try {
      return Files.exists(file) ? Files.readString(file) : "";
    } catch (IOException e) {
      return "";
    }
  }
}

package dev.berth.mom.os.cgroup;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.berth.mom.os.NativeLibrary;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * BPF device programs of the v2 driver on the real kernel (as root). Stand-in GPUs are device files
 * with NVIDIA's major 195 and minors no driver here has, so open() gives ENXIO where the job's
 * cgroup lets it through and EPERM where it denies the device. On a hybrid host (the project
 * machines) the program in the unified hierarchy is enforced next to the v1 devices controller.
 * Jobs run as nobody; every cgroup lives below a unique {@code berth-test-<random>/n1} and is
 * removed afterwards, the device files with the temporary directory.
 */
@Tag("integration")
class CgroupV2DevicesIT {
  static final String TOP = RealCgroups.uniqueTop();
  static final Duration TIMEOUT = Duration.ofSeconds(5);
  static final Path LIBRARY = Path.of("target/native", NativeLibrary.FILE).toAbsolutePath();

  @TempDir static Path tmp;
  static Path dev;
  static Path mount;

  CgroupV2 driver;

  @BeforeAll
  static void needsV2AndRoot() throws IOException, InterruptedException {
    assumeTrue(RealCgroups.root(), "cgroups, mknod and bpf(2) need root");
    List<Mounts.Mount> v2 = RealCgroups.mounts().v2();
    assumeTrue(!v2.isEmpty(), "no cgroup2 file system is mounted");
    mount = v2.get(0).mountPoint();
    NativeLibrary.load(LIBRARY);
    // nobody must reach the device files
    Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
    dev = Files.createDirectory(tmp.resolve("dev"));
    for (int minor : List.of(0, 1, 1000)) {
      RealCgroups.standInGpu(dev.resolve("nvidia" + minor), minor);
    }
    Files.createLink(dev.resolve("copy-of-nvidia1"), dev.resolve("nvidia1"));
  }

  @BeforeEach
  void open() throws IOException {
    driver = CgroupV2.open(new CgroupConfig(CgroupConfig.Mode.V2, TOP + "/n1", Map.of()));
  }

  @AfterEach
  void cleanUp() throws IOException {
    RealCgroups.clear(driver, TIMEOUT);
  }

  @AfterAll
  static void sweep() throws IOException {
    RealCgroups.sweep(TOP);
  }

  @Test
  void eachJobIsDeniedTheOtherJobsGpuByWhateverPathAndKeepsItsOwn() throws Exception {
    assertTrue(driver.controllers().contains(CgroupV2.DEVICES), driver.describe());
    System.out.println(driver.describe());
    JobCgroup a = driver.create("1.a", List.of(), 0);
    JobCgroup b = driver.create("1.b", List.of(), 0);
    a.denyDevices(List.of(new Device(195, 1)));
    a.denyDevices(List.of(new Device(195, 1))); // again: a second, equal program
    b.denyDevices(List.of(new Device(195, 0)));
    String open = "for f in nvidia0 nvidia1 copy-of-nvidia1; do cat $f; done";

    String inA = runAsNobody(a, "a", open);
    assertTrue(inA.contains("cat: nvidia0: No such device or address\n"), inA);
    assertTrue(inA.contains("cat: nvidia1: Operation not permitted\n"), inA);
    assertTrue(inA.contains("cat: copy-of-nvidia1: Operation not permitted\n"), inA);

    String inB = runAsNobody(b, "b", open);
    assertTrue(inB.contains("cat: nvidia0: Operation not permitted\n"), inB);
    assertTrue(inB.contains("cat: nvidia1: No such device or address\n"), inB);
    assertTrue(inB.contains("cat: copy-of-nvidia1: No such device or address\n"), inB);
  }

  /** The job's processes cannot move to a cgroup without the program to reach the device. */
  @Test
  void aJobCannotLeaveItsCgroupForTheGpu() throws Exception {
    JobCgroup job = driver.create("2.a", List.of(), 0);
    job.denyDevices(List.of(new Device(195, 1)));
    Path top = mount.resolve("cgroup.procs");
    Path parent = job.procsFiles().get(0).getParent().getParent().resolve("cgroup.procs");

    String out =
        runAsNobody(job, "escape", "echo $$ > " + top + "; echo $$ > " + parent + "; cat nvidia1");

    assertTrue(out.contains(top + ": Permission denied\n"), out);
    assertTrue(out.contains(parent + ": Permission denied\n"), out);
    assertTrue(out.contains("cat: nvidia1: Operation not permitted\n"), out);
  }

  @Test
  void theMostDevicesAProgramTakesPassTheVerifierAndAreDenied() throws Exception {
    List<Device> devices = new ArrayList<>();
    for (int minor = 1; minor <= DeviceProgram.MAX_DEVICES; minor++) {
      devices.add(new Device(195, minor));
    }
    JobCgroup job = driver.create("3.a", List.of(), 0);
    job.denyDevices(devices);

    String out = runAsNobody(job, "many", "for f in nvidia0 nvidia1 nvidia1000; do cat $f; done");

    assertTrue(out.contains("cat: nvidia0: No such device or address\n"), out);
    assertTrue(out.contains("cat: nvidia1: Operation not permitted\n"), out);
    assertTrue(out.contains("cat: nvidia1000: Operation not permitted\n"), out);
    devices.add(new Device(195, 0));
    IOException e = assertThrows(IOException.class, () -> job.denyDevices(devices));
    assertTrue(e.getMessage().contains("at most 1000 devices, not 1001"), e.getMessage());
  }

  /**
   * Runs {@code script} in {@link #dev} as nobody in the job's cgroup, which the shell joins as
   * root before it opens anything, as berth-starter does; returns what it printed, after checking
   * that it ran as nobody in the job's cgroup.
   */
  private static String runAsNobody(JobCgroup job, String name, String script)
      throws IOException, InterruptedException {
    Path procs = job.procsFiles().get(0);
    Path output = tmp.resolve(name + ".out");
    Process p =
        new ProcessBuilder(
                "/bin/sh",
                "-c",
                "echo $$ > \"$0\" && exec setpriv --reuid=nobody --regid=nogroup --clear-groups"
                    + " /bin/sh -c \"$1\"",
                procs.toString(),
                "cd " + dev + " && id -un && cat /proc/self/cgroup && " + script)
            .redirectErrorStream(true)
            .redirectOutput(output.toFile())
            .start();
    try {
      assertTrue(p.waitFor(30, TimeUnit.SECONDS), name + " did not end");
    } finally {
      p.destroyForcibly();
    }
    String out = Files.readString(output);
    assertTrue(out.startsWith("nobody\n"), out);
    assertTrue(out.contains("0::/" + mount.relativize(procs.getParent()) + "\n"), out);
    return out;
  }
}

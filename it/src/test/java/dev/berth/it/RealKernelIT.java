package dev.berth.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Berth on a real kernel with cgroup v2, where sites run it: this host's kernel binds its cgroup
 * controllers to v1, so the v2 tests run in guests with a kernel of their own (ops/vm, Debian's
 * kernel in qemu; software emulation here). Each guest prints its tests' results (GuestTests), and
 * every test must have run and passed there: one the guest skipped is a failure here, except those
 * meant for hosts without v2 controllers.
 */
@Tag("integration")
class RealKernelIT {
  @TempDir static Path logs;

  @BeforeAll
  static void needsGuests() {
    String why = Guest.unavailable();
    if (why != null) {
      System.err.println("RealKernelIT: NO REAL-KERNEL TESTS: guests cannot start here: " + why);
    }
    assumeTrue(why == null, why);
    JobTools.ensureOnPath(); // the guest has this host's commands, read-only
  }

  /**
   * The mom's cgroup v2 driver on its own (the mom module's CgroupV2IT and CgroupV2DevicesIT), and
   * jobs of a server and two moms confined by it (CgroupV2Jobs), in one guest of two CPUs with a
   * disk for block I/O.
   */
  @Test
  void cgroupV2ConfinesJobsOnARealKernel() throws Exception {
    List<String> classes =
        List.of(
            "dev.berth.mom.os.cgroup.CgroupV2IT",
            "dev.berth.mom.os.cgroup.CgroupV2DevicesIT",
            CgroupV2Jobs.class.getName());
    Guest.Result r =
        Guest.runTests(
            // 466 s with nothing else running; past 8 min beside the rest of the suite
            Duration.ofMinutes(20),
            logs,
            List.of("--cpus", "2", "--memory", "3072", "--disk", "256"),
            classes);
    System.out.println(r.output());
    System.out.printf("RealKernelIT: cgroup v2 guest took %d s%n", r.took().toSeconds());
    assertEquals(0, r.exit(), "the guest's tests:\n" + r.output() + crashes());
    Set<String> passed = results(r.output(), "SUCCESSFUL");
    Set<String> notRun = new TreeSet<>(results(r.output(), "ABORTED"));
    notRun.addAll(results(r.output(), "SKIPPED"));
    // meant for a hybrid host: v2 without controllers
    assertEquals(
        Set.of("dev.berth.mom.os.cgroup.CgroupV2IT#withoutControllersAJobIsTrackedAndKilledAtOnce"),
        notRun,
        r.output());
    for (String test : testsOf(CgroupV2Jobs.class)) {
      assertTrue(passed.contains(test), test + " did not pass in the guest:\n" + r.output());
    }
    assertTrue(
        passed.contains("dev.berth.mom.os.cgroup.CgroupV2IT#aJobIsConfinedWhereV2HasControllers"),
        r.output());
  }

  /** The JVM crash reports the guest left, if any. */
  private static String crashes() throws IOException {
    StringBuilder all = new StringBuilder();
    try (var files = Files.list(logs)) {
      for (Path f : files.filter(p -> p.getFileName().toString().startsWith("hs_err")).toList()) {
        all.append("\n").append(f).append(":\n").append(Files.readString(f));
      }
    }
    return all.toString();
  }

  /** The tests the guest reported with {@code status}, as Class#method. */
  private static Set<String> results(String output, String status) {
    Set<String> found = new TreeSet<>();
    String mark = GuestTests.MARK + status + " ";
    output
        .lines()
        .filter(l -> l.startsWith(mark))
        .forEach(l -> found.add(l.substring(mark.length())));
    return found;
  }

  private static List<String> testsOf(Class<?> type) {
    List<String> tests = new ArrayList<>();
    for (Method m : type.getDeclaredMethods()) {
      if (m.isAnnotationPresent(Test.class)) {
        tests.add(type.getName() + "#" + m.getName());
      }
    }
    return tests;
  }
}

package dev.berth.it;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * Runs the JUnit classes named on the command line in this JVM and prints a line as each test
 * starts and one as it ends, {@code guest-test STARTED|SUCCESSFUL|FAILED|ABORTED|SKIPPED
 * Class#method}, with the failure's stack trace or the reason it was skipped below it. The guest
 * side of {@link Guest#runTests}: a guest has no Maven (which would take minutes to start under
 * emulation), only this JVM and the built classes.
 */
public final class GuestTests {
  static final String MARK = "guest-test ";

  private GuestTests() {}

  public static void main(String[] classes) {
    LauncherDiscoveryRequest request =
        LauncherDiscoveryRequestBuilder.request()
            .selectors(Arrays.stream(classes).map(DiscoverySelectors::selectClass).toList())
            .build();
    AtomicInteger failed = new AtomicInteger();
    AtomicInteger run = new AtomicInteger();
    TestExecutionListener report =
        new TestExecutionListener() {
          @Override
          public void executionStarted(TestIdentifier test) {
            if (test.isTest()) {
              print("STARTED", test, ""); // where a guest that hangs was
            }
          }

          @Override
          public void executionSkipped(TestIdentifier test, String reason) {
            if (test.isTest()) {
              print("SKIPPED", test, reason);
            }
          }

          @Override
          public void executionFinished(TestIdentifier test, TestExecutionResult result) {
            String detail = result.getThrowable().map(GuestTests::trace).orElse("");
            if (test.isTest()) {
              run.incrementAndGet();
              print(result.getStatus().name(), test, detail);
            } else if (result.getStatus() != TestExecutionResult.Status.SUCCESSFUL) {
              // a class whose set-up failed or was aborted runs none of its tests
              print(result.getStatus().name(), test, detail);
            }
            if (result.getStatus() == TestExecutionResult.Status.FAILED) {
              failed.incrementAndGet();
            }
          }
        };
    LauncherFactory.create().execute(request, report);
    System.out.println(MARK + "done: " + run + " run, " + failed + " failed");
    System.exit(failed.get() == 0 ? 0 : 1);
  }

  private static void print(String status, TestIdentifier test, String detail) {
    String name =
        test.getSource()
            .filter(MethodSource.class::isInstance)
            .map(s -> (MethodSource) s)
            .map(m -> m.getClassName() + "#" + m.getMethodName())
            .orElse(test.getLegacyReportingName());
    System.out.println(MARK + status + " " + name);
    if (!detail.isEmpty()) {
      System.out.println(detail.strip());
    }
    System.out.flush();
  }

  private static String trace(Throwable t) {
    StringWriter out = new StringWriter();
    t.printStackTrace(new PrintWriter(out));
    return out.toString();
  }
}

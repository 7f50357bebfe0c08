package dev.berth.security.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The cut runs once at the deadline unless the step was met first, and not after. */
class DeadlineTest {
  @Test
  void aStepNotMetIsCutAtItsDeadline() throws Exception {
    CountDownLatch cut = new CountDownLatch(1);
    long start = System.nanoTime();
    Deadline d = Deadline.in(Duration.ofMillis(200), cut::countDown);
    assertTrue(cut.await(10, TimeUnit.SECONDS));
    assertTrue(System.nanoTime() - start >= 200_000_000L, "not before its time");
    assertFalse(d.meet(), "met too late");
    assertFalse(d.meet(), "and the answer stays");
  }

  @Test
  void aStepMetInTimeIsNeverCut() throws Exception {
    AtomicInteger cuts = new AtomicInteger();
    Deadline met = Deadline.in(Duration.ofMillis(100), cuts::incrementAndGet);
    assertTrue(met.meet());
    assertTrue(met.meet(), "asked again");
    // a later deadline's cut shows that the timer has passed the first one's time
    CountDownLatch later = new CountDownLatch(1);
    Deadline.in(Duration.ofMillis(300), later::countDown);
    assertTrue(later.await(10, TimeUnit.SECONDS));
    assertEquals(0, cuts.get());
  }
}

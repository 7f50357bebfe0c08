package dev.berth.security.net;

import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One deadline for a whole step of a connection (a TLS handshake, showing a permit), however slowly
 * its bytes come: unless the step is met in time, the cut runs at the deadline. A read timeout
 * would not do: a peer that sends a byte now and then never lets one pass. One timer thread serves
 * every deadline of the process; a met deadline leaves nothing on it.
 */
public final class Deadline {
  private static final ScheduledThreadPoolExecutor TIMER = timer();

  private static final int PENDING = 0;
  private static final int MET = 1;
  private static final int CUT = 2;

  private final AtomicInteger state = new AtomicInteger(PENDING);
  private final ScheduledFuture<?> cut;

  private Deadline(Duration after, Runnable cut) {
    this.cut =
        TIMER.schedule(
            () -> {
              if (state.compareAndSet(PENDING, CUT)) {
                cut.run();
              }
            },
            after.toNanos(),
            TimeUnit.NANOSECONDS);
  }

  /** Runs {@code cut} {@code after} from now unless {@link #meet} comes first. */
  public static Deadline in(Duration after, Runnable cut) {
    return new Deadline(after, cut);
  }

  /**
   * The step is done: true if in time (the cut will not run), false if the cut came first (it ran,
   * or runs now). Asking again gives the same answer.
   */
  public boolean meet() {
    if (state.compareAndSet(PENDING, MET)) {
      cut.cancel(false);
      return true;
    }
    return state.get() == MET;
  }

  private static ScheduledThreadPoolExecutor timer() {
    ScheduledThreadPoolExecutor timer =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "berth-deadlines");
              t.setDaemon(true);
              return t;
            });
    timer.setRemoveOnCancelPolicy(true); // a met deadline is gone at once, not at its time
    return timer;
  }
}

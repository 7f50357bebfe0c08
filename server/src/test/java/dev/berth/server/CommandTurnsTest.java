package dev.berth.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class CommandTurnsTest {
  private final ExecutorService threads = Executors.newFixedThreadPool(4);
  private final CommandTurns turns = new CommandTurns(threads, 2);

  @AfterEach
  void stop() {
    threads.shutdownNow();
  }

  @Test
  void oneUsersFloodLeavesThreadsForOthers() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger aliceRunning = new AtomicInteger();
    AtomicInteger aliceMost = new AtomicInteger();
    CountDownLatch aliceStarted = new CountDownLatch(2);
    CountDownLatch aliceDone = new CountDownLatch(20);
    for (int i = 0; i < 20; i++) {
      turns.submit(
          "alice@h",
          () -> {
            aliceMost.accumulateAndGet(aliceRunning.incrementAndGet(), Math::max);
            aliceStarted.countDown();
            try {
              release.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            aliceRunning.decrementAndGet();
            aliceDone.countDown();
          });
    }
    // alice's first two hold two threads; bob's command runs at once on a third
    assertTrue(aliceStarted.await(10, TimeUnit.SECONDS), "alice's first commands did not start");
    CountDownLatch bobRan = new CountDownLatch(1);
    turns.submit("bob@h", bobRan::countDown);
    assertTrue(bobRan.await(10, TimeUnit.SECONDS), "bob waited behind alice's commands");
    assertEquals(2, aliceRunning.get());
    release.countDown();
    assertTrue(aliceDone.await(10, TimeUnit.SECONDS), "every one of alice's commands ran");
    assertEquals(2, aliceMost.get(), "alice never had more than two running");
  }

  @Test
  void usersTakeTurnsInTheOrderTheyCame() throws Exception {
    ExecutorService one = Executors.newSingleThreadExecutor();
    try {
      CommandTurns single = new CommandTurns(one, 1);
      CountDownLatch hold = new CountDownLatch(1);
      List<String> order = new CopyOnWriteArrayList<>();
      CountDownLatch all = new CountDownLatch(7);
      single.submit("first@h", () -> await(hold));
      for (String user : List.of("alice@h", "alice@h", "alice@h", "bob@h", "carol@h", "bob@h")) {
        single.submit(
            user,
            () -> {
              order.add(user);
              all.countDown();
            });
      }
      hold.countDown();
      all.countDown(); // the first command
      assertTrue(all.await(10, TimeUnit.SECONDS));
      assertEquals(List.of("alice@h", "bob@h", "carol@h", "alice@h", "bob@h", "alice@h"), order);
    } finally {
      one.shutdownNow();
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

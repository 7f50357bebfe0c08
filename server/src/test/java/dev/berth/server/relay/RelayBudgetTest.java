package dev.berth.server.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** What relays hold is kept to a share per host and a total for the port. */
class RelayBudgetTest {
  private final RelayBudget budget = new RelayBudget(100, 250);

  @Test
  void aHostOverItsShareWaitsAndIsRefusedAfterItsPatience() throws IOException {
    budget.takeRequest("login1", 60, Duration.ZERO);
    budget.takeRequest("login1", 40, Duration.ZERO);
    IOException e =
        assertThrows(
            IOException.class, () -> budget.takeRequest("login1", 1, Duration.ofMillis(10)));
    assertTrue(
        e.getMessage().contains("within 10 ms: its host holds 100b of 100b"), e.getMessage());
    assertEquals(100, budget.held("login1"));
  }

  @Test
  void anotherHostHasRoomWhileOneIsFull() throws IOException {
    budget.takeRequest("login1", 100, Duration.ZERO);
    budget.takeRequest("login2", 100, Duration.ZERO);
    assertEquals(200, budget.total());
    IOException e =
        assertThrows(
            IOException.class, () -> budget.takeRequest("login3", 60, Duration.ofMillis(10)));
    assertTrue(e.getMessage().contains("all relays 200b of 250b"), e.getMessage());
  }

  @Test
  void aWaitingRequestGoesOnWhenItsHostGivesBack() throws Exception {
    budget.takeRequest("login1", 100, Duration.ZERO);
    CompletableFuture<Void> waiting =
        CompletableFuture.runAsync(
            () -> {
              try {
                budget.takeRequest("login1", 50, Duration.ofSeconds(30));
              } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
            });
    budget.giveBack("login1", 100);
    waiting.get(30, TimeUnit.SECONDS);
    assertEquals(50, budget.held("login1"));
    assertEquals(50, budget.total());
  }

  @Test
  void repliesAreCountedEvenPastTheShareAndKeepTheirHostWaiting() {
    budget.takeReply("login1", 180);
    assertEquals(180, budget.held("login1"));
    assertThrows(IOException.class, () -> budget.takeRequest("login1", 1, Duration.ofMillis(10)));
    budget.giveBack("login1", 180);
    assertEquals(0, budget.total());
  }

  @Test
  void aRequestLargerThanTheShareStillGoesAloneWhenItsHostHoldsNothing() throws IOException {
    budget.takeRequest("login1", 150, Duration.ZERO);
    assertEquals(150, budget.held("login1"));
  }

  @Test
  void theDefaultsAreFourFramesAHostAndSixteenForThePortOnALargeHeap() {
    RelayBudget large = RelayBudget.forFrames(16 << 20, 1L << 30);
    assertEquals(64L << 20, large.hostBytes());
    assertEquals(256L << 20, large.portBytes());
  }

  @Test
  void onASmallHeapThePortHoldsAsMuchAsTheLocalClientsButAlwaysFourFrames() {
    RelayBudget small = RelayBudget.forFrames(16 << 20, 64L << 20);
    assertEquals(16L << 20, small.hostBytes(), "one largest request");
    assertEquals(64L << 20, small.portBytes());
    RelayBudget tiny = RelayBudget.forFrames(16 << 20, 32L << 20);
    assertEquals(64L << 20, tiny.portBytes(), "four of the largest requests");
    RelayBudget middle = RelayBudget.forFrames(16 << 20, 128L << 20);
    assertEquals(32L << 20, middle.hostBytes());
    assertEquals(128L << 20, middle.portBytes());
  }
}

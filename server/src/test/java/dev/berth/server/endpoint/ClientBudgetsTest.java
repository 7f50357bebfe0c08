package dev.berth.server.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.server.endpoint.ClientLimits.Limit;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What each user's clients, and all users' together, may hold, and who is exempt from what. */
class ClientBudgetsTest {
  private static final ClientLimits LIMITS =
      ClientLimits.defaults(1L << 30)
          .with(
              "frame=50,user_connections=2,connections=3,user_requests=2,user_buffer=100,"
                  + "user_replies=50,buffer=150");

  private final ClientBudgets budgets = new ClientBudgets(LIMITS, Set.of("root"));

  @Test
  void eachUserHasItsOwnConnectionsAndAllTogetherAreCapped() {
    budgets.connect("bob");
    budgets.connect("bob");
    assertEquals(Limit.USER_CONNECTIONS, budgets.refusal("bob"));
    assertNull(budgets.refusal("alice"), "bob's limit is bob's");
    budgets.connect("alice");
    assertEquals(Limit.CONNECTIONS, budgets.refusal("carol"), "three in all");
    for (int i = 0; i < 5; i++) {
      assertNull(budgets.refusal("root"), "others cannot lock root out, nor can root itself");
      budgets.connect("root");
    }
    assertEquals(3, budgets.connections(), "root's are not counted in the total");
  }

  @Test
  void requestBytesAreTakenUpToTheUsersBudgetAndGivenBack() {
    ClientBudgets.Account bob = budgets.connect("bob");
    assertNull(bob.takeRequestBytes(60));
    assertEquals(Limit.USER_BUFFER, bob.takeRequestBytes(41));
    assertEquals(60, bob.requestBytes(), "a refused take takes nothing");
    assertNull(bob.takeRequestBytes(40));
    bob.releaseRequestBytes(100);
    assertEquals(0, budgets.bytes());
    assertTrue(budgets.takeFreed());
    assertFalse(budgets.takeFreed(), "asked once per release");
  }

  @Test
  void usersTogetherAreCappedButRootIsNotCounted() {
    ClientBudgets.Account alice = budgets.connect("alice");
    ClientBudgets.Account bob = budgets.connect("bob");
    ClientBudgets.Account root = budgets.connect("root");
    assertNull(alice.takeRequestBytes(100));
    assertEquals(Limit.BUFFER, bob.takeRequestBytes(60), "150 in all");
    assertNull(root.takeRequestBytes(100), "root is not held back by the others");
    assertEquals(Limit.USER_BUFFER, root.takeRequestBytes(1), "but by its own budget");
    assertEquals(100, budgets.bytes());
    bob.holdReply(60); // replies already made are always kept
    assertEquals(160, budgets.bytes());
    assertEquals(Limit.BUFFER, alice.startRequest(), "no new work while all are over");
    assertNull(root.startRequest());
  }

  @Test
  void aUserWithTooManyRequestsOrUnreadRepliesWaits() {
    ClientBudgets.Account bob = budgets.connect("bob");
    assertNull(bob.startRequest());
    assertNull(bob.startRequest());
    assertEquals(Limit.USER_REQUESTS, bob.startRequest());
    bob.finishRequest();
    bob.holdReply(50);
    assertEquals(Limit.USER_REPLIES, bob.startRequest());
    bob.releaseReply(50);
    assertNull(bob.startRequest());
    assertEquals(2, bob.requests());
    ClientBudgets.Account root = budgets.connect("root");
    for (int i = 0; i < 5; i++) {
      assertNull(root.startRequest(), "root's requests are not counted");
    }
    root.holdReply(50);
    assertEquals(Limit.USER_REPLIES, root.startRequest(), "but its unread replies are");
  }

  @Test
  void aUserWhoseClientsAreAllGoneIsForgotten() {
    ClientBudgets.Account bob = budgets.connect("bob");
    bob.startRequest();
    bob.holdRequestBytes(10);
    bob.disconnect(); // the request is still being worked on
    assertEquals(1, budgets.connect("bob").requests(), "the same account while work is left");
    budgets.connect("bob").disconnect();
    bob.disconnect();
    bob.finishRequest();
    bob.releaseRequestBytes(10);
    assertEquals(0, budgets.connect("bob").requests(), "a fresh account");
    assertEquals(0, budgets.bytes());
  }
}

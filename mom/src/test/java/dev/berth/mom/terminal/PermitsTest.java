package dev.berth.mom.terminal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.proto.Letter;
import dev.berth.proto.Probe;
import dev.berth.proto.Sealed;
import dev.berth.proto.TerminalPermit;
import dev.berth.security.Identity;
import dev.berth.security.NotTrustedException;
import dev.berth.security.Role;
import dev.berth.security.seal.InsecureSeal;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/**
 * The rules a permit must meet; that a signature is checked at all is the seal's (and
 * InteractiveIT's).
 */
class PermitsTest {
  private static final Instant NOW = Instant.parse("2026-12-03T10:00:00Z");
  private final Permits permits =
      new Permits(
          new InsecureSeal(new Identity(Role.MOM, "a"), Clock.fixed(NOW, ZoneOffset.UTC)),
          Clock.fixed(NOW, ZoneOffset.UTC));

  private static Sealed sealed(Role from, String to, Instant when, boolean permit) {
    Letter.Builder letter = Letter.newBuilder().setTo(to);
    if (permit) {
      letter.setTerminalPermit(TerminalPermit.newBuilder().setJobId("7.srv").setUser("alice"));
    } else {
      letter.setProbe(Probe.getDefaultInstance());
    }
    return new InsecureSeal(new Identity(from, "head"), Clock.fixed(when, ZoneOffset.UTC))
        .seal(letter);
  }

  @Test
  void aFreshServersPermitForThisNodeIsTaken() throws Exception {
    TerminalPermit p = permits.check(sealed(Role.SERVER, "a", NOW.minusSeconds(5), true));
    assertEquals("7.srv", p.getJobId());
    assertEquals("alice", p.getUser());
  }

  @Test
  void anotherNodesAnotherDaemonsAStaleOrNoPermitIsRefused() {
    assertThrows(
        NotTrustedException.class,
        () -> permits.check(sealed(Role.SERVER, "b", NOW, true)),
        "addressed to node b");
    NotTrustedException mom =
        assertThrows(
            NotTrustedException.class, () -> permits.check(sealed(Role.MOM, "a", NOW, true)));
    assertTrue(mom.getMessage().contains("not a server's"), mom.getMessage());
    NotTrustedException stale =
        assertThrows(
            NotTrustedException.class,
            () ->
                permits.check(
                    sealed(Role.SERVER, "a", NOW.minus(Permits.GOOD_FOR).minusSeconds(1), true)));
    assertTrue(stale.getMessage().contains("ask the server for a new one"), stale.getMessage());
    assertThrows(
        NotTrustedException.class,
        () -> permits.check(sealed(Role.SERVER, "a", NOW.plus(Duration.ofMinutes(5)), true)),
        "from the future");
    assertThrows(
        NotTrustedException.class,
        () -> permits.check(sealed(Role.SERVER, "a", NOW, false)),
        "not a permit");
  }
}

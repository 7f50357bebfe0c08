package dev.berth.mom.terminal;

import dev.berth.proto.Sealed;
import dev.berth.proto.TerminalPermit;
import dev.berth.security.NotTrustedException;
import dev.berth.security.Role;
import dev.berth.security.seal.Seal;
import java.time.Clock;
import java.time.Duration;

/**
 * Checks the permit a client shows the terminal port: sealed by a server, addressed to this mom (so
 * a permit for another node, handed on, is refused), and fresh. Which job it names, and that the
 * job takes a session now, the job decides.
 */
final class Permits {
  /** How long after sealing a permit is taken: qsub uses it at once. */
  static final Duration GOOD_FOR = Duration.ofMinutes(10);

  /** How far a server's clock may be ahead of this node's. */
  private static final Duration SKEW = Duration.ofMinutes(1);

  private final Seal seal;
  private final Clock clock;

  Permits(Seal seal, Clock clock) {
    this.seal = seal;
    this.clock = clock;
  }

  TerminalPermit check(Sealed sealed) throws NotTrustedException {
    Seal.Opened opened = seal.open(sealed);
    if (opened.from().role() != Role.SERVER) {
      throw new NotTrustedException("the permit is not a server's (it is " + opened.from() + "'s)");
    }
    if (!opened.letter().hasTerminalPermit()) {
      throw new NotTrustedException("what was shown is not a terminal permit");
    }
    long age = clock.millis() - opened.letter().getSentMillis();
    if (age > GOOD_FOR.toMillis() || age < -SKEW.toMillis()) {
      throw new NotTrustedException(
          "the permit was sealed " + age / 1000 + " s ago; ask the server for a new one");
    }
    return opened.letter().getTerminalPermit();
  }
}

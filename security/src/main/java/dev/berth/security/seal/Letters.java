package dev.berth.security.seal;

import dev.berth.proto.Letter;
import dev.berth.security.Identity;
import dev.berth.security.NotTrustedException;
import dev.berth.security.Role;

/** Checks both kinds of seal make of a letter. */
final class Letters {
  private Letters() {}

  /** Whom the letter says it is from. */
  static Identity sender(Letter letter) throws NotTrustedException {
    try {
      return new Identity(Role.of(letter.getFromRole()), letter.getFrom());
    } catch (IllegalArgumentException e) {
      throw new NotTrustedException("a letter with no valid sender: " + e.getMessage());
    }
  }

  /**
   * A letter for another daemon must not be acted on: one member could otherwise hand another the
   * messages it was sent (a server's order for its own node, replayed to a different node).
   */
  static void checkAddressedTo(Seal.Opened opened, String address) throws NotTrustedException {
    if (!opened.letter().getTo().equals(address)) {
      throw new NotTrustedException(
          "a letter from "
              + opened.from()
              + " addressed to '"
              + opened.letter().getTo()
              + "', not to '"
              + address
              + "'");
    }
  }
}

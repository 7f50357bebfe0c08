package dev.berth.security.seal;

import dev.berth.proto.Letter;
import dev.berth.proto.Sealed;
import dev.berth.security.Identity;
import dev.berth.security.NotTrustedException;
import dev.berth.security.Role;
import java.security.cert.X509Certificate;
import java.util.List;

/**
 * Seals the letters a daemon sends to other daemons and opens the ones it receives, so that every
 * receiver knows who sent a message from a signature, never from what the message says.
 */
public interface Seal {
  /** Where letters to the active server are addressed (any server may be active). */
  String SERVER = "server";

  /** Whom this daemon's letters come from. */
  Identity self();

  /**
   * The CA certificates this daemon's letters and peers are checked against; empty when it runs
   * without credentials (--insecure). Handed to clients that must check a daemon's certificate.
   */
  List<X509Certificate> anchors();

  /** Seals a letter from this daemon: fills in its sender and the time. */
  Sealed seal(Letter.Builder letter);

  /** Opens a letter addressed to this daemon; fails if it is not, or if its seal is not good. */
  Opened open(Sealed sealed) throws NotTrustedException;

  /**
   * Opens a letter sealed for someone else and handed on, as the grant a mother superior shows its
   * sisters; the caller checks whom it was for.
   */
  Opened openHandedOn(Sealed sealed) throws NotTrustedException;

  /** A letter whose seal is good, and who sealed it. */
  record Opened(Identity from, Letter letter) {}

  /** The address letters to {@code identity} carry. */
  static String addressOf(Identity identity) {
    return identity.role() == Role.SERVER ? SERVER : identity.name();
  }
}

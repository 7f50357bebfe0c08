package dev.berth.security;

import dev.berth.proto.PeerRole;
import java.util.Locale;

/**
 * What a credential lets its holder be. A server credential may act as the server; a mom credential
 * may act only as the node it names; a broker credential serves the Kafka journal; a submit-host
 * credential lets the relay of the host it names speak for that host's users to the server; a
 * monitor credential lets its holder (Prometheus) read the daemons' metrics, and nothing else.
 * Brokers, submit hosts and monitors join no cluster.
 */
public enum Role {
  SERVER,
  MOM,
  BROKER,
  SUBMIT,
  MONITOR;

  /**
   * The word in certificates and file names: {@code server}, {@code mom}, {@code broker}, {@code
   * submit}, {@code monitor}.
   */
  public String word() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static Role ofWord(String word) {
    for (Role r : values()) {
      if (r.word().equals(word)) {
        return r;
      }
    }
    throw new IllegalArgumentException(
        "unknown role '" + word + "' (expected server, mom, broker, submit or monitor)");
  }

  /** The role as node-protocol letters carry it; brokers, relays and monitors send no letters. */
  public PeerRole peerRole() {
    return switch (this) {
      case SERVER -> PeerRole.PEER_SERVER;
      case MOM -> PeerRole.PEER_MOM;
      case BROKER, SUBMIT, MONITOR -> PeerRole.PEER_ROLE_UNSPECIFIED;
    };
  }

  public static Role of(PeerRole role) {
    return switch (role) {
      case PEER_SERVER -> SERVER;
      case PEER_MOM -> MOM;
      default -> throw new IllegalArgumentException("a letter names no sender role");
    };
  }
}

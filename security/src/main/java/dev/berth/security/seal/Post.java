package dev.berth.security.seal;

import dev.berth.proto.Letter;
import dev.berth.proto.Sealed;
import dev.berth.security.Identity;
import dev.berth.security.NotTrustedException;
import java.util.Optional;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;

/**
 * A daemon's letters in and out: what it sends is sealed, with its own inbox as the reply address;
 * what it receives is opened, and refused (logged, dropped) unless its seal holds; the reply
 * addresses of letters it opened resolve to actors. An address is only what its sender wrote, so
 * one that does not resolve is refused as that sender's doing.
 */
public final class Post {
  private final Seal seal;
  private final String replyTo;
  private final ActorRefResolver resolver;
  private final Refusals refusals;

  public Post(Seal seal, ActorRef<Sealed> inbox, ActorRefResolver resolver, Refusals refusals) {
    this.seal = seal;
    this.replyTo = resolver.toSerializationFormat(inbox);
    this.resolver = resolver;
    this.refusals = refusals;
  }

  /** A letter for {@code to} (a seal's address), answered to this daemon's inbox. */
  public Letter.Builder letter(String to) {
    return Letter.newBuilder().setTo(to).setReplyTo(replyTo);
  }

  public Sealed seal(Letter.Builder letter) {
    return seal.seal(letter);
  }

  /** The letter and its proven sender; empty when its seal does not hold (refused). */
  public Optional<Seal.Opened> open(Sealed sealed) {
    try {
      return Optional.of(seal.open(sealed));
    } catch (NotTrustedException e) {
      refusals.refused(e.getMessage());
      return Optional.empty();
    }
  }

  /** The actor at {@code ref}, the reply address in a letter {@code of} sealed. */
  public Optional<ActorRef<Sealed>> resolve(String ref, Identity of) {
    try {
      return Optional.of(resolver.resolveActorRef(ref));
    } catch (RuntimeException e) {
      refusals.refused("a letter from " + of + " with an unusable reply address");
      return Optional.empty();
    }
  }
}

package dev.berth.security.seal;

import dev.berth.proto.Letter;
import dev.berth.proto.Sealed;
import dev.berth.security.Identity;
import java.util.Optional;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;

/**
 * Where letters go: this daemon's own inbox, written as the reply address of every letter it sends,
 * and the reply addresses of letters it opened, resolved to actors. An address is only what its
 * sender wrote, so one that does not resolve is refused as that sender's doing.
 */
public final class Addresses {
  private final String replyTo;
  private final ActorRefResolver resolver;
  private final Refusals refusals;

  public Addresses(ActorRef<Sealed> inbox, ActorRefResolver resolver, Refusals refusals) {
    this.replyTo = resolver.toSerializationFormat(inbox);
    this.resolver = resolver;
    this.refusals = refusals;
  }

  /** A letter for {@code to} (a seal's address), answered to this daemon's inbox. */
  public Letter.Builder letter(String to) {
    return Letter.newBuilder().setTo(to).setReplyTo(replyTo);
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

package dev.berth.mom;

import dev.berth.proto.Letter;
import dev.berth.proto.MomInbound;
import dev.berth.proto.ProbeReply;
import dev.berth.proto.Sealed;
import dev.berth.proto.ServerInbound;
import dev.berth.security.NotTrustedException;
import dev.berth.security.seal.Seal;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * A stand-in for the server in the mom's tests: it answers the mom's probe with its seal, hands the
 * reports it opens to a test probe, and seals what the test sends to the mom.
 */
final class ServerStub {
  private ServerStub() {}

  /**
   * Seal {@code message} with {@code seal} (the server's, or a forger's) and send it to the mom.
   */
  record Send(MomInbound message, Seal seal) {}

  /** The mom's inbox as the stub last heard it, for the test. */
  record WhereIsMom(ActorRef<ActorRef<Sealed>> replyTo) {}

  static Behavior<Object> create(Seal seal, ActorRef<ServerInbound> reports) {
    return Behaviors.setup(
        ctx -> {
          ActorRefResolver resolver = ActorRefResolver.get(ctx.getSystem());
          String self = resolver.toSerializationFormat(ctx.getSelf());
          @SuppressWarnings("unchecked")
          ActorRef<Sealed>[] mom = new ActorRef[1];
          String[] node = {""};
          return Behaviors.receive(Object.class)
              .onMessage(
                  Sealed.class,
                  incoming -> {
                    Seal.Opened opened;
                    try {
                      opened = seal.open(incoming);
                    } catch (NotTrustedException e) {
                      ctx.getLog().warn("stub refused a letter: {}", e.getMessage());
                      return Behaviors.same();
                    }
                    Letter letter = opened.letter();
                    mom[0] = resolver.resolveActorRef(letter.getReplyTo());
                    node[0] = opened.from().name();
                    if (letter.hasProbe()) {
                      mom[0].tell(
                          seal.seal(
                              Letter.newBuilder()
                                  .setTo(node[0])
                                  .setReplyTo(self)
                                  .setProbeReply(
                                      ProbeReply.newBuilder()
                                          .setNonce(letter.getProbe().getNonce()))));
                    } else if (letter.hasToServer()) {
                      reports.tell(letter.getToServer());
                    }
                    return Behaviors.same();
                  })
              .onMessage(
                  Send.class,
                  s -> {
                    mom[0].tell(
                        s.seal()
                            .seal(
                                Letter.newBuilder()
                                    .setTo(node[0])
                                    .setReplyTo(self)
                                    .setToMom(s.message())));
                    return Behaviors.same();
                  })
              .onMessage(
                  WhereIsMom.class,
                  w -> {
                    w.replyTo().tell(mom[0]);
                    return Behaviors.same();
                  })
              .build();
        });
  }
}

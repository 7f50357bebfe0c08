package dev.berth.mom;

import dev.berth.proto.Letter;
import dev.berth.proto.MomInbound;
import dev.berth.proto.ProbeReply;
import dev.berth.proto.Sealed;
import dev.berth.proto.ServerInbound;
import dev.berth.security.NotTrustedException;
import dev.berth.security.seal.Seal;
import java.util.HashMap;
import java.util.Map;
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
   * Seal {@code message} with {@code seal} (the server's, or a forger's) and send it to the mom of
   * {@code node}.
   */
  record Send(String node, MomInbound message, Seal seal) {}

  /** The inbox of the mom of {@code node} as the stub last heard it, for the test. */
  record WhereIsMom(String node, ActorRef<ActorRef<Sealed>> replyTo) {}

  static Behavior<Object> create(Seal seal, ActorRef<ServerInbound> reports) {
    return Behaviors.setup(
        ctx -> {
          ActorRefResolver resolver = ActorRefResolver.get(ctx.getSystem());
          String self = resolver.toSerializationFormat(ctx.getSelf());
          Map<String, ActorRef<Sealed>> moms = new HashMap<>();
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
                    String node = opened.from().name();
                    ActorRef<Sealed> mom = resolver.resolveActorRef(letter.getReplyTo());
                    moms.put(node, mom);
                    if (letter.hasProbe()) {
                      mom.tell(
                          seal.seal(
                              Letter.newBuilder()
                                  .setTo(node)
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
                    moms.get(s.node())
                        .tell(
                            s.seal()
                                .seal(
                                    Letter.newBuilder()
                                        .setTo(s.node())
                                        .setReplyTo(self)
                                        .setToMom(s.message())));
                    return Behaviors.same();
                  })
              .onMessage(
                  WhereIsMom.class,
                  w -> {
                    w.replyTo().tell(moms.get(w.node()));
                    return Behaviors.same();
                  })
              .build();
        });
  }
}

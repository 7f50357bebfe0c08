package dev.berth.server;

import dev.berth.proto.Letter;
import dev.berth.proto.MomInbound;
import dev.berth.proto.ProbeReply;
import dev.berth.proto.RunJob;
import dev.berth.proto.Sealed;
import dev.berth.proto.ServerInbound;
import dev.berth.security.Identity;
import dev.berth.security.Role;
import dev.berth.security.seal.Post;
import dev.berth.security.seal.Refusals;
import dev.berth.security.seal.Seal;
import java.util.Optional;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;

/**
 * The server's post to and from moms: it opens their letters and acts on one only if a mom sealed
 * it, and only for the node that mom's credential names; it answers probes, so that moms can tell
 * the real server from anyone registered under its name; and it seals what the server sends. Used
 * from the server actor only.
 */
final class MomPost {
  /** A mom's report, and where that mom is now (the letter's reply address). */
  record Report(ServerInbound message, ActorRef<Sealed> mom) {}

  private final Post post;
  private final Refusals refusals;

  MomPost(Seal seal, ActorRef<Sealed> inbox, ActorRefResolver resolver, Refusals refusals) {
    this.post = new Post(seal, inbox, resolver, refusals);
    this.refusals = refusals;
  }

  /** The report a letter brings; empty when it was refused, or a probe (answered here). */
  Optional<Report> open(Sealed sealed) {
    return post.open(sealed).flatMap(this::report);
  }

  private Optional<Report> report(Seal.Opened opened) {
    Identity from = opened.from();
    Letter letter = opened.letter();
    if (from.role() != Role.MOM) {
      refusals.refused("a letter from " + from + ", which is not a mom");
      return Optional.empty();
    }
    Optional<ActorRef<Sealed>> mom = post.resolve(letter.getReplyTo(), from);
    if (mom.isEmpty()) {
      return Optional.empty();
    }
    if (letter.hasProbe()) {
      mom.get()
          .tell(
              post.seal(
                  post.letter(from.name())
                      .setProbeReply(
                          ProbeReply.newBuilder().setNonce(letter.getProbe().getNonce()))));
      return Optional.empty();
    }
    if (!letter.hasToServer()) {
      refusals.refused("a " + letter.getBodyCase() + " letter from " + from + " to the server");
      return Optional.empty();
    }
    String node = ServerActor.nodeOf(letter.getToServer());
    if (!node.equals(from.name())) {
      refusals.refused(
          from + " reported for node '" + node + "'; a mom reports only for its own node");
      return Optional.empty();
    }
    return Optional.of(new Report(letter.getToServer(), mom.get()));
  }

  /**
   * Seals {@code message} for the mom of {@code node}; a run request for a job with other nodes
   * gets the placement its mother superior shows them (a job on one node has no one to show it to,
   * and a signature costs more than the rest of its letter).
   */
  void send(ActorRef<Sealed> mom, String node, MomInbound message) {
    if (message.hasRun() && hasSisters(node, message.getRun())) {
      message = MomInbound.newBuilder().setRun(withGrant(node, message.getRun())).build();
    }
    mom.tell(post.seal(post.letter(node).setToMom(message)));
  }

  private static boolean hasSisters(String node, RunJob run) {
    return run.getJob().getExecNodesList().stream().anyMatch(a -> !a.getNode().equals(node));
  }

  /** The run request with its placement: itself without the script, sealed for {@code node}. */
  private RunJob withGrant(String node, RunJob run) {
    MomInbound placement =
        MomInbound.newBuilder().setRun(run.toBuilder().clearScript().clearGrant()).build();
    return run.toBuilder().setGrant(post.seal(post.letter(node).setToMom(placement))).build();
  }
}

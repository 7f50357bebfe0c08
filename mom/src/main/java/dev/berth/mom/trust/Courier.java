package dev.berth.mom.trust;

import com.google.protobuf.ByteString;
import dev.berth.proto.Letter;
import dev.berth.proto.MomInbound;
import dev.berth.proto.Probe;
import dev.berth.proto.ProbeReply;
import dev.berth.proto.Sealed;
import dev.berth.proto.ServerInbound;
import dev.berth.security.Identity;
import dev.berth.security.Role;
import dev.berth.security.seal.Post;
import dev.berth.security.seal.Refusals;
import dev.berth.security.seal.Seal;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;

/**
 * A mom's post: seals what it sends, opens what it receives, and knows where the server and the
 * other nodes' moms are. Anyone in the cluster can register under any name in the receptionist, so
 * an address found there is only a candidate: it is probed, and used once it has answered with a
 * letter sealed as the server or as that node. Letters from a proven sender also tell where it is
 * now (their reply_to). Used from the mom actor only.
 */
public final class Courier {
  /** Messages for a node not found yet; everything between moms is sent again until answered. */
  private static final int MAX_HELD = 100;

  /** Probes without an answer are forgotten after this many (a member that never answers). */
  private static final int MAX_PROBES = 1000;

  private static final SecureRandom RANDOM = new SecureRandom();

  /** What a letter brought that the mom must act on. */
  public record Received(Identity from, MomInbound message) {}

  private record Probed(Role role, String name) {}

  private final Post post;
  private final Refusals refusals;
  private final Runnable serverFound;
  private final Map<String, Probed> probes = new HashMap<>();
  private final Map<String, ActorRef<Sealed>> peers = new HashMap<>();
  private final Map<String, List<MomInbound>> held = new HashMap<>();
  private Set<ActorRef<Sealed>> listedServers = Set.of();
  private ActorRef<Sealed> server;
  private Identity serverIdentity;

  public Courier(
      Seal seal,
      ActorRef<Sealed> inbox,
      ActorRefResolver resolver,
      Refusals refusals,
      Runnable serverFound) {
    this.post = new Post(seal, inbox, resolver, refusals);
    this.refusals = refusals;
    this.serverFound = serverFound;
  }

  /** The server this mom reports to, once one has proven itself. */
  public Optional<Identity> server() {
    return Optional.ofNullable(server == null ? null : serverIdentity);
  }

  /**
   * The receptionist's servers: the one this mom reports to stays while listed (a second entry is a
   * server taking over while the old one is not gone yet); new ones are probed.
   */
  public void serversListed(Set<ActorRef<Sealed>> listed) {
    listedServers = Set.copyOf(listed);
    if (server != null && !listed.contains(server)) {
      server = null;
      serverIdentity = null;
    }
    if (server == null) {
      listed.forEach(candidate -> probe(candidate, new Probed(Role.SERVER, Seal.SERVER)));
    }
  }

  /** The receptionist's entries for another node's mom: probed before anything is sent there. */
  public void peersListed(String node, Set<ActorRef<Sealed>> listed) {
    ActorRef<Sealed> proven = peers.get(node);
    if (proven != null && !listed.contains(proven)) {
      peers.remove(node);
    }
    listed.stream()
        .filter(candidate -> !candidate.equals(peers.get(node)))
        .forEach(candidate -> probe(candidate, new Probed(Role.MOM, node)));
  }

  private void probe(ActorRef<Sealed> candidate, Probed expected) {
    if (probes.size() >= MAX_PROBES) {
      probes.clear();
    }
    byte[] nonce = new byte[16];
    RANDOM.nextBytes(nonce);
    probes.put(HexFormat.of().formatHex(nonce), expected);
    candidate.tell(
        post.seal(
            post.letter(expected.name())
                .setProbe(Probe.newBuilder().setNonce(ByteString.copyFrom(nonce)))));
  }

  public void toServer(ServerInbound message) {
    if (server != null) {
      server.tell(post.seal(post.letter(Seal.SERVER).setToServer(message)));
    }
  }

  /**
   * Sends to another node's mom, or holds the message until that mom has proven itself; true when
   * the node is new to this courier and the caller should look it up in the receptionist.
   */
  public boolean toPeer(String node, MomInbound message) {
    ActorRef<Sealed> peer = peers.get(node);
    if (peer != null) {
      peer.tell(post.seal(post.letter(node).setToMom(message)));
      return false;
    }
    boolean unknown = !held.containsKey(node);
    List<MomInbound> waiting = held.computeIfAbsent(node, n -> new ArrayList<>());
    if (waiting.size() < MAX_HELD) {
      waiting.add(message);
    }
    return unknown;
  }

  /** Opens a letter: probes are answered here; a node message comes back with its sender. */
  public Optional<Received> open(Sealed sealed) {
    return post.open(sealed).flatMap(this::received);
  }

  private Optional<Received> received(Seal.Opened opened) {
    Letter letter = opened.letter();
    Identity from = opened.from();
    return switch (letter.getBodyCase()) {
      case PROBE -> {
        answer(opened);
        yield Optional.empty();
      }
      case PROBE_REPLY -> {
        proven(opened);
        yield Optional.empty();
      }
      case TO_MOM -> {
        if (from.role() == Role.MOM) {
          learn(from.name(), letter.getReplyTo());
        }
        yield Optional.of(new Received(from, letter.getToMom()));
      }
      default -> {
        refusals.refused("a " + letter.getBodyCase() + " letter from " + from + " to a mom");
        yield Optional.empty();
      }
    };
  }

  private void answer(Seal.Opened probe) {
    post.resolve(probe.letter().getReplyTo(), probe.from())
        .ifPresent(
            ref ->
                ref.tell(
                    post.seal(
                        post.letter(Seal.addressOf(probe.from()))
                            .setProbeReply(
                                ProbeReply.newBuilder()
                                    .setNonce(probe.letter().getProbe().getNonce())))));
  }

  private void proven(Seal.Opened reply) {
    String nonce =
        HexFormat.of().formatHex(reply.letter().getProbeReply().getNonce().toByteArray());
    Probed expected = probes.remove(nonce);
    if (expected == null) {
      return; // an answer to a probe long forgotten, or to none
    }
    Identity from = reply.from();
    if (from.role() != expected.role()
        || (expected.role() == Role.MOM && !from.name().equals(expected.name()))) {
      refusals.refused(
          "a member registered as "
              + expected.role().word()
              + " "
              + expected.name()
              + " proved to be "
              + from);
      return;
    }
    Optional<ActorRef<Sealed>> ref = post.resolve(reply.letter().getReplyTo(), from);
    if (ref.isEmpty()) {
      return;
    }
    if (from.role() == Role.SERVER) {
      if (server == null && listedServers.contains(ref.get())) {
        server = ref.get();
        serverIdentity = from;
        serverFound.run();
      }
    } else {
      learn(from.name(), reply.letter().getReplyTo());
    }
  }

  /** Where a proven node's mom is now; messages held for it go out. */
  private void learn(String node, String replyTo) {
    Optional<ActorRef<Sealed>> ref = post.resolve(replyTo, new Identity(Role.MOM, node));
    if (ref.isEmpty()) {
      return;
    }
    peers.put(node, ref.get());
    List<MomInbound> waiting = held.remove(node);
    if (waiting != null) {
      held.put(node, new ArrayList<>()); // known now: no second lookup
      waiting.forEach(m -> ref.get().tell(post.seal(post.letter(node).setToMom(m))));
    }
  }
}

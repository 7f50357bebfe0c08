package dev.berth.it;

import com.google.protobuf.ByteString;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.berth.core.Services;
import dev.berth.daemon.BerthHome;
import dev.berth.daemon.DaemonTrust;
import dev.berth.proto.Job;
import dev.berth.proto.JobObitReport;
import dev.berth.proto.JoinJob;
import dev.berth.proto.KillJob;
import dev.berth.proto.Letter;
import dev.berth.proto.MomInbound;
import dev.berth.proto.Node;
import dev.berth.proto.NodeAllocation;
import dev.berth.proto.NodeHello;
import dev.berth.proto.PeerRole;
import dev.berth.proto.Probe;
import dev.berth.proto.RunJob;
import dev.berth.proto.Sealed;
import dev.berth.proto.ServerInbound;
import dev.berth.proto.SpawnTask;
import dev.berth.security.Identity;
import dev.berth.security.Role;
import dev.berth.security.pki.CertificateAuthority;
import dev.berth.security.pki.Credential;
import dev.berth.security.seal.Seal;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.apache.pekko.actor.typed.receptionist.ServiceKey;

/**
 * What an attacker can try against a cluster with Berth's own jars (DaemonTrustIT): join without a
 * credential or with another CA's, or, holding a real mom credential (a compromised node), ask
 * another node's mom to run, join, spawn and kill, report for another node, and register as the
 * server and as another node. It prints what it saw as lines for the test to read.
 */
public final class Intruder {
  private static final ServiceKey<Sealed> SERVER_KEY =
      ServiceKey.create(Sealed.class, Services.SERVER);

  private Intruder() {}

  /**
   * {@code plain SEED}: join over plain TCP; {@code foreign HOME SEED}: join with a credential of a
   * CA made in HOME; {@code member HOME SEED VICTIM JOB MOTHER_SUPERIOR MARKER_DIR}: join with the
   * mom credential HOME/credentials/mom-rogue and attack node VICTIM and the running job JOB.
   */
  public static void main(String[] args) throws Exception {
    switch (args[0]) {
      case "plain" -> tryToJoin(ActorSystem.create(Behaviors.empty(), "berth", config(args[1])));
      case "foreign" -> {
        BerthHome home = new BerthHome(Path.of(args[1]));
        CertificateAuthority.create(
            home.authority(), "not the cluster's", Duration.ofDays(1), Clock.systemUTC());
        tryToJoin(DaemonTrust.of(home, ROGUE).actorSystem(config(args[2])));
      }
      case "member" -> member(args);
      default -> throw new IllegalArgumentException(args[0]);
    }
  }

  private static final Identity ROGUE = new Identity(Role.MOM, "rogue");

  private static Config config(String seed) {
    return ConfigFactory.parseString(
            String.join(
                "\n",
                "pekko.actor.provider = cluster",
                "pekko.remote.artery.transport = tcp",
                "pekko.remote.artery.canonical.hostname = 127.0.0.1",
                "pekko.remote.artery.canonical.port = 0",
                "pekko.cluster.roles = [mom]",
                "pekko.cluster.seed-nodes = [\"pekko://berth@" + seed + "\"]",
                "pekko.cluster.shutdown-after-unsuccessful-join-seed-nodes = 15s",
                "pekko.coordinated-shutdown.exit-jvm = off"))
        // An attacker takes Berth's own settings, so that only credentials can keep it out.
        .withFallback(ConfigFactory.parseResources("berth.conf"))
        .withFallback(ConfigFactory.load());
  }

  /** Waits until the system has joined (exit 3) or given up joining (exit 0). */
  private static void tryToJoin(ActorSystem<Void> system) throws Exception {
    onMemberUp(
        system,
        () -> {
          say("JOINED");
          System.exit(3);
        });
    system.getWhenTerminated().toCompletableFuture().get();
    say("NOT JOINED");
    System.exit(0);
  }

  private static void onMemberUp(ActorSystem<Void> system, Runnable up) {
    org.apache.pekko.cluster.Cluster.get(
            org.apache.pekko.actor.typed.javadsl.Adapter.toClassic(system))
        .registerOnMemberUp(up);
  }

  private static void member(String[] args) throws Exception {
    BerthHome home = new BerthHome(Path.of(args[1]));
    DaemonTrust trust = DaemonTrust.of(home, ROGUE);
    Credential credential = Credential.load(home.credential(ROGUE), Clock.systemUTC());
    Attack attack =
        new Attack(trust.seal(ROGUE), credential, args[3], args[4], args[5], Path.of(args[6]));
    ActorSystem<Void> system =
        trust.actorSystem(
            ConfigFactory.parseString(
                    "pekko.cluster.shutdown-after-unsuccessful-join-seed-nodes = off")
                .withFallback(config(args[2])));
    onMemberUp(system, () -> system.systemActorOf(attack.behavior(), "attack", Props.empty()));
    system.getWhenTerminated().toCompletableFuture().get();
  }

  private static void say(String line) {
    System.out.println(line);
    System.out.flush();
  }

  /** The compromised node's attack, as an actor of its cluster member. */
  private static final class Attack {
    final Seal seal;
    final Credential credential;
    final String victim;
    final String jobId;
    final String motherSuperior;
    final Path markers;
    String replyTo;
    ActorRefResolver resolver;
    boolean victimAttacked;
    boolean serverAttacked;

    Attack(
        Seal seal,
        Credential credential,
        String victim,
        String jobId,
        String motherSuperior,
        Path markers) {
      this.seal = seal;
      this.credential = credential;
      this.victim = victim;
      this.jobId = jobId;
      this.motherSuperior = motherSuperior;
      this.markers = markers;
    }

    Behavior<Object> behavior() {
      return Behaviors.setup(
          ctx -> {
            // The receptionist cannot watch one actor both as a service and as a subscriber.
            ActorRef<Object> parent = ctx.getSelf();
            ActorRef<Sealed> self =
                ctx.spawn(
                    Behaviors.receiveMessage(
                        (Sealed s) -> {
                          parent.tell(s);
                          return Behaviors.same();
                        }),
                    "inbox");
            resolver = ActorRefResolver.get(ctx.getSystem());
            replyTo = resolver.toSerializationFormat(self);
            ServiceKey<Sealed> victimKey =
                ServiceKey.create(Sealed.class, Services.MOM_PREFIX + victim);
            var receptionist = ctx.getSystem().receptionist();
            // Pose as the server and as the victim node: anyone may register under any name.
            receptionist.tell(Receptionist.register(SERVER_KEY, self));
            receptionist.tell(Receptionist.register(victimKey, self));
            ActorRef<Receptionist.Listing> listings = ctx.getSelf().narrow();
            receptionist.tell(Receptionist.subscribe(SERVER_KEY, listings));
            receptionist.tell(Receptionist.subscribe(victimKey, listings));
            return Behaviors.receive(Object.class)
                .onMessage(
                    Receptionist.Listing.class,
                    l -> {
                      ServiceKey<Sealed> key = l.isForKey(SERVER_KEY) ? SERVER_KEY : victimKey;
                      for (ActorRef<Sealed> ref : l.getServiceInstances(key)) {
                        if (ref.equals(self)) {
                          continue;
                        }
                        if (key == SERVER_KEY && !serverAttacked) {
                          serverAttacked = true;
                          attackServer(ref);
                        } else if (key == victimKey && !victimAttacked) {
                          victimAttacked = true;
                          attackVictim(ref);
                        }
                      }
                      return Behaviors.same();
                    })
                .onMessage(
                    Sealed.class,
                    s -> {
                      received(s);
                      return Behaviors.same();
                    })
                .build();
          });
    }

    /** Everything a mom credential must not get another node's mom to do. */
    void attackVictim(ActorRef<Sealed> mom) {
      for (String owner : List.of("berth-alice", "root")) {
        String forged = "666" + owner.length() + ".rogue";
        mom.tell(toMom(victim, run(forged, owner, "forged-run-" + owner)));
        mom.tell(claiming(Seal.SERVER, PeerRole.PEER_SERVER, victim, run(forged, owner, "claim")));
      }
      SpawnTask.Builder spawn =
          SpawnTask.newBuilder()
              .setJobId(jobId)
              .setTaskId(77)
              .addAllArgv(List.of("/usr/bin/touch", markers.resolve("spawned").toString()))
              .setCwd("/tmp");
      mom.tell(toMom(victim, MomInbound.newBuilder().setSpawn(spawn.setFrom("rogue")).build()));
      mom.tell(
          claiming(
              motherSuperior,
              PeerRole.PEER_MOM,
              victim,
              MomInbound.newBuilder().setSpawn(spawn.setFrom(motherSuperior)).build()));
      Sealed fakeGrant =
          seal.seal(
              Letter.newBuilder()
                  .setTo("rogue")
                  .setToMom(run("999.rogue", "berth-alice", "joined")));
      mom.tell(
          toMom(
              victim,
              MomInbound.newBuilder()
                  .setJoin(
                      JoinJob.newBuilder()
                          .setJob(job("999.rogue", "berth-alice"))
                          .setMotherSuperior("rogue")
                          .setGrant(fakeGrant))
                  .build()));
      mom.tell(
          toMom(
              victim,
              MomInbound.newBuilder()
                  .setKill(KillJob.newBuilder().setJobId(jobId).setFrom("rogue").setReason("rogue"))
                  .build()));
      mom.tell(
          seal.seal(
              letter(victim)
                  .setProbe(Probe.newBuilder().setNonce(ByteString.copyFromUtf8("victim")))));
    }

    /** Report for another node, end another node's job, then register under its own name. */
    void attackServer(ActorRef<Sealed> server) {
      Node.Builder fake = Node.newBuilder().setName(victim).setPhysmem(1L << 40);
      IntStream.range(0, 99).forEach(fake::addCpuIds);
      server.tell(
          toServer(
              ServerInbound.newBuilder().setHello(NodeHello.newBuilder().setNode(fake)).build()));
      server.tell(
          toServer(
              ServerInbound.newBuilder()
                  .setObit(
                      JobObitReport.newBuilder()
                          .setJobId(jobId)
                          .setNode(motherSuperior)
                          .setExitStatus(0)
                          .setReason("rogue"))
                  .build()));
      server.tell(
          toServer(
              ServerInbound.newBuilder()
                  .setHello(
                      NodeHello.newBuilder()
                          .setNode(
                              Node.newBuilder().setName("rogue").addCpuIds(0).setPhysmem(1L << 30)))
                  .build()));
      server.tell(
          seal.seal(
              letter(Seal.SERVER)
                  .setProbe(Probe.newBuilder().setNonce(ByteString.copyFromUtf8("server")))));
    }

    void received(Sealed s) {
      Letter letter;
      try {
        letter = Letter.parseFrom(s.getLetter());
      } catch (com.google.protobuf.InvalidProtocolBufferException e) {
        return;
      }
      if (letter.hasProbeReply()) {
        say(letter.getProbeReply().getNonce().toStringUtf8().toUpperCase() + " ANSWERED");
      } else if (letter.getFrom().equals(victim)) {
        if (letter.hasProbe()) {
          say("PROBED BY " + victim);
          // Answer as "the server" with the only key it has: its own.
          ActorRef<Sealed> mom = resolver.resolveActorRef(letter.getReplyTo());
          mom.tell(
              seal.seal(
                  letter(victim)
                      .setProbeReply(
                          dev.berth.proto.ProbeReply.newBuilder()
                              .setNonce(letter.getProbe().getNonce()))));
        } else if (letter.hasToServer()) {
          say("REPORT FROM " + victim);
        }
      }
    }

    private Letter.Builder letter(String to) {
      return Letter.newBuilder().setTo(to).setReplyTo(replyTo);
    }

    private Sealed toMom(String to, MomInbound m) {
      return seal.seal(letter(to).setToMom(m));
    }

    private Sealed toServer(ServerInbound m) {
      return seal.seal(letter(Seal.SERVER).setToServer(m));
    }

    /** A letter that claims another sender, signed with the only key the intruder has. */
    private Sealed claiming(String from, PeerRole role, String to, MomInbound m) {
      byte[] bytes =
          letter(to)
              .setFrom(from)
              .setFromRole(role)
              .setSentMillis(System.currentTimeMillis())
              .setToMom(m)
              .build()
              .toByteArray();
      try {
        return Sealed.newBuilder()
            .setLetter(ByteString.copyFrom(bytes))
            .setSignature(ByteString.copyFrom(credential.signingKey().sign(bytes)))
            .setCertificate(ByteString.copyFrom(credential.certificate().getEncoded()))
            .build();
      } catch (java.security.cert.CertificateEncodingException e) {
        throw new IllegalStateException(e);
      }
    }

    private MomInbound run(String id, String owner, String marker) {
      return MomInbound.newBuilder()
          .setRun(
              RunJob.newBuilder()
                  .setJob(job(id, owner))
                  .setScript(
                      ByteString.copyFromUtf8(
                          "touch " + markers.resolve(marker + "-" + owner) + "\n")))
          .build();
    }

    private Job job(String id, String owner) {
      return Job.newBuilder()
          .setId(id)
          .setName("rogue")
          .setOwner(owner + "@rogue")
          .setEuser(owner)
          .setEgroup(owner)
          .setShell("/bin/sh")
          .setInitWorkDir("/tmp")
          .setOutputPath(victim + ":/dev/null")
          .setErrorPath(victim + ":/dev/null")
          .addExecNodes(NodeAllocation.newBuilder().setNode(victim).addCpus(0))
          .addExecNodes(NodeAllocation.newBuilder().setNode("rogue").addCpus(0))
          .build();
    }
  }
}

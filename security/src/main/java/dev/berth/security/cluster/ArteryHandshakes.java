package dev.berth.security.cluster;

import dev.berth.core.QuietLog;
import dev.berth.security.net.Deadline;
import java.lang.ref.WeakReference;
import java.time.Duration;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLHandshakeException;
import org.apache.pekko.actor.ActorCell;
import org.apache.pekko.actor.ActorContext;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.stream.impl.FanIn;
import org.apache.pekko.stream.impl.io.TLSActor;

/**
 * The cluster port's deadline for an inbound TLS handshake, which Pekko does not have. Artery runs
 * each connection's TLS in a stage of its own (Pekko's TLS actor, about 90 KiB of buffers from the
 * moment the connection is accepted) and hands Berth only the engine it makes for it. The stage
 * calls the engine only when bytes arrive, so a peer that goes quiet is never noticed. When Artery
 * asks for an engine, this notes the stage that asks (the actor under construction) and, at the
 * deadline, unless the engine has finished its handshake, fails the stage's transport input: the
 * stage closes the connection as on a failed handshake, and everything it held goes.
 *
 * <p>Two Pekko internals do it (Pekko 1.7): {@code ActorCell.contextStack}, through which an
 * actor's constructor finds its context, and {@code FanIn.SubInput}, the subscriber through which
 * the TLS actor hears of its inputs. ClusterPortTest fails if either changes.
 */
final class ArteryHandshakes {
  /** What an engine's session says until its first handshake is done. */
  private static final String NO_SESSION = "SSL_NULL_WITH_NULL_NULL";

  private final Duration deadline;
  private final QuietLog cuts;

  ArteryHandshakes(Duration deadline, QuietLog cuts) {
    this.deadline = deadline;
    this.cuts = cuts;
  }

  /** Holds {@code engine}'s handshake to the deadline; called as its TLS stage is made. */
  void watch(SSLEngine engine) {
    // Both weakly: a connection that ends before its deadline leaves next to nothing here until
    // then, whatever the rate at which connections come and go.
    WeakReference<ActorRef> stage = new WeakReference<>(constructing());
    WeakReference<SSLEngine> watched = new WeakReference<>(engine);
    Deadline.in(
        deadline,
        () -> {
          ActorRef s = stage.get();
          SSLEngine e = watched.get();
          if (s != null && e != null && !finished(e)) {
            cut(s);
          }
        });
  }

  /** Whether {@code engine}'s first handshake is done (its session is a real one). */
  static boolean finished(SSLEngine engine) {
    return !NO_SESSION.equals(engine.getSession().getCipherSuite());
  }

  private void cut(ActorRef stage) {
    new FanIn.SubInput<>(stage, TLSActor.TransportIn())
        .onError(
            new SSLHandshakeException("no TLS handshake within " + deadline.toSeconds() + " s"));
    cuts.say(
        "peers",
        "handshake time",
        "cut a cluster connection: no TLS handshake within " + deadline.toSeconds() + " s");
  }

  /** The actor whose constructor runs on this thread now: the TLS stage that wants an engine. */
  private static ActorRef constructing() {
    scala.collection.Iterator<ActorContext> stack =
        ActorCell.contextStack().get().iterator(); // an actor marks its own entry used with null
    while (stack.hasNext()) {
      ActorContext context = stack.next();
      if (context != null) {
        return context.self();
      }
    }
    throw new IllegalStateException(
        "Artery asked for a TLS engine outside its TLS stage's constructor: this Pekko version"
            + " runs TLS differently, and the cluster port's handshake deadline cannot work");
  }
}

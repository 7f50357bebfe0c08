package dev.berth.security.cluster;

import dev.berth.core.QuietLog;
import dev.berth.security.Identity;
import dev.berth.security.Role;
import dev.berth.security.tls.TlsContexts;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.Set;
import java.util.function.Consumer;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import org.apache.pekko.remote.artery.tcp.SSLEngineProvider;
import scala.Option;

/**
 * Pekko Artery over mutual TLS: both ends of every cluster connection show a certificate of the
 * cluster's CA, and only the roles given may connect at all (servers and moms to the cluster port;
 * a broker's or another credential is cut off after the handshake). Which member sent a message
 * Artery does not say, so this only keeps strangers out; who may do what is decided from the signed
 * letters (seal package). Each inbound handshake has a deadline ({@link ArteryHandshakes}).
 */
public final class ArteryTls implements SSLEngineProvider {
  private final SSLContext context;
  private final Set<Role> peers;
  private final Consumer<SSLEngine> inbound;
  private final QuietLog refusals;

  /**
   * Connects with {@code context} (this daemon's credential) to and from members whose credentials
   * name one of {@code peers}; each engine for an inbound connection goes to {@code inbound} as it
   * is made (to hold its handshake to a deadline, {@link ArteryHandshakes#watch}), and refused
   * peers are logged to {@code refusals}.
   */
  ArteryTls(SSLContext context, Set<Role> peers, Consumer<SSLEngine> inbound, QuietLog refusals) {
    this.context = context;
    this.peers = Set.copyOf(peers);
    this.inbound = inbound;
    this.refusals = refusals;
  }

  @Override
  public SSLEngine createServerSSLEngine(String hostname, int port) {
    SSLEngine engine = context.createSSLEngine();
    engine.setUseClientMode(false);
    engine.setNeedClientAuth(true);
    engine.setEnabledProtocols(new String[] {TlsContexts.PROTOCOL});
    inbound.accept(engine);
    return engine;
  }

  @Override
  public SSLEngine createClientSSLEngine(String hostname, int port) {
    SSLEngine engine = context.createSSLEngine(hostname, port);
    engine.setUseClientMode(true);
    engine.setEnabledProtocols(new String[] {TlsContexts.PROTOCOL});
    return engine;
  }

  /** A member this one connected to. */
  @Override
  public Option<Throwable> verifyClientSession(String hostname, SSLSession session) {
    return check(session, "connection to " + hostname);
  }

  /**
   * A member that connected to this one. Artery names this end's own address here, and the peer's
   * address is not known at this point: the refusal names the peer's credential.
   */
  @Override
  public Option<Throwable> verifyServerSession(String hostname, SSLSession session) {
    return check(session, "connection from a peer");
  }

  private Option<Throwable> check(SSLSession session, String what) {
    Identity peer;
    try {
      Certificate[] chain = session.getPeerCertificates();
      peer = Identity.of((X509Certificate) chain[0]);
    } catch (SSLPeerUnverifiedException | IllegalArgumentException e) {
      refusals.say(
          "peers without an identity",
          "identity",
          "refused the cluster " + what + ": " + e.getMessage());
      return Option.apply(e);
    }
    if (peers.contains(peer.role())) {
      return Option.empty();
    }
    refusals.say(
        peer.toString(),
        "role",
        "refused the cluster " + what + ": " + peer + " may not join a cluster");
    return Option.apply(new SSLPeerUnverifiedException(peer + " may not join a cluster"));
  }
}

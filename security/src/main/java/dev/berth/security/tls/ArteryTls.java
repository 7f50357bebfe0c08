package dev.berth.security.tls;

import dev.berth.security.Identity;
import dev.berth.security.Role;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.Set;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import org.apache.pekko.remote.artery.tcp.SSLEngineProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Option;

/**
 * Pekko Artery over mutual TLS: both ends of every cluster connection show a certificate of the
 * cluster's CA, and only the roles given may connect at all (servers and moms to the cluster port;
 * a broker's or another credential is cut off after the handshake). Which member sent a message
 * Artery does not say, so this only keeps strangers out; who may do what is decided from the signed
 * letters (seal package).
 */
public final class ArteryTls implements SSLEngineProvider {
  private static final Logger log = LoggerFactory.getLogger(ArteryTls.class);

  private final SSLContext context;
  private final Set<Role> peers;

  public ArteryTls(SSLContext context, Set<Role> peers) {
    this.context = context;
    this.peers = Set.copyOf(peers);
  }

  @Override
  public SSLEngine createServerSSLEngine(String hostname, int port) {
    SSLEngine engine = context.createSSLEngine();
    engine.setUseClientMode(false);
    engine.setNeedClientAuth(true);
    engine.setEnabledProtocols(new String[] {TlsContexts.PROTOCOL});
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

  /** A member that connected to this one (Artery names this end's own address here). */
  @Override
  public Option<Throwable> verifyServerSession(String hostname, SSLSession session) {
    return check(session, "connection from " + session.getPeerHost());
  }

  private Option<Throwable> check(SSLSession session, String what) {
    try {
      Certificate[] chain = session.getPeerCertificates();
      Identity peer = Identity.of((X509Certificate) chain[0]);
      if (peers.contains(peer.role())) {
        return Option.empty();
      }
      log.warn("refused the cluster {}: {} may not join a cluster", what, peer);
      return Option.apply(new SSLPeerUnverifiedException(peer + " may not join a cluster"));
    } catch (SSLPeerUnverifiedException | IllegalArgumentException e) {
      log.warn("refused the cluster {}: {}", what, e.getMessage());
      return Option.apply(e);
    }
  }
}

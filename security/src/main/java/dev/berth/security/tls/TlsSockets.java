package dev.berth.security.tls;

import dev.berth.security.Identity;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.security.cert.X509Certificate;
import java.util.function.Predicate;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;

/**
 * Mutual TLS over plain sockets with the cluster's credentials: who is at the other end of a
 * connection, and connecting to a peer that must prove to be a certain one.
 */
public final class TlsSockets {
  private TlsSockets() {}

  /** The Berth identity the peer's certificate names, once the handshake is done. */
  public static Identity peer(SSLSocket socket) throws IOException {
    try {
      return Identity.of((X509Certificate) socket.getSession().getPeerCertificates()[0]);
    } catch (IllegalArgumentException e) {
      throw new IOException(e.getMessage(), e);
    }
  }

  /**
   * Connects to {@code address} (resolved now) over TLS 1.3, and keeps the connection only if the
   * peer's credential is one {@code admits}; otherwise fails saying whose answered instead of
   * {@code wanted} ("a server", "submit host login1"). The handshake must be done within {@code
   * handshakeMillis}; the socket keeps that as its read timeout.
   */
  public static SSLSocket connect(
      SSLContext tls,
      InetSocketAddress address,
      int connectMillis,
      int handshakeMillis,
      Predicate<Identity> admits,
      String wanted)
      throws IOException {
    SSLSocket socket = (SSLSocket) tls.getSocketFactory().createSocket();
    try {
      socket.setEnabledProtocols(new String[] {TlsContexts.PROTOCOL});
      socket.connect(
          new InetSocketAddress(address.getHostString(), address.getPort()), connectMillis);
      socket.setSoTimeout(handshakeMillis);
      socket.startHandshake();
      Identity peer = peer(socket);
      if (!admits.test(peer)) {
        throw new IOException(
            address.getHostString()
                + ":"
                + address.getPort()
                + " answered with the credential of "
                + peer
                + ", not of "
                + wanted);
      }
      return socket;
    } catch (IOException e) {
      socket.close();
      throw e;
    }
  }
}

package dev.berth.tools.qsub.session;

import com.google.protobuf.ByteString;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

/**
 * Connects to the terminal port of a job's mother superior. In a secure cluster (the server sent
 * the cluster's CA certificates) over TLS 1.3, trusting only those certificates, and only if the
 * certificate shown names that node's mom ({@code urn:berth:mom:NODE}, as the security module's
 * {@code Identity} writes it): a certificate of another node, or of a server, is refused. qsub
 * shows no certificate of its own; the permit it sends first is its proof.
 */
final class MomTerminal {
  static final String TLS = "TLSv1.3";
  private static final String IDENTITY_PREFIX = "urn:berth:";
  private static final String MOM_PREFIX = IDENTITY_PREFIX + "mom:";
  private static final int URI_NAME = 6; // uniformResourceIdentifier (RFC 5280)

  /** The mom's certificate does not name that node's mom. */
  static final class WrongPeerException extends SSLPeerUnverifiedException {
    private static final long serialVersionUID = 1L;

    WrongPeerException(String message) {
      super(message);
    }
  }

  private MomTerminal() {}

  /**
   * Loads TLS and its ciphers while the job waits to start, on a thread of its own: in a fresh JVM
   * the first handshake spends most of its time there, after the job has started.
   */
  static void warmUp() {
    Thread warm =
        new Thread(
            () -> {
              try {
                SSLContext context = SSLContext.getInstance(TLS);
                context.init(null, null, null);
                SSLEngine engine = context.createSSLEngine("warm.up", 1);
                engine.setUseClientMode(true);
                engine.beginHandshake();
                ByteBuffer out = ByteBuffer.allocate(engine.getSession().getPacketBufferSize());
                engine.wrap(ByteBuffer.allocate(0), out); // the ClientHello: its keys
                CertificateFactory.getInstance("X.509");
                KeyStore.getInstance("PKCS12").load(null, null);
              } catch (GeneralSecurityException | IOException e) {
                // only a head start; the real handshake says what is wrong
              }
            },
            "qsub-tls-warm-up");
    warm.setDaemon(true);
    warm.start();
  }

  /**
   * @param address {@code host:port} ({@code [v6]:port})
   * @param node the mother superior, whose mom must answer
   * @param caCertificates PEM, one or more
   * @param timeout for the connection and the handshake each
   */
  static Socket connect(String address, String node, ByteString caCertificates, Duration timeout)
      throws IOException {
    InetSocketAddress to = parse(address);
    int millis = (int) Math.min(Integer.MAX_VALUE, timeout.toMillis());
    SSLSocket socket = (SSLSocket) context(caCertificates).getSocketFactory().createSocket();
    try {
      socket.setKeepAlive(true); // a node that vanishes is noticed, in time
      socket.setEnabledProtocols(new String[] {TLS});
      socket.connect(to, millis);
      socket.setSoTimeout(millis);
      socket.startHandshake();
      checkIsMomOf(node, (X509Certificate) socket.getSession().getPeerCertificates()[0]);
      socket.setSoTimeout(0); // a session may be quiet for hours
      return socket;
    } catch (IOException e) {
      socket.close();
      throw e;
    }
  }

  /** A TLS client context that trusts exactly {@code pem}'s certificates and shows none. */
  static SSLContext context(ByteString pem) throws IOException {
    try {
      Collection<? extends Certificate> anchors =
          CertificateFactory.getInstance("X.509").generateCertificates(pem.newInput());
      if (anchors.isEmpty()) {
        throw new IOException("the cluster's CA certificates cannot be read: none found");
      }
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      int i = 0;
      for (Certificate anchor : anchors) {
        store.setCertificateEntry("ca-" + i++, anchor);
      }
      TrustManagerFactory trust = TrustManagerFactory.getInstance("PKIX");
      trust.init(store);
      SSLContext context = SSLContext.getInstance(TLS);
      context.init(null, trust.getTrustManagers(), null);
      return context;
    } catch (CertificateException e) {
      throw new IOException("the cluster's CA certificates cannot be read: " + e.getMessage(), e);
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot set up TLS: " + e.getMessage(), e);
    }
  }

  /** Refuses a certificate unless its one Berth identity is {@code urn:berth:mom:NODE}. */
  static void checkIsMomOf(String node, X509Certificate certificate) throws WrongPeerException {
    String wanted = MOM_PREFIX + node;
    List<String> identities = identities(certificate);
    if (identities.size() == 1 && identities.get(0).equals(wanted)) {
      return;
    }
    String found =
        identities.isEmpty()
            ? "names no Berth identity"
            : identities.size() == 1
                ? "names " + identities.get(0)
                : "names several Berth identities " + identities;
    throw new WrongPeerException(
        "the certificate there " + found + ", not " + wanted + " (the mom of node " + node + ")");
  }

  private static List<String> identities(X509Certificate certificate) throws WrongPeerException {
    List<String> found = new ArrayList<>();
    try {
      Collection<List<?>> names = certificate.getSubjectAlternativeNames();
      if (names != null) {
        for (List<?> name : names) {
          if (Integer.valueOf(URI_NAME).equals(name.get(0))
              && name.get(1) instanceof String uri
              && uri.startsWith(IDENTITY_PREFIX)) {
            found.add(uri);
          }
        }
      }
    } catch (CertificateParsingException e) {
      throw new WrongPeerException(
          "the certificate there has unreadable subject alternative names: " + e.getMessage());
    }
    return found;
  }

  /** {@code host:port} or {@code [v6]:port}, resolved now. */
  static InetSocketAddress parse(String address) throws IOException {
    int colon = address.lastIndexOf(':');
    if (colon <= 0 || colon == address.length() - 1) {
      throw new IOException("'" + address + "' is not host:port");
    }
    String host = address.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    int port;
    try {
      port = Integer.parseInt(address.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new IOException("'" + address + "' is not host:port", e);
    }
    if (port < 1 || port > 65535) {
      throw new IOException("'" + address + "' has no valid port");
    }
    InetSocketAddress resolved = new InetSocketAddress(host, port);
    if (resolved.isUnresolved()) {
      throw new IOException("unknown host " + host);
    }
    return resolved;
  }
}

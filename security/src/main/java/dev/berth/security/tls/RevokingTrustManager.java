package dev.berth.security.tls;

import dev.berth.security.pki.Revocations;
import java.net.Socket;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedTrustManager;

/** The JDK's PKIX checks, and then: the peer's certificate is not revoked. */
final class RevokingTrustManager extends X509ExtendedTrustManager {
  private final X509ExtendedTrustManager pkix;
  private final Revocations revocations;

  RevokingTrustManager(X509ExtendedTrustManager pkix, Revocations revocations) {
    this.pkix = pkix;
    this.revocations = revocations;
  }

  private void notRevoked(X509Certificate[] chain) throws CertificateException {
    if (chain.length > 0 && revocations.revoked(chain[0])) {
      throw new CertificateException(
          "the certificate "
              + chain[0].getSubjectX500Principal().getName()
              + " (serial "
              + chain[0].getSerialNumber().toString(16)
              + ") is revoked");
    }
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String auth, Socket socket)
      throws CertificateException {
    pkix.checkClientTrusted(chain, auth, socket);
    notRevoked(chain);
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String auth, Socket socket)
      throws CertificateException {
    pkix.checkServerTrusted(chain, auth, socket);
    notRevoked(chain);
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String auth, SSLEngine engine)
      throws CertificateException {
    pkix.checkClientTrusted(chain, auth, engine);
    notRevoked(chain);
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String auth, SSLEngine engine)
      throws CertificateException {
    pkix.checkServerTrusted(chain, auth, engine);
    notRevoked(chain);
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String auth) throws CertificateException {
    pkix.checkClientTrusted(chain, auth);
    notRevoked(chain);
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String auth) throws CertificateException {
    pkix.checkServerTrusted(chain, auth);
    notRevoked(chain);
  }

  @Override
  public X509Certificate[] getAcceptedIssuers() {
    return pkix.getAcceptedIssuers();
  }
}

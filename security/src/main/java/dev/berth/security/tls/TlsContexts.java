package dev.berth.security.tls;

import dev.berth.security.pki.Credential;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import javax.crypto.spec.PBEParameterSpec;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * TLS 1.3 contexts made from a credential: it proves this daemon with its key and certificate and
 * trusts only peers whose certificates the cluster's CA issued and has not revoked. Built in
 * memory, so no key store with a password lies next to the key.
 */
public final class TlsContexts {
  public static final String PROTOCOL = "TLSv1.3";

  private static final SecureRandom RANDOM = new SecureRandom();

  private TlsContexts() {}

  public static SSLContext of(Credential credential) throws GeneralSecurityException {
    char[] none = new char[0];
    KeyStore keys = emptyStore();
    keys.setEntry(
        "credential",
        new KeyStore.PrivateKeyEntry(
            credential.key(), new Certificate[] {credential.certificate()}),
        inMemory(none));
    KeyManagerFactory keyManagers =
        KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    keyManagers.init(keys, none);
    KeyStore anchors = emptyStore();
    int i = 0;
    for (X509Certificate anchor : credential.trust().anchors()) {
      anchors.setCertificateEntry("anchor-" + i++, anchor);
    }
    TrustManagerFactory trustManagers = TrustManagerFactory.getInstance("PKIX");
    trustManagers.init(anchors);
    TrustManager[] revoking =
        Arrays.stream(trustManagers.getTrustManagers())
            .map(
                m ->
                    m instanceof X509ExtendedTrustManager pkix
                        ? new RevokingTrustManager(pkix, credential.trust().revocations())
                        : m)
            .toArray(TrustManager[]::new);
    SSLContext context = SSLContext.getInstance(PROTOCOL);
    context.init(keyManagers.getKeyManagers(), revoking, null);
    return context;
  }

  /**
   * How the key sits in the store that only hands it to the key manager: a PKCS12 store encrypts
   * each key, by default with 10,000 rounds of PBKDF2 that a starting daemon pays in CPU for every
   * context it makes (a third of the samples JFR took in a starting mom's main thread), and which
   * protect nothing in memory. One round.
   */
  private static KeyStore.PasswordProtection inMemory(char[] password) {
    byte[] salt = new byte[16];
    RANDOM.nextBytes(salt);
    return new KeyStore.PasswordProtection(
        password, "PBEWithHmacSHA256AndAES_128", new PBEParameterSpec(salt, 1));
  }

  private static KeyStore emptyStore() throws GeneralSecurityException {
    KeyStore store = KeyStore.getInstance("PKCS12");
    try {
      store.load(null, null);
    } catch (java.io.IOException e) {
      throw new GeneralSecurityException(e);
    }
    return store;
  }
}

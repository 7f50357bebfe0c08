package dev.berth.tools.qsub.session;

import com.google.protobuf.ByteString;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A throwaway CA and credentials for tests, made like Berth's own (Ed25519 keys, the identity as a
 * subject alternative name URI {@code urn:berth:ROLE:NAME}).
 */
final class TestPki {
  private static final String KEYS = "Ed25519";
  private static long serial = 1;

  private TestPki() {}

  /** A certificate authority. */
  record Ca(KeyPair keys, X509Certificate certificate) {
    /** A credential this CA issues, naming {@code uris} (none: no Berth identity). */
    Credential issue(String... uris) throws Exception {
      KeyPair pair = keyPair();
      X509v3CertificateBuilder builder =
          new JcaX509v3CertificateBuilder(
              certificate,
              BigInteger.valueOf(serial++),
              Date.from(Instant.now().minusSeconds(300)),
              Date.from(Instant.now().plusSeconds(3600)),
              new X500Name("O=berth,CN=test"),
              pair.getPublic());
      builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
      builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
      builder.addExtension(
          Extension.extendedKeyUsage,
          false,
          new ExtendedKeyUsage(
              new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth}));
      if (uris.length > 0) {
        List<GeneralName> names = new ArrayList<>();
        for (String uri : uris) {
          names.add(new GeneralName(GeneralName.uniformResourceIdentifier, uri));
        }
        builder.addExtension(
            Extension.subjectAlternativeName,
            false,
            new GeneralNames(names.toArray(GeneralName[]::new)));
      }
      return new Credential(pair, sign(builder, keys), certificate);
    }

    ByteString pem() {
      return TestPki.pem(certificate);
    }
  }

  /** A key and its certificate, as a mom holds them. */
  record Credential(KeyPair keys, X509Certificate certificate, X509Certificate ca) {
    /** A TLS server context that shows this credential. */
    SSLContext serverContext() throws Exception {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      char[] none = new char[0];
      store.setKeyEntry("key", keys.getPrivate(), none, new Certificate[] {certificate, ca});
      KeyManagerFactory factory =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      factory.init(store, none);
      SSLContext context = SSLContext.getInstance("TLSv1.3");
      context.init(factory.getKeyManagers(), null, null);
      return context;
    }
  }

  static Ca ca(String name) throws Exception {
    KeyPair pair = keyPair();
    X500Name subject = new X500Name("O=berth,CN=" + name);
    X509v3CertificateBuilder builder =
        new JcaX509v3CertificateBuilder(
            subject,
            BigInteger.valueOf(serial++),
            Date.from(Instant.now().minusSeconds(300)),
            Date.from(Instant.now().plusSeconds(3600)),
            subject,
            pair.getPublic());
    builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(0));
    builder.addExtension(
        Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
    return new Ca(pair, sign(builder, pair));
  }

  static ByteString pem(X509Certificate... certificates) {
    StringBuilder text = new StringBuilder();
    Base64.Encoder base64 = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII));
    for (X509Certificate c : certificates) {
      try {
        text.append("-----BEGIN CERTIFICATE-----\n")
            .append(base64.encodeToString(c.getEncoded()))
            .append("\n-----END CERTIFICATE-----\n");
      } catch (java.security.cert.CertificateEncodingException e) {
        throw new AssertionError(e);
      }
    }
    return ByteString.copyFromUtf8(text.toString());
  }

  private static KeyPair keyPair() throws Exception {
    return KeyPairGenerator.getInstance(KEYS).generateKeyPair();
  }

  private static X509Certificate sign(X509v3CertificateBuilder builder, KeyPair signer)
      throws Exception {
    return new JcaX509CertificateConverter()
        .getCertificate(
            builder.build(new JcaContentSignerBuilder(KEYS).build(signer.getPrivate())));
  }
}

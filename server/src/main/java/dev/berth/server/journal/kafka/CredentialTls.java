package dev.berth.server.journal.kafka;

import dev.berth.security.pki.Credential;
import dev.berth.security.tls.TlsContexts;
import java.io.IOException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.time.Clock;
import java.util.Map;
import java.util.Set;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.security.auth.SslEngineFactory;

/**
 * Kafka's TLS made from a Berth credential, for the journal's clients and for the broker {@code
 * berth kafka start} runs: each end proves itself with its credential's key and certificate and
 * trusts only certificates of the cluster's CA. Kafka's own PEM key store takes RSA, DSA and EC
 * keys only, not the Ed25519 keys Berth issues; through this factory the key is read from the
 * credential's own files into memory and never copied into a key store.
 *
 * <p>Kafka makes the factory by its class name ({@link SslConfigs#SSL_ENGINE_FACTORY_CLASS_CONFIG})
 * and hands it the client's or broker's settings, where {@link #CREDENTIAL} names the credential's
 * directory. (A name, not the loaded credential: a broker turns its settings into strings before
 * some of its clients see them.) Brokers always require a client certificate.
 */
public final class CredentialTls implements SslEngineFactory {
  /** The setting that names the credential's directory (key.pem, cert.pem, ca.pem). */
  public static final String CREDENTIAL = "berth.credential";

  private SSLContext context;

  /** The settings that make a Kafka client or listener use {@code credential}. */
  public static Map<String, String> settings(Credential credential) {
    return Map.of(
        SslConfigs.SSL_ENGINE_FACTORY_CLASS_CONFIG,
        CredentialTls.class.getName(),
        CREDENTIAL,
        credential.directory().toString());
  }

  @Override
  public void configure(Map<String, ?> configs) {
    if (!(configs.get(CREDENTIAL) instanceof String dir)) {
      throw new ConfigException(CREDENTIAL, configs.get(CREDENTIAL), "not a credential directory");
    }
    try {
      context = TlsContexts.of(Credential.load(Path.of(dir), Clock.systemUTC()));
    } catch (IOException | GeneralSecurityException e) {
      throw new ConfigException("cannot use the credential in " + dir + ": " + e.getMessage());
    }
  }

  @Override
  public SSLEngine createClientSslEngine(
      String peerHost, int peerPort, String endpointIdentification) {
    SSLEngine engine = context.createSSLEngine(peerHost, peerPort);
    engine.setUseClientMode(true);
    SSLParameters parameters = engine.getSSLParameters();
    parameters.setProtocols(new String[] {TlsContexts.PROTOCOL});
    // "https" by default: the broker's certificate must name the host the client connects to.
    if (endpointIdentification != null && !endpointIdentification.isEmpty()) {
      parameters.setEndpointIdentificationAlgorithm(endpointIdentification);
    }
    engine.setSSLParameters(parameters);
    return engine;
  }

  @Override
  public SSLEngine createServerSslEngine(String peerHost, int peerPort) {
    SSLEngine engine = context.createSSLEngine(peerHost, peerPort);
    engine.setUseClientMode(false);
    SSLParameters parameters = engine.getSSLParameters();
    parameters.setProtocols(new String[] {TlsContexts.PROTOCOL});
    parameters.setNeedClientAuth(true);
    engine.setSSLParameters(parameters);
    return engine;
  }

  /** A credential is replaced by restarting the daemon that holds it. */
  @Override
  public boolean shouldBeRebuilt(Map<String, Object> nextConfigs) {
    return false;
  }

  @Override
  public Set<String> reconfigurableConfigs() {
    return Set.of();
  }

  /** None: the key lives in the credential, not in a key store Kafka could reload. */
  @Override
  public KeyStore keystore() {
    return null;
  }

  @Override
  public KeyStore truststore() {
    return null;
  }

  @Override
  public void close() {}
}

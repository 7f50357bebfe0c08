package dev.berth.server.journal.kafka;

import dev.berth.security.pki.Credential;
import dev.berth.server.journal.JournalException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.common.config.SslConfigs;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Kafka brokers a journal's clients connect to, and how: with mutual TLS from the server's
 * credential (the default), with a site's client config on top of that, or, only in a cluster that
 * runs without credentials, in plaintext. Every Berth client of the journal (producer, consumer,
 * admin) starts from these settings.
 */
public final class Brokers {
  private static final Logger log = LoggerFactory.getLogger(Brokers.class);
  private static final String PROTOCOL = CommonClientConfigs.SECURITY_PROTOCOL_CONFIG;

  private final String bootstrap;
  private final Map<String, String> settings;
  private final String how;

  private Brokers(String bootstrap, Map<String, String> settings, String how) {
    this.bootstrap = bootstrap;
    this.settings = Map.copyOf(settings);
    this.how = how;
  }

  /**
   * How a server reaches the brokers at {@code bootstrap} ({@code HOST:PORT,...}): with its
   * credential (empty: the cluster runs --insecure) and a site's client config, whose settings
   * override Berth's. Berth's TLS from the credential stays unless the config names its own key
   * store, trust store or engine factory. A cluster with credentials reaches its journal over TLS
   * only.
   */
  public static Brokers of(
      String bootstrap, Optional<Credential> credential, Optional<Path> clientConfig) {
    Map<String, String> settings = new HashMap<>();
    String how;
    if (credential.isPresent()) {
      settings.put(PROTOCOL, "SSL");
      settings.putAll(CredentialTls.settings(credential.get()));
      how = "mutual TLS as " + credential.get().identity();
    } else {
      settings.put(PROTOCOL, "PLAINTEXT");
      how = "plaintext";
    }
    if (clientConfig.isPresent()) {
      Map<String, String> site = ClientConfigFile.load(clientConfig.get());
      if (site.keySet().stream().anyMatch(Brokers::ownTls)) {
        settings.remove(SslConfigs.SSL_ENGINE_FACTORY_CLASS_CONFIG);
        settings.remove(CredentialTls.CREDENTIAL);
      }
      settings.putAll(site);
      how = "the client config " + clientConfig.get() + " (" + settings.get(PROTOCOL) + ")";
    }
    Brokers brokers = new Brokers(bootstrap, settings, how);
    if (brokers.plaintext()) {
      if (credential.isPresent()) {
        throw new JournalException(
            clientConfig.get()
                + " sets "
                + PROTOCOL
                + "="
                + settings.get(PROTOCOL)
                + ", but a cluster with credentials reaches its journal over TLS only (SSL or"
                + " SASL_SSL)");
      }
      log.warn(
          "INSECURE: the Kafka journal at {} is reached in plaintext{}: anyone who reaches the"
              + " brokers can read every job's script and environment, add events, or fence this"
              + " server. Give the cluster credentials (docs/security.md).",
          bootstrap,
          settings.get(PROTOCOL).equals("PLAINTEXT") ? " without authentication" : "");
    }
    return brokers;
  }

  private static boolean ownTls(String key) {
    return key.startsWith("ssl.keystore.")
        || key.startsWith("ssl.truststore.")
        || key.equals(SslConfigs.SSL_ENGINE_FACTORY_CLASS_CONFIG);
  }

  /** {@code HOST:PORT,...}, as given. */
  public String bootstrap() {
    return bootstrap;
  }

  /** Whether the connection is unencrypted (PLAINTEXT or SASL_PLAINTEXT). */
  public boolean plaintext() {
    return settings.get(PROTOCOL).endsWith("PLAINTEXT");
  }

  /** What a client of these brokers starts from: where they are and how to connect. */
  public Properties clientProperties() {
    Properties p = new Properties();
    p.putAll(settings);
    p.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    return p;
  }

  /** The brokers and the way in, for messages: {@code k1:9092 (mutual TLS as server head1)}. */
  @Override
  public String toString() {
    return bootstrap + " (" + how + ")";
  }
}

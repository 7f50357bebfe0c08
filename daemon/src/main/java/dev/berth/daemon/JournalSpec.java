package dev.berth.daemon;

import dev.berth.security.pki.Credential;
import dev.berth.server.journal.Journal;
import dev.berth.server.journal.KafkaJournal;
import dev.berth.server.journal.RocksJournal;
import dev.berth.server.journal.kafka.Brokers;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Where the server keeps its events: {@code rocksdb} (the home directory's journal, the default) or
 * {@code kafka://HOST:PORT[,HOST:PORT...][/TOPIC][?replication=N&min-insync=M&config=FILE]}.
 * Servers that share a Kafka journal share its topic and transactional id, both named after the
 * server. They reach the brokers with mutual TLS from their credential; {@code config} names a file
 * of Kafka client settings (security.protocol, ssl.*, sasl.*) for a site's own brokers, which
 * override Berth's.
 */
public record JournalSpec(
    String kind,
    String bootstrap,
    String topic,
    int replication,
    int minInsync,
    Optional<Path> clientConfig) {
  public static final String ROCKSDB = "rocksdb";

  /** Every writer of topic T uses the transactional id {@code berth-writer-T}. */
  static final String TRANSACTIONAL_ID_PREFIX = "berth-writer-";

  public static JournalSpec parse(String text) {
    if (text == null || text.isEmpty() || text.equals(ROCKSDB)) {
      return new JournalSpec(ROCKSDB, "", "", 0, 0, Optional.empty());
    }
    if (!text.startsWith("kafka://")) {
      throw new IllegalArgumentException(
          "--journal " + text + ": use rocksdb or kafka://HOST:PORT[,HOST:PORT][/TOPIC]");
    }
    String rest = text.substring("kafka://".length());
    String query = "";
    int q = rest.indexOf('?');
    if (q >= 0) {
      query = rest.substring(q + 1);
      rest = rest.substring(0, q);
    }
    int slash = rest.indexOf('/');
    String bootstrap = slash < 0 ? rest : rest.substring(0, slash);
    String topic = slash < 0 ? "" : rest.substring(slash + 1);
    if (bootstrap.isEmpty() || !bootstrap.matches("[^,:]+:\\d+(,[^,:]+:\\d+)*")) {
      throw new IllegalArgumentException(
          "--journal " + text + ": the brokers must be HOST:PORT, comma separated");
    }
    Map<String, String> options = new HashMap<>();
    for (String pair : query.isEmpty() ? new String[0] : query.split("&")) {
      int eq = pair.indexOf('=');
      String key = eq < 0 ? pair : pair.substring(0, eq);
      if (!key.equals("replication") && !key.equals("min-insync") && !key.equals("config")) {
        throw new IllegalArgumentException(
            "--journal "
                + text
                + ": unknown setting '"
                + key
                + "' (replication, min-insync, config)");
      }
      options.put(key, eq < 0 ? "" : pair.substring(eq + 1));
    }
    Optional<Path> config = Optional.ofNullable(options.get("config")).map(Path::of);
    if (config.isPresent() && !config.get().isAbsolute()) {
      throw new IllegalArgumentException(
          "--journal " + text + ": config takes the absolute path of a Kafka client config file");
    }
    try {
      int replication = Integer.parseInt(options.getOrDefault("replication", "1"));
      int minInsync =
          Integer.parseInt(
              options.getOrDefault("min-insync", Integer.toString(Math.min(2, replication))));
      if (replication < 1 || minInsync < 1 || minInsync > replication) {
        throw new IllegalArgumentException(
            "--journal " + text + ": need 1 <= min-insync <= replication");
      }
      return new JournalSpec("kafka", bootstrap, topic, replication, minInsync, config);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--journal " + text + ": settings take numbers", e);
    }
  }

  /** Whether servers may stand by on this journal (a replicated log), not just one server. */
  boolean replicated() {
    return !kind.equals(ROCKSDB);
  }

  /**
   * Opens the journal of the server named {@code serverName} with its state in {@code home}. A
   * Kafka journal's clients prove themselves with {@code credential}; without one (the cluster runs
   * --insecure) they connect in plaintext unless the client config says otherwise, and say loudly
   * that this is insecure.
   */
  Journal open(BerthHome home, String serverName, Optional<Credential> credential) {
    if (kind.equals(ROCKSDB)) {
      return RocksJournal.open(home.journal());
    }
    return KafkaJournal.open(kafka(home, serverName, credential));
  }

  /**
   * The Kafka journal's settings for the server named {@code serverName} (see {@link #open}). The
   * transactional id follows the topic, not the server's name: every writer of one topic must fence
   * every other.
   */
  KafkaJournal.Settings kafka(BerthHome home, String serverName, Optional<Credential> credential) {
    String name = topic.isEmpty() ? "berth-journal-" + serverName : topic;
    return new KafkaJournal.Settings(
        Brokers.of(bootstrap, credential, clientConfig),
        name,
        TRANSACTIONAL_ID_PREFIX + name,
        replication,
        minInsync,
        home.journalCopy(),
        KafkaJournal.WRITE_TIMEOUT);
  }
}

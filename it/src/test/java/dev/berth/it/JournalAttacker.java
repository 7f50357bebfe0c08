package dev.berth.it;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManagerFactory;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.security.auth.SslEngineFactory;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Someone who is not a server trying to misuse the Kafka journal, as a process of its own (run as
 * an unprivileged local user, or as root of a compute node): take over the writers' transactional
 * id (which would fence the server), read the topic, add a record to it, and steal the server's
 * key. Uses nothing of Berth, only the Kafka client and the JDK, as an attacker would. Prints one
 * line per attempt and exits with the number of attempts that succeeded.
 *
 * <p>Usage: {@code JournalAttacker BOOTSTRAP TOPIC TRANSACTIONAL_ID SERVER_KEY HOW [DIR]}
 * (SERVER_KEY {@code -} when the server's key is on another host), HOW one of {@code plaintext} (no
 * TLS), {@code anonymous} (TLS trusting DIR/ca.pem, no certificate), {@code certificate} (TLS with
 * DIR/key.pem, cert.pem, ca.pem).
 */
public final class JournalAttacker {
  private static final String DIR = "attacker.credential";

  private JournalAttacker() {}

  public static void main(String[] args) {
    String bootstrap = args[0];
    String topic = args[1];
    String transactionalId = args[2];
    Path serverKey = Path.of(args[3]); // "-": not on this host
    Properties how = connection(bootstrap, args[4], args.length > 5 ? args[5] : null);
    int succeeded = 0;
    succeeded += attempt("fence the server (initTransactions)", () -> fence(how, transactionalId));
    succeeded += attempt("read the topic", () -> read(how, topic));
    succeeded += attempt("append to the topic", () -> append(how, topic));
    if (!args[3].equals("-")) {
      succeeded +=
          attempt("read the server's key", () -> Files.readAllBytes(serverKey).length + " bytes");
    }
    System.exit(succeeded);
  }

  private interface Attempt {
    String run() throws Exception;
  }

  /** Prints what happened; 1 if the attempt succeeded. */
  private static int attempt(String what, Attempt attempt) {
    try {
      String result = attempt.run();
      if (result == null) {
        System.out.println(what + ": refused (nothing came back, no error)");
        return 0;
      }
      System.out.println(what + ": SUCCEEDED " + result);
      return 1;
    } catch (Throwable t) {
      System.out.println(
          what
              + ": refused: "
              + t.getClass().getName()
              + ": "
              + String.valueOf(t.getMessage()).replace('\n', ' ')
              + (t.getCause() != null && t.getCause() != t
                  ? " <- "
                      + t.getCause().getClass().getSimpleName()
                      + ": "
                      + t.getCause().getMessage()
                  : ""));
      return 0;
    }
  }

  private static Properties connection(String bootstrap, String how, String dir) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("max.block.ms", "8000");
    p.put("request.timeout.ms", "4000");
    p.put("delivery.timeout.ms", "8000");
    p.put("default.api.timeout.ms", "8000");
    switch (how) {
      case "plaintext" -> p.put("security.protocol", "PLAINTEXT");
      case "anonymous" -> {
        p.put("security.protocol", "SSL");
        p.put("ssl.truststore.type", "PEM");
        p.put("ssl.truststore.location", Path.of(dir, "ca.pem").toString());
      }
      case "certificate" -> {
        p.put("security.protocol", "SSL");
        p.put("ssl.engine.factory.class", Tls.class.getName());
        p.put(DIR, dir);
      }
      default -> throw new IllegalArgumentException(how);
    }
    return p;
  }

  private static String fence(Properties how, String transactionalId) {
    Properties p = (Properties) how.clone();
    p.put("transactional.id", transactionalId);
    try (var producer =
        new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
      producer.initTransactions();
      return "took the transactional id " + transactionalId;
    }
  }

  private static String read(Properties how, String topic) {
    TopicPartition partition = new TopicPartition(topic, 0);
    try (var consumer =
        new KafkaConsumer<>(how, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.assign(List.of(partition));
      consumer.seekToBeginning(List.of(partition));
      long deadline = System.nanoTime() + Duration.ofSeconds(8).toNanos();
      while (System.nanoTime() < deadline) {
        ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofSeconds(1));
        if (!records.isEmpty()) {
          return "read " + records.count() + " records";
        }
      }
      return null;
    }
  }

  private static String append(Properties how, String topic) throws Exception {
    try (var producer =
        new KafkaProducer<>(how, new ByteArraySerializer(), new ByteArraySerializer())) {
      var sent =
          producer
              .send(
                  new ProducerRecord<>(
                      topic, 0, null, "forged event".getBytes(StandardCharsets.US_ASCII)))
              .get();
      return "wrote at offset " + sent.offset();
    }
  }

  /** TLS with a credential's PEM files (an Ed25519 key), which Kafka's own PEM store refuses. */
  public static final class Tls implements SslEngineFactory {
    private SSLContext context;

    @Override
    public void configure(Map<String, ?> configs) {
      Path dir = Path.of((String) configs.get(DIR));
      try {
        PrivateKey key =
            KeyFactory.getInstance("Ed25519")
                .generatePrivate(new PKCS8EncodedKeySpec(pem(dir.resolve("key.pem"))));
        KeyStore keys = KeyStore.getInstance("PKCS12");
        keys.load(null, null);
        keys.setKeyEntry(
            "key", key, new char[0], new Certificate[] {certificate(dir.resolve("cert.pem"))});
        KeyStore trusted = KeyStore.getInstance("PKCS12");
        trusted.load(null, null);
        trusted.setCertificateEntry("ca", certificate(dir.resolve("ca.pem")));
        KeyManagerFactory km = KeyManagerFactory.getInstance("SunX509");
        km.init(keys, new char[0]);
        TrustManagerFactory tm = TrustManagerFactory.getInstance("PKIX");
        tm.init(trusted);
        context = SSLContext.getInstance("TLSv1.3");
        context.init(km.getKeyManagers(), tm.getTrustManagers(), null);
      } catch (Exception e) {
        throw new IllegalStateException("cannot load " + dir + ": " + e, e);
      }
    }

    private static byte[] pem(Path file) throws Exception {
      String text = Files.readString(file, StandardCharsets.US_ASCII);
      String body = text.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
      return Base64.getDecoder().decode(body);
    }

    private static Certificate certificate(Path file) throws Exception {
      try (InputStream in = Files.newInputStream(file)) {
        return CertificateFactory.getInstance("X.509").generateCertificate(in);
      }
    }

    @Override
    public SSLEngine createClientSslEngine(String host, int port, String identification) {
      SSLEngine engine = context.createSSLEngine(host, port);
      engine.setUseClientMode(true);
      SSLParameters parameters = engine.getSSLParameters();
      parameters.setEndpointIdentificationAlgorithm(identification);
      engine.setSSLParameters(parameters);
      return engine;
    }

    @Override
    public SSLEngine createServerSslEngine(String host, int port) {
      throw new UnsupportedOperationException("a client only");
    }

    @Override
    public boolean shouldBeRebuilt(Map<String, Object> nextConfigs) {
      return false;
    }

    @Override
    public Set<String> reconfigurableConfigs() {
      return Set.of();
    }

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
}

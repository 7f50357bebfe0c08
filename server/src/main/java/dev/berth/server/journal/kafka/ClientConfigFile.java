package dev.berth.server.journal.kafka;

import dev.berth.server.journal.JournalException;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;

/**
 * A site's Kafka client settings for the journal ({@code config=FILE} of a kafka:// journal): how
 * to reach and authenticate to brokers Berth did not set up, such as SASL/SCRAM with a password or
 * the site's own PKI in Kafka's key and trust stores. Only connection settings are taken ({@code
 * security.protocol}, {@code ssl.*}, {@code sasl.*}): the journal's correctness rests on the others
 * (transactions, acks, isolation, timeouts). A file that holds a secret must be private to the user
 * the server runs as, as a key file is.
 */
public final class ClientConfigFile {
  private static final Set<PosixFilePermission> SHARED =
      PosixFilePermissions.fromString("---rwxrwx");

  private ClientConfigFile() {}

  /** The settings in {@code file}, checked; fails with the reason and what to do. */
  public static Map<String, String> load(Path file) {
    Properties p = new Properties();
    try (Reader in = Files.newBufferedReader(file)) {
      p.load(in);
    } catch (IOException e) {
      throw new JournalException("cannot read the Kafka client config " + file + ": " + e, e);
    }
    Map<String, String> settings = new TreeMap<>();
    for (String key : p.stringPropertyNames()) {
      if (!key.equals("security.protocol") && !key.startsWith("ssl.") && !key.startsWith("sasl.")) {
        throw new JournalException(
            file
                + ": "
                + key
                + " is not a connection setting; a journal's client config takes only"
                + " security.protocol, ssl.* and sasl.*");
      }
      settings.put(key, p.getProperty(key).strip());
    }
    if (settings.keySet().stream().anyMatch(ClientConfigFile::secret)) {
      checkPrivate(file);
    }
    return settings;
  }

  /** Settings whose value is a password or a key. */
  static boolean secret(String key) {
    return key.contains("password")
        || key.equals("sasl.jaas.config")
        || key.equals("ssl.keystore.key");
  }

  private static void checkPrivate(Path file) {
    try {
      Path real = file.toRealPath();
      String self = System.getProperty("user.name");
      String owner = Files.getOwner(real).getName();
      Set<PosixFilePermission> mode = Files.getPosixFilePermissions(real);
      Set<PosixFilePermission> dirMode = Files.getPosixFilePermissions(real.getParent());
      if (!owner.equals(self) || mode.stream().anyMatch(SHARED::contains)) {
        throw new JournalException(
            file
                + " holds a secret but belongs to "
                + owner
                + " with mode "
                + PosixFilePermissions.toString(mode)
                + "; make it "
                + self
                + "'s alone: chown "
                + self
                + " "
                + file
                + "; chmod 600 "
                + file);
      }
      if (dirMode.contains(PosixFilePermission.GROUP_WRITE)
          || dirMode.contains(PosixFilePermission.OTHERS_WRITE)) {
        throw new JournalException(
            file + " holds a secret in a directory others may change; move it to a private one");
      }
    } catch (IOException e) {
      throw new JournalException("cannot check who may read " + file + ": " + e, e);
    }
  }
}

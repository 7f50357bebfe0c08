package dev.berth.security.pki;

import java.io.IOException;
import java.io.Reader;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaMiscPEMGenerator;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.util.io.pem.PemWriter;

/**
 * Keys and certificates as PEM files. A private key is written 0600 to a new file and read only
 * from a file that no one but its owner may read, owned by whoever runs Berth: a key others can
 * read is no secret, and one someone else owns could be swapped under us.
 */
public final class PemFiles {
  private PemFiles() {}

  private static final Set<PosixFilePermission> OWNER_ONLY =
      PosixFilePermissions.fromString("rw-------");

  public static void writeKey(Path file, PrivateKey key) throws IOException {
    write(file, List.of(key), OWNER_ONLY);
  }

  public static void writeCertificates(Path file, List<X509Certificate> certificates)
      throws IOException {
    write(file, List.copyOf(certificates), PosixFilePermissions.fromString("rw-r--r--"));
  }

  /** {@code certificates} in PEM, as a certificate file holds them. */
  public static String text(List<X509Certificate> certificates) throws IOException {
    return pem(List.copyOf(certificates));
  }

  private static String pem(List<Object> objects) throws IOException {
    StringWriter text = new StringWriter();
    try (PemWriter pem = new PemWriter(text)) {
      for (Object o : objects) {
        pem.writeObject(new JcaMiscPEMGenerator(o));
      }
    }
    return text.toString();
  }

  private static void write(Path file, List<Object> objects, Set<PosixFilePermission> mode)
      throws IOException {
    String text = pem(objects);
    try (var out =
        Files.newByteChannel(
            file,
            Set.of(
                StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS),
            PosixFilePermissions.asFileAttribute(mode))) {
      out.write(java.nio.ByteBuffer.wrap(text.getBytes(StandardCharsets.US_ASCII)));
    } catch (FileAlreadyExistsException e) {
      throw new IOException(file + " already exists; refusing to overwrite it", e);
    }
  }

  /** The private key in {@code file}, which must be private to the user running Berth. */
  public static PrivateKey readKey(Path file) throws IOException {
    checkPrivate(file);
    Object parsed;
    try (Reader in = Files.newBufferedReader(file, StandardCharsets.US_ASCII);
        PEMParser pem = new PEMParser(in)) {
      parsed = pem.readObject();
    }
    JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
    if (parsed instanceof PrivateKeyInfo info) {
      return converter.getPrivateKey(info);
    }
    if (parsed instanceof PEMKeyPair pair) {
      return converter.getKeyPair(pair).getPrivate();
    }
    throw new IOException(
        file
            + " holds no unencrypted private key in PEM ("
            + (parsed == null ? "nothing found" : parsed.getClass().getSimpleName())
            + "); Berth reads PKCS#8 'PRIVATE KEY' or traditional RSA/EC key files");
  }

  /** Every certificate in {@code file}, in order; at least one. */
  public static List<X509Certificate> readCertificates(Path file) throws IOException {
    List<X509Certificate> certificates = new ArrayList<>();
    JcaX509CertificateConverter converter = new JcaX509CertificateConverter();
    try (Reader in = Files.newBufferedReader(file, StandardCharsets.US_ASCII);
        PEMParser pem = new PEMParser(in)) {
      for (Object o = pem.readObject(); o != null; o = pem.readObject()) {
        if (o instanceof X509CertificateHolder holder) {
          certificates.add(converter.getCertificate(holder));
        }
      }
    } catch (CertificateException e) {
      throw new IOException(file + ": unreadable certificate: " + e.getMessage(), e);
    }
    if (certificates.isEmpty()) {
      throw new IOException(file + " holds no PEM certificate");
    }
    return certificates;
  }

  static void checkPrivate(Path file) throws IOException {
    // A site may link its own PKI's files: the target, and the directory it is in, must be safe.
    file = file.toRealPath();
    Path dir = file.getParent();
    Set<PosixFilePermission> dirMode = Files.getPosixFilePermissions(dir);
    String dirOwner = Files.getOwner(dir).getName();
    if (dirMode.contains(PosixFilePermission.GROUP_WRITE)
        || dirMode.contains(PosixFilePermission.OTHERS_WRITE)
        || !(dirOwner.equals("root") || dirOwner.equals(System.getProperty("user.name")))) {
      throw new IOException(
          "the directory of key "
              + file
              + " may be changed by others (owner "
              + dirOwner
              + ", mode "
              + PosixFilePermissions.toString(dirMode)
              + "); refusing to use the key");
    }
    String owner = Files.getOwner(file).getName();
    String self = System.getProperty("user.name");
    if (!owner.equals(self)) {
      throw new IOException(
          file + " belongs to " + owner + ", not to " + self + "; refusing to use it as a key");
    }
    Set<PosixFilePermission> mode = Files.getPosixFilePermissions(file);
    if (!OWNER_ONLY.containsAll(mode)) {
      throw new IOException(
          file
              + " may be read by others (mode "
              + PosixFilePermissions.toString(mode)
              + "); make it private with: chmod 600 "
              + file);
    }
  }
}

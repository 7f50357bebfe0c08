package dev.berth.security.pki;

import java.io.IOException;
import java.security.PrivateKey;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.crypto.CryptoException;
import org.bouncycastle.crypto.Signer;
import org.bouncycastle.crypto.params.AsymmetricKeyParameter;
import org.bouncycastle.crypto.util.PrivateKeyFactory;

/**
 * A private key ready to sign with. Bouncy Castle's own Ed25519 signs in about 0.1 ms on this class
 * of machine, against about 1 ms through the JDK's provider; RSA and EC keys of a site's own PKI
 * work too, at their own cost. Thread-safe: each signature gets a signer of its own.
 */
public final class SigningKey {
  private final AsymmetricKeyParameter key;

  private SigningKey(AsymmetricKeyParameter key) {
    this.key = key;
  }

  public static SigningKey of(PrivateKey key) throws IOException {
    return new SigningKey(
        PrivateKeyFactory.createKey(PrivateKeyInfo.getInstance(key.getEncoded())));
  }

  public byte[] sign(byte[] data) {
    Signer signer = Algorithms.signer(key);
    signer.init(true, key);
    signer.update(data, 0, data.length);
    try {
      return signer.generateSignature();
    } catch (CryptoException e) {
      throw new IllegalStateException("cannot sign with " + key.getClass().getSimpleName(), e);
    }
  }
}

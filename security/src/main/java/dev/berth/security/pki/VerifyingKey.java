package dev.berth.security.pki;

import java.io.IOException;
import java.security.PublicKey;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.crypto.Signer;
import org.bouncycastle.crypto.params.AsymmetricKeyParameter;
import org.bouncycastle.crypto.util.PublicKeyFactory;

/** A public key ready to check signatures with (see {@link SigningKey}); thread-safe. */
public final class VerifyingKey {
  private final AsymmetricKeyParameter key;

  private VerifyingKey(AsymmetricKeyParameter key) {
    this.key = key;
  }

  public static VerifyingKey of(PublicKey key) throws IOException {
    return new VerifyingKey(
        PublicKeyFactory.createKey(SubjectPublicKeyInfo.getInstance(key.getEncoded())));
  }

  public boolean verifies(byte[] data, byte[] signature) {
    Signer signer = Algorithms.signer(key);
    signer.init(false, key);
    signer.update(data, 0, data.length);
    return signer.verifySignature(signature);
  }
}

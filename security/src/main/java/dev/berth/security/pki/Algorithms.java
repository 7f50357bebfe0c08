package dev.berth.security.pki;

import org.bouncycastle.crypto.Signer;
import org.bouncycastle.crypto.digests.SHA256Digest;
import org.bouncycastle.crypto.params.AsymmetricKeyParameter;
import org.bouncycastle.crypto.params.ECKeyParameters;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;
import org.bouncycastle.crypto.params.Ed25519PublicKeyParameters;
import org.bouncycastle.crypto.params.RSAKeyParameters;
import org.bouncycastle.crypto.signers.DSADigestSigner;
import org.bouncycastle.crypto.signers.ECDSASigner;
import org.bouncycastle.crypto.signers.Ed25519Signer;
import org.bouncycastle.crypto.signers.HMacDSAKCalculator;
import org.bouncycastle.crypto.signers.RSADigestSigner;

/** The signature scheme for each kind of key a credential may hold. */
final class Algorithms {
  private Algorithms() {}

  static Signer signer(AsymmetricKeyParameter key) {
    if (key instanceof Ed25519PrivateKeyParameters || key instanceof Ed25519PublicKeyParameters) {
      return new Ed25519Signer();
    }
    if (key instanceof RSAKeyParameters) {
      return new RSADigestSigner(new SHA256Digest());
    }
    if (key instanceof ECKeyParameters) {
      return new DSADigestSigner(
          new ECDSASigner(new HMacDSAKCalculator(new SHA256Digest())), new SHA256Digest());
    }
    throw new IllegalArgumentException(
        "keys of type " + key.getClass().getSimpleName() + " cannot sign (use Ed25519, RSA or EC)");
  }
}

package dev.berth.security.seal;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.berth.proto.Letter;
import dev.berth.proto.Sealed;
import dev.berth.security.Identity;
import dev.berth.security.NotTrustedException;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.util.List;

/**
 * Letters on a cluster run with {@code --insecure}: unsigned, their sender taken on trust. Anyone
 * who reaches the cluster port can then act as the server or as any node; Berth says so loudly at
 * every start.
 */
public final class InsecureSeal implements Seal {
  private final Identity self;
  private final Clock clock;

  public InsecureSeal(Identity self, Clock clock) {
    this.self = self;
    this.clock = clock;
  }

  @Override
  public Identity self() {
    return self;
  }

  @Override
  public List<X509Certificate> anchors() {
    return List.of();
  }

  @Override
  public Sealed seal(Letter.Builder letter) {
    return Sealed.newBuilder()
        .setLetter(
            letter
                .setFrom(self.name())
                .setFromRole(self.role().peerRole())
                .setSentMillis(clock.millis())
                .build()
                .toByteString())
        .build();
  }

  @Override
  public Opened open(Sealed sealed) throws NotTrustedException {
    Opened opened = openHandedOn(sealed);
    Letters.checkAddressedTo(opened, Seal.addressOf(self));
    return opened;
  }

  @Override
  public Opened openHandedOn(Sealed sealed) throws NotTrustedException {
    try {
      Letter letter = Letter.parseFrom(sealed.getLetter());
      return new Opened(Letters.sender(letter), letter);
    } catch (InvalidProtocolBufferException e) {
      throw new NotTrustedException("an unreadable letter");
    }
  }
}

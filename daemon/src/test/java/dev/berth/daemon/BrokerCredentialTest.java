package dev.berth.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.core.Hosts;
import dev.berth.security.Identity;
import dev.berth.security.Role;
import dev.berth.security.pki.CertificateAuthority;
import dev.berth.security.pki.Credential;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BrokerCredentialTest {
  @TempDir Path dir;

  @Test
  void theHomesAuthorityIssuesTheBrokerACredentialNamingItsListenerOnce() throws Exception {
    BerthHome home = new BerthHome(dir);
    CertificateAuthority.create(home.authority(), "test", Duration.ofDays(1), Clock.systemUTC());

    Credential issued = BrokerCredential.resolve(home, "127.0.0.1");
    assertEquals(new Identity(Role.BROKER, Hosts.localName()), issued.identity());
    assertEquals(home.credential(issued.identity()), issued.directory());
    List<String> names =
        issued.certificate().getSubjectAlternativeNames().stream()
            .map(san -> san.get(1).toString())
            .toList();
    assertTrue(
        names.containsAll(List.of("127.0.0.1", "localhost", Hosts.localName())), names.toString());

    Credential again = BrokerCredential.resolve(home, "127.0.0.1");
    assertEquals(issued.certificate(), again.certificate(), "issued once");

    IOException elsewhere =
        assertThrows(IOException.class, () -> BrokerCredential.resolve(home, "10.1.2.3"));
    assertTrue(elsewhere.getMessage().contains("does not name 10.1.2.3"), elsewhere.getMessage());
  }

  @Test
  void withoutAnAuthorityItSaysWhatToDo() {
    IOException e =
        assertThrows(
            IOException.class, () -> BrokerCredential.resolve(new BerthHome(dir), "127.0.0.1"));
    assertTrue(e.getMessage().contains("berth ca create"), e.getMessage());
    assertTrue(e.getMessage().contains("--insecure"), e.getMessage());
  }
}

package dev.berth.security.net;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetAddress;
import java.net.NetworkInterface;
import org.junit.jupiter.api.Test;

/** Every address of this host is one source; others are their own. */
class SourcesTest {
  @Test
  void loopbackAndThisHostsAddressesAreOneSource() throws Exception {
    assertEquals(Sources.THIS_HOST, Sources.of(InetAddress.getByName("127.0.0.1")));
    assertEquals(Sources.THIS_HOST, Sources.of(InetAddress.getByName("127.3.2.1")));
    assertEquals(Sources.THIS_HOST, Sources.of(InetAddress.getByName("::1")));
    NetworkInterface.networkInterfaces()
        .flatMap(NetworkInterface::inetAddresses)
        .forEach(a -> assertEquals(Sources.THIS_HOST, Sources.of(a), a.toString()));
  }

  @Test
  void anotherHostIsItsAddress() throws Exception {
    assertEquals("192.0.2.7", Sources.of(InetAddress.getByName("192.0.2.7")));
    assertEquals("[2001:db8:0:0:0:0:0:7]", Sources.of(InetAddress.getByName("2001:db8::7")));
  }
}

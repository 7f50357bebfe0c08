package dev.berth.server.mail;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class MailAddressesTest {
  @Test
  void plainAddressesAreTaken() {
    for (String a :
        List.of("alice", "alice@login1", "first.last+tag@mail.example.org", "a_b=c%d@h-1.x")) {
      assertTrue(MailAddresses.isAddress(a), a);
    }
  }

  @Test
  void headerAndCommandSyntaxIsNot() {
    for (String a :
        List.of(
            "",
            "a b@example.org",
            "a@example.org\nBcc: eve@example.org",
            "a@example.org\rBcc: eve",
            "Eve <eve@example.org>",
            "\"a\"@example.org",
            "undisclosed:;",
            "a,b",
            "-oQ/tmp",
            "|/bin/sh",
            "/etc/passwd",
            ".a@example.org",
            "a@-example.org",
            "a@",
            "a@b@c",
            "a".repeat(65) + "@example.org")) {
      assertFalse(MailAddresses.isAddress(a), a);
    }
  }
}

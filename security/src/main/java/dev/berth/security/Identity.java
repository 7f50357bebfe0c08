package dev.berth.security;

import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Who a credential speaks for: a role and a name (the node's name for a mom, the host's for a
 * server or broker). Certificates carry it as the subject alternative name {@code
 * urn:berth:ROLE:NAME}, so a site's own PKI can issue Berth credentials with any tool.
 */
public record Identity(Role role, String name) {
  private static final String PREFIX = "urn:berth:";

  /** Host and node names as Berth accepts them everywhere (letters, digits, '.', '_', '-'). */
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,252}");

  public Identity {
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "'" + name + "' is not a valid name for a credential (letters, digits, '.', '_', '-')");
    }
  }

  public String uri() {
    return PREFIX + role.word() + ":" + name;
  }

  @Override
  public String toString() {
    return role.word() + " " + name;
  }

  /** The one Berth identity a certificate names; fails if it names none or several. */
  public static Identity of(X509Certificate certificate) {
    List<Identity> found = new ArrayList<>();
    try {
      Collection<List<?>> names = certificate.getSubjectAlternativeNames();
      if (names != null) {
        for (List<?> san : names) {
          // 6 = uniformResourceIdentifier (RFC 5280)
          if (Integer.valueOf(6).equals(san.get(0))
              && san.get(1) instanceof String uri
              && uri.startsWith(PREFIX)) {
            found.add(parse(uri));
          }
        }
      }
    } catch (CertificateParsingException e) {
      throw new IllegalArgumentException("unreadable subject alternative names: " + e.getMessage());
    }
    if (found.size() != 1) {
      throw new IllegalArgumentException(
          "certificate "
              + certificate.getSubjectX500Principal().getName()
              + (found.isEmpty()
                  ? " names no Berth identity (a subject alternative name URI " + PREFIX
                  : " names several Berth identities (" + found + "; one URI " + PREFIX)
              + "ROLE:NAME)");
    }
    return found.get(0);
  }

  static Identity parse(String uri) {
    String rest = uri.substring(PREFIX.length());
    int colon = rest.indexOf(':');
    if (colon < 0) {
      throw new IllegalArgumentException("'" + uri + "' is not " + PREFIX + "ROLE:NAME");
    }
    return new Identity(Role.ofWord(rest.substring(0, colon)), rest.substring(colon + 1));
  }
}

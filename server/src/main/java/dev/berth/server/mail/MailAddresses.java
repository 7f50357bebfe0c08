package dev.berth.server.mail;

import dev.berth.core.Hosts;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * What a mail address of Berth's may look like: {@code user} or {@code user@host}, with a user part
 * of letters, digits and {@code . _ % + = -} and a host name. That covers the addresses sites give
 * to {@code qsub -M} and leaves out everything a mail header or a mail transfer agent reads as
 * syntax: spaces, commas, quotes, angle brackets, colons and semicolons (groups), {@code |} and
 * {@code /} (sendmail's program and file recipients), and a leading {@code -} (an option).
 */
public final class MailAddresses {
  /** The most addresses one list may hold (Torque's sendmail argv held about 96). */
  public static final int MAX_ADDRESSES = 100;

  private static final int MAX_LENGTH = 254;
  private static final Pattern USER = Pattern.compile("[A-Za-z0-9_%+=][A-Za-z0-9._%+=\\-]{0,63}");

  private MailAddresses() {}

  public static boolean isAddress(String address) {
    if (address.length() > MAX_LENGTH) {
      return false;
    }
    int at = address.indexOf('@');
    if (at < 0) {
      return USER.matcher(address).matches();
    }
    return USER.matcher(address.substring(0, at)).matches()
        && Hosts.isName(address.substring(at + 1));
  }

  /** Why {@code from} cannot be mail_from, or empty when it can. */
  public static Optional<String> refusalAsSender(String from) {
    return isAddress(from)
        ? Optional.empty()
        : Optional.of("'" + from + "' is not a mail address (user or user@host)");
  }
}

package dev.berth.server.mail;

import dev.berth.core.ServerAttributeNames;
import dev.berth.core.pbs.AttributeTable;
import dev.berth.server.state.ClusterState;

/**
 * The server attributes that shape job mail, as Torque names them, read from the state a batch of
 * events left.
 *
 * @param domain mail_domain: {@code never} stops all job mail; otherwise, when set, owners get mail
 *     at {@code euser@domain}
 * @param from mail_from: the envelope sender ({@code sendmail -f})
 * @param subjectFormat mail_subject_fmt
 * @param bodyFormat mail_body_fmt, or null for Torque's default body
 * @param sendmail sendmail_path, or null to look for {@code sendmail}
 * @param noMailForce no_mail_force: forced mails follow Mail_Points too
 */
public record MailSettings(
    String domain,
    String from,
    String subjectFormat,
    String bodyFormat,
    String sendmail,
    boolean noMailForce) {

  /** Torque's PBS_DEFAULT_MAIL. */
  public static final String DEFAULT_FROM =
      AttributeTable.SERVER.find(ServerAttributeNames.MAIL_FROM).orElseThrow().defaultValue();

  public static final String DEFAULT_SUBJECT = "PBS JOB %i";

  /** The mail_domain that turns job mail off. */
  public static final String NEVER = "never";

  public static MailSettings of(ClusterState s) {
    return new MailSettings(
        s.serverAttribute(ServerAttributeNames.MAIL_DOMAIN).orElse(null),
        s.serverAttribute(ServerAttributeNames.MAIL_FROM).orElse(DEFAULT_FROM),
        s.serverAttribute(ServerAttributeNames.MAIL_SUBJECT_FMT).orElse(DEFAULT_SUBJECT),
        s.serverAttribute(ServerAttributeNames.MAIL_BODY_FMT).orElse(null),
        s.serverAttribute(ServerAttributeNames.SENDMAIL_PATH).orElse(null),
        "True".equals(s.serverAttribute(ServerAttributeNames.NO_MAIL_FORCE).orElse("False")));
  }

  /** Whether mail_domain says no job mail at all (in any case, as Torque compares it). */
  public boolean never() {
    return NEVER.equalsIgnoreCase(domain);
  }
}

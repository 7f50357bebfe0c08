package dev.berth.server.mail;

/**
 * One mail to hand to the mail transfer agent.
 *
 * @param sendmail the MTA to run (sendmail_path), or empty to look for {@code sendmail}
 * @param from the envelope sender (mail_from)
 * @param message headers and body, as sendmail reads them on its standard input
 */
public record Letter(String jobId, MailPoint point, String sendmail, String from, String message) {}

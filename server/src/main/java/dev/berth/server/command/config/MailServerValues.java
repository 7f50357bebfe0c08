package dev.berth.server.command.config;

import dev.berth.core.Hosts;
import dev.berth.core.ServerAttributeNames;
import dev.berth.proto.Error;
import dev.berth.server.command.AttributeValues;
import dev.berth.server.command.CommandException;
import dev.berth.server.mail.MailAddresses;
import dev.berth.server.mail.MailSettings;

/**
 * The rules of the mail server attributes beyond their type and who may set them. sendmail_path
 * names a program the server runs as its own user, so core's table has it set only by root on a
 * server host (ROOT_ON_SERVER, which ManageCommands enforces for every attribute so marked), and it
 * must be an absolute path. mail_from becomes an argument of that program and mail_domain part of
 * an address, so both must be plain names.
 */
final class MailServerValues {
  private MailServerValues() {}

  /** Refuses {@code value} for the server attribute {@code key} ({@code name.resource} too). */
  static void check(String key, String value) {
    switch (key) {
      case ServerAttributeNames.SENDMAIL_PATH -> {
        if (value != null && !value.startsWith("/")) {
          throw new CommandException(
              Error.Code.BAD_VALUE,
              "sendmail_path '" + AttributeValues.shown(value) + "' must be an absolute path");
        }
      }
      case ServerAttributeNames.MAIL_FROM -> {
        if (value != null) {
          MailAddresses.refusalAsSender(value)
              .ifPresent(
                  why -> {
                    throw new CommandException(
                        Error.Code.BAD_VALUE, "illegal mail_from: " + AttributeValues.shown(why));
                  });
        }
      }
      case ServerAttributeNames.MAIL_DOMAIN -> {
        if (value != null && !value.equalsIgnoreCase(MailSettings.NEVER) && !Hosts.isName(value)) {
          throw new CommandException(
              Error.Code.BAD_VALUE,
              "illegal mail_domain '"
                  + AttributeValues.shown(value)
                  + "': a domain name, or never for no job mail");
        }
      }
      default -> {}
    }
  }
}

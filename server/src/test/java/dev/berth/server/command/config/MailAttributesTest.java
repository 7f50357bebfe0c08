package dev.berth.server.command.config;

import static dev.berth.server.testing.Driver.ALICE;
import static dev.berth.server.testing.Driver.ROOT;
import static dev.berth.server.testing.Driver.attr;
import static dev.berth.server.testing.RefusedCommands.refused;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.core.AttributeNames;
import dev.berth.core.ServerAttributeNames;
import dev.berth.core.pbs.AttributeDef;
import dev.berth.core.pbs.AttributeTable;
import dev.berth.core.pbs.SetBy;
import dev.berth.proto.Attribute;
import dev.berth.proto.Error;
import dev.berth.proto.Manage;
import dev.berth.server.command.Caller;
import dev.berth.server.mail.MailRules;
import dev.berth.server.mail.MailSettings;
import dev.berth.server.testing.Driver;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Mail_Users becomes the To: header of the job's mail and the mail server attributes become the
 * MTA's command line: the server takes only values that cannot be read as more than they are.
 */
class MailAttributesTest {
  private Driver d;

  @BeforeEach
  void cluster() {
    d = Driver.withTwoNodes();
  }

  @Test
  void mailUsersIsKeptAsGivenAndMailGoesOnlyToItsPlainAddresses() {
    String id = d.submit(ALICE, attr(AttributeNames.MAIL_USERS, "a@example.org, b"));
    assertEquals("a@example.org, b", d.job(id).getMailUsers());
    // Torque takes any -M: scripts carry placeholders, and must still be accepted
    String odd =
        d.submit(
            ALICE,
            attr(
                AttributeNames.MAIL_USERS,
                "Eve <eve@x.org>, a@example.org,-oQ/tmp/x,|/bin/sh,c@d.org Bcc: e@f.org"));
    assertEquals(
        List.of("a@example.org"),
        MailRules.recipients(d.job(odd), MailSettings.of(d.state)),
        "only the plain address gets mail");
  }

  @Test
  void aLineBreakInMailUsersIsRefused() {
    int events = d.journal.size();
    refused(
        Error.Code.BAD_VALUE,
        () -> d.submit(ALICE, attr(AttributeNames.MAIL_USERS, "a@example.org\nBcc: eve@x.org")),
        "control character \\n");
    refused(
        Error.Code.BAD_VALUE,
        () -> d.submit(ALICE, attr(AttributeNames.MAIL_USERS, "a@example.org\r\nBcc: eve")),
        "control character \\r");
    assertEquals(events, d.journal.size(), "nothing recorded");
  }

  @Test
  void mailUsersRefuseInvisibleFormattingCharacters() {
    refused(
        Error.Code.BAD_VALUE,
        () -> d.submit(ALICE, attr(AttributeNames.MAIL_USERS, "alice@exa\u200bmple.org")),
        "illegal value for Mail_Users",
        "holds U+200B, an invisible formatting character");
  }

  @Test
  void aJobNameCannotCarryALineBreakIntoAMail() {
    refused(
        Error.Code.BAD_VALUE,
        () -> d.submit(ALICE, attr(AttributeNames.JOB_NAME, "x\nBcc: eve@example.org")),
        "control character \\n");
  }

  @Test
  void onlyRootOnAServerHostSetsTheMailTransferAgent() {
    // managers, but not root on a server host: alice, and root of a submit host
    d.setServer(ROOT, attr(ServerAttributeNames.MANAGERS, "alice@login1,root@login1"));
    refused(
        Error.Code.PERMISSION,
        () -> d.setServer(ALICE, attr(ServerAttributeNames.SENDMAIL_PATH, "/home/alice/evil")),
        "alice@login1 may not set sendmail_path");
    refused(
        Error.Code.PERMISSION,
        () ->
            d.qmgr(
                ALICE,
                Manage.Command.UNSET,
                Manage.ObjectType.SERVER,
                List.of(),
                Driver.op(ServerAttributeNames.SENDMAIL_PATH, Attribute.Op.UNSET, "")),
        "may not set sendmail_path");
    refused(
        Error.Code.PERMISSION,
        () ->
            d.setServer(
                Caller.relayed("root", "root", "login1"),
                attr(ServerAttributeNames.SENDMAIL_PATH, "/usr/sbin/sendmail")),
        "may not set sendmail_path");
    refused(
        Error.Code.BAD_VALUE,
        () -> d.setServer(ROOT, attr(ServerAttributeNames.SENDMAIL_PATH, "sendmail")),
        "must be an absolute path");
    d.setServer(ROOT, attr(ServerAttributeNames.SENDMAIL_PATH, "/usr/sbin/sendmail"));
    assertEquals(
        "/usr/sbin/sendmail",
        d.state.serverAttribute(ServerAttributeNames.SENDMAIL_PATH).orElseThrow());
    // the other mail settings are a manager's, as in Torque
    d.setServer(ALICE, attr(ServerAttributeNames.MAIL_SUBJECT_FMT, "Job %i: %m"));
  }

  @Test
  void everyAttributeTheTableGivesRootOnAServerHostIsRefusedToAManager() {
    d.setServer(ROOT, attr(ServerAttributeNames.MANAGERS, "alice@login1"));
    List<AttributeDef> rootOnly =
        AttributeTable.SERVER.definitions().stream()
            .filter(def -> def.setBy() == SetBy.ROOT_ON_SERVER)
            .toList();
    assertFalse(rootOnly.isEmpty());
    for (AttributeDef def : rootOnly) {
      refused(
          Error.Code.PERMISSION,
          () -> d.setServer(ALICE, attr(def.name(), "/usr/sbin/sendmail")),
          "alice@login1 may not set " + def.name() + ": the server runs it as its own user");
    }
    // the check is the server attributes'; a queue's or a node's would go unchecked
    for (AttributeTable table : List.of(AttributeTable.QUEUE, AttributeTable.NODE)) {
      assertTrue(
          table.definitions().stream().noneMatch(def -> def.setBy() == SetBy.ROOT_ON_SERVER),
          table.name());
    }
  }

  @Test
  void mailFromAndMailDomainArePlainNames() {
    refused(
        Error.Code.BAD_VALUE,
        () -> d.setServer(ROOT, attr(ServerAttributeNames.MAIL_FROM, "-oQ/tmp")),
        "illegal mail_from");
    refused(
        Error.Code.BAD_VALUE,
        () -> d.setServer(ROOT, attr(ServerAttributeNames.MAIL_FROM, "PBS <pbs@example.org>")),
        "illegal mail_from");
    refused(
        Error.Code.BAD_VALUE,
        () -> d.setServer(ROOT, attr(ServerAttributeNames.MAIL_DOMAIN, "example.org>")),
        "illegal mail_domain");
    d.setServer(
        ROOT,
        attr(ServerAttributeNames.MAIL_FROM, "pbs@example.org"),
        attr(ServerAttributeNames.MAIL_DOMAIN, "Never"));
    assertEquals("Never", d.state.serverAttribute(ServerAttributeNames.MAIL_DOMAIN).orElseThrow());
  }
}

package dev.berth.server.mail;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.proto.Job;
import java.util.List;
import org.junit.jupiter.api.Test;

/** svr_mailowner's tests: whether a job wants a mail, and to whom it goes. */
class MailRulesTest {
  private static final MailSettings PLAIN = new MailSettings(null, "adm", "x", null, null, false);

  private static Job job(String mailPoints) {
    return Job.newBuilder()
        .setId("1.srv")
        .setOwner("alice@login1")
        .setEuser("alice")
        .setMailPoints(mailPoints)
        .build();
  }

  private static MailRules.Notice notice(MailPoint point, boolean forced, int status) {
    return new MailRules.Notice(point, forced, "", status);
  }

  private static boolean wanted(String points, MailPoint point, boolean forced, int status) {
    return MailRules.wanted(notice(point, forced, status), job(points), PLAIN);
  }

  @Test
  void mailPointsChooseTheMails() {
    assertTrue(wanted("abe", MailPoint.BEGIN, false, 0));
    assertTrue(wanted("be", MailPoint.END, false, 0));
    assertFalse(wanted("be", MailPoint.ABORT, false, 0));
    assertTrue(wanted("a", MailPoint.ABORT, false, 0));
    assertFalse(wanted("a", MailPoint.END, false, 0));
    assertFalse(wanted("n", MailPoint.ABORT, false, 0));
    assertTrue(wanted("", MailPoint.ABORT, false, 0), "unset: abort only");
    assertFalse(wanted("", MailPoint.END, false, 0));
  }

  @Test
  void fMailsWhateverTheLetterWhenTheExitIsNotZero() {
    assertFalse(wanted("f", MailPoint.BEGIN, false, 0));
    assertFalse(wanted("ef", MailPoint.END, false, 0));
    assertTrue(wanted("f", MailPoint.END, false, 1));
    assertTrue(wanted("bf", MailPoint.ABORT, false, -1));
  }

  @Test
  void forcedMailIgnoresMailPointsButNotPNeverOrNoMailForce() {
    assertTrue(wanted("n", MailPoint.ABORT, true, -1));
    assertTrue(wanted("b", MailPoint.DELETE, true, 0));
    assertFalse(wanted("p", MailPoint.ABORT, true, -1));
    assertFalse(
        MailRules.wanted(
            notice(MailPoint.ABORT, true, -1),
            job("n"),
            new MailSettings(null, "adm", "x", null, null, true)));
    assertFalse(
        MailRules.wanted(
            notice(MailPoint.ABORT, true, -1),
            job("abe"),
            new MailSettings("NEVER", "adm", "x", null, null, false)));
  }

  @Test
  void mailUsersThenTheOwnerAtTheDomainThenJobOwner() {
    Job listed = job("a").toBuilder().setMailUsers("a@example.org,b").build();
    assertEquals(List.of("a@example.org", "b"), MailRules.recipients(listed, PLAIN));
    MailSettings domain = new MailSettings("example.org", "adm", "x", null, null, false);
    assertEquals(List.of("a@example.org", "b"), MailRules.recipients(listed, domain));
    assertEquals(List.of("alice@example.org"), MailRules.recipients(job("a"), domain));
    assertEquals(List.of("alice@login1"), MailRules.recipients(job("a"), PLAIN));
  }

  @Test
  void whatIsNotAnAddressIsLeftOut() {
    // a list a server that did not check them may have recorded
    Job old = job("a").toBuilder().setMailUsers("ok@example.org,x@y Bcc: z,-oQ/tmp").build();
    assertEquals(List.of("ok@example.org"), MailRules.recipients(old, PLAIN));
    Job none = job("a").toBuilder().setMailUsers("<eve@example.org>").build();
    assertEquals(List.of(), MailRules.recipients(none, PLAIN));
  }
}

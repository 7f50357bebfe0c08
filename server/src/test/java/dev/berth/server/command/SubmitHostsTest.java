package dev.berth.server.command;

import static dev.berth.server.testing.Driver.ROOT;
import static dev.berth.server.testing.Driver.attr;
import static dev.berth.server.testing.RefusedCommands.refused;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.berth.core.AttributeNames;
import dev.berth.proto.Error;
import dev.berth.server.testing.Driver;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Which submit hosts' relays the server listens to ({@code submit_hosts}, {@code acl_hosts}), and
 * what a relayed caller is: a user of the relay's host, never root of a server host.
 */
class SubmitHostsTest {
  private static final Caller RELAYED_ALICE = Caller.relayed("alice", "users", "login1");
  private static final Caller RELAYED_ROOT = Caller.relayed("root", "root", "login1");

  private Driver d;

  @BeforeEach
  void cluster() {
    d = Driver.withTwoNodes();
  }

  @Test
  void noSubmitHostIsAdmittedUntilTheServerListsIt() {
    String why = SubmitHosts.refusal(d.state, "login1");
    assertTrue(why.startsWith("access from host login1 not allowed"), why);
    assertTrue(why.contains("qmgr -c 'set server submit_hosts += login1'"), why);

    d.setServer(ROOT, attr("submit_hosts", "login1,login[3-4],*.hpc.example.org"));

    assertNull(SubmitHosts.refusal(d.state, "login1"));
    assertNull(SubmitHosts.refusal(d.state, "LOGIN4"));
    assertNull(SubmitHosts.refusal(d.state, "gw.hpc.example.org"));
    assertTrue(SubmitHosts.refusal(d.state, "login2") != null);
    assertTrue(SubmitHosts.refusal(d.state, "login10") != null);
  }

  @Test
  void aclHostsAdmitAndDenyOnceEnabled() {
    d.setServer(ROOT, attr("acl_hosts", "-login2,login*"), attr("submit_hosts", "login2"));
    assertNull(SubmitHosts.refusal(d.state, "login2"), "acl_hosts is not enabled yet");
    assertTrue(SubmitHosts.refusal(d.state, "login1") != null);

    d.setServer(ROOT, attr("acl_host_enable", "true"));

    assertNull(SubmitHosts.refusal(d.state, "login1"));
    String why = SubmitHosts.refusal(d.state, "login2");
    assertTrue(why.contains("acl_hosts denies it"), why);
    assertTrue(SubmitHosts.refusal(d.state, "other") != null);
  }

  @Test
  void aRelayedRootIsNoManager() {
    assertTrue(Permissions.isManager(d.state, ROOT));
    assertTrue(!Permissions.isManager(d.state, RELAYED_ROOT));
    refused(
        Error.Code.PERMISSION,
        () -> d.setServer(RELAYED_ROOT, attr("query_other_jobs", "true")),
        "root@login1 may not");

    d.setServer(ROOT, attr("managers", "root@login1"));

    assertTrue(Permissions.isManager(d.state, RELAYED_ROOT));
  }

  @Test
  void aRelayedJobWasSubmittedFromTheRelaysHostWhateverQsubSays() {
    String id = d.submit(RELAYED_ALICE, attr(AttributeNames.SUBMIT_HOST, "head"));
    assertEquals("login1", d.job(id).getSubmitHost());
    assertEquals("alice@login1", d.job(id).getOwner());

    String local = d.submit(Driver.ALICE, attr(AttributeNames.SUBMIT_HOST, "elsewhere"));
    assertEquals("elsewhere", d.job(local).getSubmitHost());
  }
}

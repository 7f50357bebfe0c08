package dev.berth.server.command.job;

import static dev.berth.server.testing.Driver.ALICE;
import static dev.berth.server.testing.Driver.ROOT;
import static dev.berth.server.testing.Driver.attr;
import static dev.berth.server.testing.Driver.op;
import static dev.berth.server.testing.RefusedCommands.refused;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.berth.core.AttributeNames;
import dev.berth.core.ServerAttributeNames;
import dev.berth.proto.Attribute;
import dev.berth.proto.Error;
import dev.berth.proto.Job;
import dev.berth.server.testing.Driver;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Jobs never run as root unless the server's acl_roots names the submitter (Torque's and OpenPBS's
 * rule). A job runs as the user who submitted it, so submission is where it is decided. And jobs go
 * only to nodes whose moms can run them: root's where the mom runs root jobs, those with
 * cgroup_enable where it makes cgroups.
 */
class RootJobsTest {
  private Driver d;

  @BeforeEach
  void cluster() {
    d = Driver.withTwoNodes();
  }

  @Test
  void withoutAclRootsRootCannotSubmitAndNothingIsRecorded() {
    int events = d.journal.size();
    refused(
        Error.Code.BAD_USER,
        () -> d.submit(ROOT),
        "root user root@head not allowed",
        "acl_roots",
        "set server acl_roots += root@head");
    assertEquals(events, d.journal.size());
  }

  @Test
  void aclRootsNamingTheSubmitterLetsTheJobIn() {
    d.setServer(ROOT, attr("acl_roots", "root@head"));
    Job job = d.job(d.submit(ROOT, attr(AttributeNames.JOB_NAME, "backup")));
    assertEquals("root", job.getEuser());
    assertEquals("root@head", job.getOwner());
    assertEquals("backup", job.getName());
  }

  @Test
  void aRootJobIsRefusedWhereNoMomRunsRootJobs() {
    d.setServer(ROOT, attr("acl_roots", "root@head"));
    d.hello(Driver.node("n1", 4).toBuilder().setRunsRootJobs(false).build());
    d.submit(ROOT); // n2's mom does
    d.hello(Driver.node("n2", 4).toBuilder().setRunsRootJobs(false).build());
    int events = d.journal.size();
    refused(
        Error.Code.RESOURCES_UNAVAILABLE,
        () -> d.submit(ROOT),
        "job can never run: it would run as root, and no node's mom runs jobs as root",
        "--root-jobs");
    assertEquals(events, d.journal.size());
    d.submit(ALICE);
  }

  @Test
  void aRootJobGoesOnlyToANodeWhoseMomRunsRootJobs() {
    d.setServer(ROOT, attr("acl_roots", "root@head"));
    d.hello(Driver.node("n1", 4).toBuilder().setRunsRootJobs(false).build());
    d.hello(Driver.node("n2", 4).toBuilder().setRunsRootJobs(true).build());
    String root = d.submit(ROOT);
    String alice = d.submit(ALICE);
    assertEquals(java.util.List.of(root, alice), d.schedule());
    assertEquals("n2", d.motherSuperior(root));
    assertEquals("n1", d.motherSuperior(alice));
  }

  @Test
  void aJobWithCgroupsGoesOnlyToANodeWhoseMomMakesThem() {
    d.hello(Driver.node("n1", 4).toBuilder().setNoCgroups("no cpuset controller").build());
    d.hello(Driver.node("n2", 4));
    String plain = d.submit(ALICE);
    d.setServer(ROOT, attr(ServerAttributeNames.CGROUP_ENABLE, "True"));
    String isolated = d.submit(ALICE);
    assertEquals(java.util.List.of(plain, isolated), d.schedule());
    assertEquals("n1", d.motherSuperior(plain));
    assertEquals("n2", d.motherSuperior(isolated));
  }

  @Test
  void aclRootsForAnotherHostDoesNot() {
    d.setServer(ROOT, attr("acl_roots", "root@login1,root@*.example.org"));
    refused(Error.Code.BAD_USER, () -> d.submit(ROOT), "acl_roots");
    d.setServer(ROOT, op("acl_roots", Attribute.Op.INCR, "root@he*"));
    d.submit(ROOT);
    d.setServer(ROOT, op("acl_roots", Attribute.Op.UNSET, ""));
    refused(Error.Code.BAD_USER, () -> d.submit(ROOT), "acl_roots");
  }

  @Test
  void otherUsersAreNotConcernedAndCannotSetIt() {
    d.submit(ALICE);
    refused(
        Error.Code.PERMISSION,
        () -> d.setServer(ALICE, attr("acl_roots", "root")),
        "only managers");
  }

  @Test
  void noAttributeChangesWhoAJobRunsAs() {
    for (String name : new String[] {"User_List", "euser", "Job_Owner", "proxy_user"}) {
      refused(
          Error.Code.UNKNOWN_ATTRIBUTE,
          () -> d.submit(ALICE, attr(name, "root")),
          "undefined job attribute '" + name + "'");
    }
    String id = d.submit(ALICE, attr(AttributeNames.HOLD_TYPES, "u"));
    refused(
        Error.Code.UNKNOWN_ATTRIBUTE,
        () -> d.qalter(ALICE, id, attr("User_List", "root")),
        "undefined job attribute 'User_List'");
    assertEquals("alice", d.job(id).getEuser());
  }
}

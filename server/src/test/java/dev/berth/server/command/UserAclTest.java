package dev.berth.server.command;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Torque's user ACL rules, as acl_roots, managers and operators read them. */
class UserAclTest {
  @ParameterizedTest(name = "{0} admits {1}@{2}: {3}")
  @CsvSource(
      delimiter = '|',
      value = {
        "root                     | root  | head            | true",
        "root@head                | root  | head            | true",
        "root@head                | root  | login1          | false",
        "root@HEAD                | root  | head            | true",
        "Root@head                | root  | head            | false",
        "root@*                   | root  | anything.org    | true",
        "root@*.example.org       | root  | a.example.org   | true",
        "root@*.example.org       | root  | example.org     | false",
        "root@*.example.org       | root  | a.example.org.x | false",
        "root@login*              | root  | login07         | true",
        "root@node[1-64]          | root  | node17          | true",
        "root@node[1-64]          | root  | node65          | false",
        "root@node[1-64].cluster  | root  | node3.cluster   | true",
        "root@node[1-64]          | root  | nodeX           | false",
        "alice@head,root@head     | root  | head            | true",
        "-root@login1,+           | root  | login1          | false",
        "-root@login1,+           | root  | head            | true",
        "+,-root@login1           | root  | login1          | false",
        "-                        | root  | head            | false",
        "rootx@head               | root  | head            | false",
        "''                       | root  | head            | false",
      })
  void admits(String acl, String user, String host, boolean expected) {
    assertEquals(expected, UserAcl.admits(acl, new Caller(user, "g", host)));
  }
}

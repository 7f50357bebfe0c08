package dev.berth.server.command.job;

import static dev.berth.server.testing.Driver.ALICE;
import static dev.berth.server.testing.Driver.ROOT;
import static dev.berth.server.testing.Driver.attr;
import static dev.berth.server.testing.Driver.resource;
import static dev.berth.server.testing.RefusedCommands.refused;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.berth.core.AttributeNames;
import dev.berth.proto.Attribute;
import dev.berth.proto.Error;
import dev.berth.proto.Manage;
import dev.berth.server.command.AttributeValues;
import dev.berth.server.command.CommandException;
import dev.berth.server.testing.Driver;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What reaches a node is checked at the server, whatever client sent it: every path, name, shell,
 * environment and free-text value of a job, at submission and at qalter. A refused request records
 * nothing and says which attribute is wrong and why.
 */
class JobValuesTest {
  private Driver d;

  @BeforeEach
  void cluster() {
    d = Driver.withTwoNodes();
  }

  /** Each job attribute a client may send, with a good value to put a bad character into. */
  static Stream<Arguments> attributes() {
    return Stream.of(
        Arguments.of(attr(AttributeNames.JOB_NAME, "train%s"), "Job_Name"),
        Arguments.of(attr(AttributeNames.OUTPUT_PATH, "login1:/home/alice/o%s"), "Output_Path"),
        Arguments.of(attr(AttributeNames.ERROR_PATH, "login1:/home/alice/e%s"), "Error_Path"),
        Arguments.of(attr(AttributeNames.SHELL_PATH_LIST, "/bin/bash%s"), "Shell_Path_List"),
        Arguments.of(attr(AttributeNames.INIT_WORK_DIR, "/home/alice%s"), "init_work_dir"),
        Arguments.of(attr(AttributeNames.WORK_DIR, "/home/alice%s"), "work_dir"),
        Arguments.of(attr(AttributeNames.ACCOUNT_NAME, "proj%s"), "Account_Name"),
        Arguments.of(attr(AttributeNames.VARIABLE_LIST, "FOO=bar%s"), "Variable_List"),
        Arguments.of(attr(AttributeNames.MAIL_USERS, "alice@login1%s"), "Mail_Users"),
        Arguments.of(attr(AttributeNames.GROUP_LIST, "users%s"), "group_list"),
        Arguments.of(attr(AttributeNames.CHECKPOINT, "n%s"), "Checkpoint"),
        Arguments.of(attr(AttributeNames.SUBMIT_ARGS, "-N x%s"), "submit_args"),
        Arguments.of(attr(AttributeNames.SUBMIT_HOST, "login1%s"), "submit_host"),
        Arguments.of(attr(AttributeNames.DEPEND, "afterok:1%s"), "depend"),
        Arguments.of(attr(AttributeNames.JOB_ARRAY_REQUEST, "1-3%s"), "job_array_request"),
        Arguments.of(attr(AttributeNames.DESTINATION, "batch%s"), "destination"),
        Arguments.of(resource("software", "matlab%s"), "Resource_List.software"),
        Arguments.of(resource("prologue", "/site/pro%s"), "Resource_List.prologue"),
        Arguments.of(attr("x", "ext%s"), "x"));
  }

  static Stream<Arguments> attributesWithControlCharacters() {
    return attributes()
        .flatMap(
            a ->
                Stream.of("\u0000", "\n", "\u001b[2J", "\r", "\u007f", "\u009b", "\u202e")
                    .map(c -> Arguments.of(a.get()[0], a.get()[1], c)));
  }

  @ParameterizedTest(name = "{1} with {2}")
  @MethodSource("attributesWithControlCharacters")
  void controlCharactersAreRefusedInEveryAttribute(Attribute template, String label, String bad) {
    Attribute a = template.toBuilder().setValue(template.getValue().formatted(bad)).build();
    int events = d.journal.size();
    CommandException e =
        refused(
            Error.Code.BAD_VALUE,
            () -> d.submit(ALICE, a),
            "illegal value for " + label + ":",
            "control character");
    assertEquals(-1, dev.berth.core.ControlCharacters.find(e.getMessage()), "shown escaped");
    assertEquals(events, d.journal.size(), "nothing recorded");
  }

  /** Invisible formatting characters (Cf), BMP and beyond, with how a refusal names each. */
  private static final List<String[]> FORMAT_CHARACTERS =
      List.of(
          new String[] {"\u200b", "U+200B"},
          new String[] {"\u200e", "U+200E"},
          new String[] {"\u200f", "U+200F"},
          new String[] {"\u061c", "U+061C"},
          new String[] {"\ufeff", "U+FEFF"},
          new String[] {"\u00ad", "U+00AD"},
          new String[] {new String(Character.toChars(0xE0001)), "U+E0001"},
          new String[] {new String(Character.toChars(0xE007F)), "U+E007F"});

  /** The job's own data, which keeps formatting characters: its environment and qsub's line. */
  private static final List<String> DATA =
      List.of(AttributeNames.VARIABLE_LIST, AttributeNames.SUBMIT_ARGS);

  static Stream<Arguments> attributesWithFormatCharacters() {
    return attributes()
        .filter(a -> !DATA.contains(((Attribute) a.get()[0]).getName()))
        .flatMap(
            a ->
                FORMAT_CHARACTERS.stream()
                    .map(c -> Arguments.of(a.get()[0], a.get()[1], c[0], c[1])));
  }

  @ParameterizedTest(name = "{1} with {3}")
  @MethodSource("attributesWithFormatCharacters")
  void invisibleFormattingCharactersAreRefusedInNamesAndText(
      Attribute template, String label, String bad, String name) {
    Attribute a = template.toBuilder().setValue(template.getValue().formatted(bad)).build();
    int events = d.journal.size();
    CommandException e =
        refused(
            Error.Code.BAD_VALUE,
            () -> d.submit(ALICE, a),
            "illegal value for " + label + ":",
            "holds " + name + ", an invisible formatting character, at position ");
    assertEquals(-1, dev.berth.core.ControlCharacters.findFormat(e.getMessage()), "shown escaped");
    assertEquals(events, d.journal.size(), "nothing recorded");
  }

  @Test
  void theJobsEnvironmentKeepsFormattingCharactersAndGetsThemAsTheyWere() {
    String persian = "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"; // with a ZWNJ
    String id =
        d.submit(
            ALICE,
            attr(AttributeNames.VARIABLE_LIST, "GREETING=" + persian),
            attr(AttributeNames.SUBMIT_ARGS, "-v GREETING=" + persian));
    assertTrue(
        d.job(id).getVariablesList().stream()
            .anyMatch(v -> v.getName().equals("GREETING") && v.getValue().equals(persian)));
    assertEquals("-v GREETING=" + persian, d.job(id).getSubmitArgs());
    refused(
        Error.Code.BAD_VALUE,
        () -> d.submit(ALICE, attr(AttributeNames.VARIABLE_LIST, "GREETING=a\u001b[2J")),
        "illegal value for Variable_List",
        "control character");
  }

  @Test
  void aWorkingDirectoryFromTheEnvironmentIsAPathAndRefusesThem() {
    int events = d.journal.size();
    refused(
        Error.Code.BAD_VALUE,
        () ->
            d.client(
                ALICE,
                Driver.submitRequest(
                    List.of(
                        attr(AttributeNames.VARIABLE_LIST, "PBS_O_WORKDIR=/home/al\u200bice")))),
        "illegal value for the working directory (PBS_O_WORKDIR)",
        "U+200B");
    assertEquals(events, d.journal.size());
  }

  @ParameterizedTest(name = "{1}")
  @MethodSource("attributes")
  void theSameValuesWithoutThemPassTheCharacterCheck(Attribute template, String label) {
    Attribute a = template.toBuilder().setValue(template.getValue().formatted("")).build();
    try {
      d.submit(ALICE, a);
    } catch (CommandException e) {
      // some need more than a clean value (an existing job, a known queue): not this check's
      assertFalse(e.getMessage().contains("control character"), e.getMessage());
      assertFalse(e.getMessage().contains("formatting character"), e.getMessage());
    }
  }

  @Test
  void qalterChecksTheSameWay() {
    String id = d.submit(ALICE, attr(AttributeNames.HOLD_TYPES, "u"));
    int events = d.journal.size();
    refused(
        Error.Code.BAD_VALUE,
        () -> d.qalter(ALICE, id, attr(AttributeNames.JOB_NAME, "a\nJob_Owner = root@head")),
        "illegal value for Job_Name",
        "\\n");
    refused(
        Error.Code.BAD_VALUE,
        () -> d.qalter(ALICE, id, attr(AttributeNames.OUTPUT_PATH, "login1:relative/out")),
        "must be an absolute path");
    assertEquals(events, d.journal.size());
    assertEquals("STDIN", d.job(id).getName());
  }

  @Test
  void attributeNamesAndResourceNamesAreCheckedToo() {
    refused(
        Error.Code.BAD_VALUE,
        () -> d.submit(ALICE, attr("Job_Name\u001b]0;pwned\u0007", "x")),
        "illegal value for an attribute name",
        "\\x1b");
    refused(
        Error.Code.BAD_VALUE,
        () -> d.submit(ALICE, resource("wall\ntime", "1:00:00")),
        "illegal value for an attribute name");
  }

  @Test
  void pathsMustBeAbsoluteAndTheirHostsHostNames() {
    for (Attribute bad :
        List.of(
            attr(AttributeNames.OUTPUT_PATH, "out.txt"),
            attr(AttributeNames.ERROR_PATH, "login1:err.txt"),
            attr(AttributeNames.INIT_WORK_DIR, "work"),
            attr(AttributeNames.WORK_DIR, "../alice"),
            attr(AttributeNames.SHELL_PATH_LIST, "bash"))) {
      refused(Error.Code.BAD_VALUE, () -> d.submit(ALICE, bad), "absolute path");
    }
    refused(
        Error.Code.BAD_VALUE,
        () -> d.submit(ALICE, attr(AttributeNames.OUTPUT_PATH, "log in/x:/tmp/out")),
        "Output_Path: 'log in/x' is not a host name");
    refused(
        Error.Code.BAD_VALUE,
        () -> d.submit(ALICE, attr(AttributeNames.SUBMIT_HOST, "x:/etc")),
        "submit_host: 'x:/etc' is not a host name");
    refused(
        Error.Code.BAD_VALUE,
        () -> d.submit(ALICE, attr(AttributeNames.GROUP_LIST, "users,staff@-bad")),
        "illegal group_list");
    String ok =
        d.submit(
            ALICE,
            attr(AttributeNames.OUTPUT_PATH, "login1.example.org:/home/alice/out"),
            attr(AttributeNames.GROUP_LIST, "users,staff@login1"),
            attr(AttributeNames.JOB_NAME, "Müller-東京"));
    assertEquals("Müller-東京", d.job(ok).getName());
  }

  @Test
  void aValueOver64KiBIsRefusedNamingItsSize() {
    String big = "x".repeat(AttributeValues.MAX_BYTES + 1);
    refused(
        Error.Code.BAD_VALUE,
        () -> d.submit(ALICE, attr(AttributeNames.ACCOUNT_NAME, big)),
        "the value of Account_Name is 65537 bytes long",
        "at most 65536 bytes");
    // multi-byte characters count as their UTF-8 bytes
    String wide = "é".repeat(AttributeValues.MAX_BYTES / 2 + 1);
    refused(
        Error.Code.BAD_VALUE,
        () -> d.submit(ALICE, attr(AttributeNames.VARIABLE_LIST, "X=" + wide)),
        "the value of Variable_List is");
    d.submit(ALICE, attr(AttributeNames.ACCOUNT_NAME, "x".repeat(AttributeValues.MAX_BYTES)));
  }

  @Test
  void aJobWhoseAttributesTogetherPass256KiBIsRefused() {
    Attribute[] variables = new Attribute[5];
    for (int i = 0; i < variables.length; i++) {
      variables[i] = attr(AttributeNames.VARIABLE_LIST, "V" + i + "=" + "y".repeat(60_000));
    }
    int events = d.journal.size();
    refused(
        Error.Code.BAD_VALUE,
        () -> d.submit(ALICE, variables),
        "the job's attributes take",
        "at most 262144 bytes");
    assertEquals(events, d.journal.size());
  }

  private void submitScript(int bytes) {
    var request = Driver.submitRequest(List.of(attr(AttributeNames.WORK_DIR, "/home/alice")));
    request
        .getSubmitBuilder()
        .setScript(ByteString.copyFromUtf8("#" + "x".repeat(bytes - 2) + "\n"));
    d.client(ALICE, request);
  }

  @Test
  void aScriptOverJobscriptMaxSizeIsRefused() {
    submitScript(512 * 1024);
    int events = d.journal.size();
    refused(
        Error.Code.BAD_VALUE,
        () -> submitScript(512 * 1024 + 1),
        "jobscript max size exceeded: the script is 524289 bytes",
        "jobscript_max_size is 512kb");
    assertEquals(events, d.journal.size());
    d.setServer(ROOT, attr("jobscript_max_size", "1mb"));
    submitScript(512 * 1024 + 1);
    d.setServer(ROOT, attr("jobscript_max_size", "1kb"));
    refused(
        Error.Code.BAD_VALUE, () -> submitScript(1025), "jobscript_max_size is 1kb (1024 bytes)");
    refused(
        Error.Code.BAD_VALUE,
        () -> d.setServer(ROOT, attr("jobscript_max_size", "lots")),
        "illegal value for jobscript_max_size");
    refused(
        Error.Code.BAD_VALUE,
        () -> d.setServer(ROOT, attr("jobscript_max_size", "1025kb")),
        "jobscript_max_size may be at most 1mb");
  }

  @Test
  void qmgrValuesFollowTheSameRules() {
    refused(
        Error.Code.BAD_VALUE,
        () -> d.setServer(ROOT, attr("comment", "all fine\u001b[8m")),
        "illegal value for comment",
        "\\x1b");
    refused(
        Error.Code.BAD_VALUE,
        () ->
            d.qmgr(
                ROOT,
                Manage.Command.SET,
                Manage.ObjectType.NODE,
                List.of("n1"),
                attr("note", "disk\nstate = free")),
        "illegal value for note");
    refused(
        Error.Code.BAD_VALUE,
        () ->
            d.qmgr(
                ROOT,
                Manage.Command.SET,
                Manage.ObjectType.QUEUE,
                List.of("batch"),
                attr("acl_users", "alice,\u0000root")),
        "illegal value for acl_users");
    d.setServer(ROOT, attr("comment", "rack 4, row 2"));
    assertTrue(d.state.serverAttribute("comment").isPresent());
  }

  @Test
  void qmgrValuesAndNamesRefuseFormattingCharacters() {
    refused(
        Error.Code.BAD_VALUE,
        () -> d.setServer(ROOT, attr("comment", "all \u2066fine")),
        "illegal value for comment");
    refused(
        Error.Code.BAD_VALUE,
        () -> d.setServer(ROOT, attr("managers", "root@head,\u200eeve@*")),
        "illegal value for managers",
        "holds U+200E, an invisible formatting character, at position 11");
    refused(
        Error.Code.BAD_VALUE,
        () ->
            d.qmgr(
                ROOT,
                Manage.Command.SET,
                Manage.ObjectType.NODE,
                List.of("n1"),
                attr("note", "disk \u200bfull")),
        "illegal value for note",
        "U+200B");
    refused(
        Error.Code.BAD_VALUE,
        () ->
            d.qmgr(
                ROOT,
                Manage.Command.SET,
                Manage.ObjectType.QUEUE,
                List.of("batch"),
                attr("acl_users", "alice,b\u061cob")),
        "illegal value for acl_users",
        "U+061C");
    for (Manage.ObjectType type : List.of(Manage.ObjectType.QUEUE, Manage.ObjectType.NODE)) {
      refused(
          Error.Code.BAD_VALUE,
          () -> d.qmgr(ROOT, Manage.Command.CREATE, type, List.of("gpu\ufeff")),
          "illegal " + type.name().toLowerCase(java.util.Locale.ROOT) + " name 'gpu\\ufeff'");
    }
  }
}

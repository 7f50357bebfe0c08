package dev.berth.tools.qmgr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.berth.proto.Attribute;
import dev.berth.proto.Attribute.Op;
import dev.berth.proto.Manage.Command;
import dev.berth.proto.Manage.ObjectType;
import dev.berth.tools.qmgr.Directive.Target;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class QmgrParserTest {

  private static Directive.Operation operation(String text) throws QmgrSyntaxException {
    return assertInstanceOf(Directive.Operation.class, QmgrParser.parse(text));
  }

  private static QmgrSyntaxException error(String text) {
    return assertThrows(QmgrSyntaxException.class, () -> QmgrParser.parse(text));
  }

  private static Attribute attribute(String name, String resource, Op op, String value) {
    return Attribute.newBuilder()
        .setName(name)
        .setResource(resource)
        .setOp(op)
        .setValue(value)
        .build();
  }

  private static Attribute set(String name, String value) {
    return attribute(name, "", Op.SET, value);
  }

  private static Target named(String... names) {
    return new Target.Named(List.of(names));
  }

  // --- commands and objects -------------------------------------------------------------------

  @ParameterizedTest
  @CsvSource({
    "c, CREATE",
    "cr, CREATE",
    "create, CREATE",
    "CREATE, CREATE",
    "d, DELETE",
    "del, DELETE",
    "delete, DELETE",
    "s, SET",
    "se, SET",
    "set, SET",
    "Set, SET",
    "u, UNSET",
    "uns, UNSET",
    "unset, UNSET",
    "l, LIST",
    "lis, LIST",
    "list, LIST",
    "p, PRINT",
    "pri, PRINT",
    "print, PRINT"
  })
  void everyPrefixOfACommandSelectsIt(String word, Command command) throws Exception {
    String attributes =
        switch (command) {
          case SET, CREATE -> " max_running = 1";
          case UNSET -> " max_running";
          default -> "";
        };
    Directive.Operation operation = operation(word + " queue batch" + attributes);
    assertEquals(command, operation.command());
    assertEquals(ObjectType.QUEUE, operation.type());
    assertEquals(named("batch"), operation.target());
  }

  @ParameterizedTest
  @CsvSource({
    "s, SERVER",
    "se, SERVER",
    "server, SERVER",
    "SERVER, SERVER",
    "q, QUEUE",
    "qu, QUEUE",
    "queue, QUEUE",
    "n, NODE",
    "no, NODE",
    "node, NODE"
  })
  void everyPrefixOfAnObjectSelectsIt(String word, ObjectType type) throws Exception {
    assertEquals(type, operation("list " + word).type());
  }

  @Test
  void shortFormsTorqueAdminsType() throws Exception {
    assertEquals(
        new Directive.Operation(Command.LIST, ObjectType.SERVER, new Target.Unnamed(), List.of()),
        operation("l s"));
    assertEquals(
        new Directive.Operation(Command.PRINT, ObjectType.SERVER, new Target.Unnamed(), List.of()),
        operation("p s"));
    assertEquals(
        new Directive.Operation(Command.CREATE, ObjectType.QUEUE, named("fast"), List.of()),
        operation("c q fast"));
    assertEquals(
        new Directive.Operation(
            Command.SET,
            ObjectType.QUEUE,
            named("batch"),
            List.of(set("enabled", "True"), set("started", "True"))),
        operation("s q batch enabled=True,started=True"));
  }

  @Test
  void helpQuitAndExit() throws Exception {
    assertEquals(new Directive.Help(""), QmgrParser.parse("help"));
    assertEquals(new Directive.Help("set"), QmgrParser.parse("h  set "));
    assertEquals(new Directive.Quit(), QmgrParser.parse("quit"));
    assertEquals(new Directive.Quit(), QmgrParser.parse("q"));
    assertEquals(new Directive.Quit(), QmgrParser.parse("exit"));
    assertEquals(new Directive.Quit(), QmgrParser.parse("e"));
  }

  @Test
  void active() throws Exception {
    assertEquals(
        new Directive.Active(ObjectType.QUEUE, named("batch", "fast")),
        QmgrParser.parse("active queue batch,fast"));
    assertEquals(
        new Directive.Active(ObjectType.SERVER, new Target.Unnamed()), QmgrParser.parse("a s"));
    assertEquals(
        new Directive.Active(ObjectType.NODE, new Target.All()),
        QmgrParser.parse("active node @default"));
  }

  // --- names ----------------------------------------------------------------------------------

  @Test
  void namesAreACommaListWithoutBlanks() throws Exception {
    Directive.Operation operation = operation("set node n1,n2.example.com,node-3 state=offline");
    assertEquals(named("n1", "n2.example.com", "node-3"), operation.target());
    assertEquals(List.of(set("state", "offline")), operation.attributes());
  }

  @Test
  void serverPartsOfNamesAreStripped() throws Exception {
    assertEquals(named("batch", "fast"), operation("list queue batch@head,fast@default").target());
  }

  @Test
  void atServerAloneMeansEveryObject() throws Exception {
    assertEquals(new Target.All(), operation("list queue @default").target());
    assertEquals(new Target.All(), operation("set queue @head max_running=1").target());
  }

  @Test
  void aServerMayBeNamed() throws Exception {
    Directive.Operation operation = operation("set server head max_running = 5");
    assertEquals(named("head"), operation.target());
    assertEquals(List.of(set("max_running", "5")), operation.attributes());
  }

  @Test
  void aWordFollowedByAnOperatorIsTheFirstAttribute() throws Exception {
    Directive.Operation operation = operation("set queue max_running = 10");
    assertEquals(new Target.Unnamed(), operation.target());
    assertEquals(List.of(set("max_running", "10")), operation.attributes());
  }

  @Test
  void aKnownAttributeAloneIsAFilterForListAndPrint() throws Exception {
    Directive.Operation list = operation("list server scheduling");
    assertEquals(new Target.Unnamed(), list.target());
    assertEquals(List.of(set("scheduling", "")), list.attributes());
    assertEquals(
        List.of(set("managers", ""), set("operators", "")),
        operation("list server managers,operators").attributes());
    assertEquals(
        List.of(attribute("resources_max", "walltime", Op.SET, "")),
        operation("print server resources_max.walltime").attributes());
    assertEquals(new Target.Unnamed(), operation("list node np").target());
    assertEquals(
        List.of(set("backfill_depth", "")),
        operation("list server backfill_depth").attributes(),
        "the scheduler's attributes are known words too");
    assertEquals(
        List.of(attribute("fairshare_user", "alice", Op.SET, "")),
        operation("print server fairshare_user.alice").attributes());
  }

  @Test
  void anUnknownWordAloneIsANameForListAndPrint() throws Exception {
    assertEquals(named("batch"), operation("list queue batch").target());
    assertEquals(named("n1.example.com"), operation("print node n1.example.com").target());
    assertEquals(named("head"), operation("list server head").target());
  }

  @Test
  void namesThenAttributeFilter() throws Exception {
    Directive.Operation operation = operation("list queue batch,fast max_running, resources_max");
    assertEquals(named("batch", "fast"), operation.target());
    assertEquals(List.of(set("max_running", ""), set("resources_max", "")), operation.attributes());
  }

  @Test
  void createAndDeleteAlwaysTakeTheWordAsAName() throws Exception {
    assertEquals(named("comment"), operation("create queue comment").target());
    assertEquals(named("fast", "slow"), operation("delete queue fast,slow").target());
  }

  // --- attributes -----------------------------------------------------------------------------

  @Test
  void createWithAttributes() throws Exception {
    Directive.Operation operation =
        operation("create queue fast queue_type=e,enabled=true,started=true");
    assertEquals(Command.CREATE, operation.command());
    assertEquals(named("fast"), operation.target());
    assertEquals(
        List.of(set("queue_type", "e"), set("enabled", "true"), set("started", "true")),
        operation.attributes());
  }

  @Test
  void operators() throws Exception {
    assertEquals(
        List.of(attribute("max_running", "", Op.INCR, "2")),
        operation("set queue fast max_running += 2").attributes());
    assertEquals(
        List.of(attribute("max_running", "", Op.DECR, "1")),
        operation("set queue fast max_running-=1").attributes());
    assertEquals(
        List.of(set("max_running", "3")), operation("set queue fast max_running=3").attributes());
  }

  @Test
  void resourceSplitsAtTheFirstDot() throws Exception {
    assertEquals(
        List.of(attribute("resources_max", "walltime", Op.SET, "24:00:00")),
        operation("set server resources_max.walltime = 24:00:00").attributes());
    assertEquals(
        List.of(attribute("resources_available", "vendor.gpu", Op.SET, "2")),
        operation("set server resources_available.vendor.gpu=2").attributes());
  }

  @Test
  void anUnquotedValueMayHoldEqualsSignsAndColons() throws Exception {
    assertEquals(
        List.of(attribute("resources_default", "nodes", Op.SET, "1:ppn=2")),
        operation("set queue batch resources_default.nodes = 1:ppn=2").attributes());
  }

  @Test
  void quotedValuesKeepBlanksAndCommasAndLoseTheirQuotes() throws Exception {
    assertEquals(
        List.of(set("comment", "head node, rack 4"), set("default_queue", "batch")),
        operation("set server comment = \"head node, rack 4\", default_queue = batch")
            .attributes());
    assertEquals(
        List.of(set("note", "say \"hi\"")),
        operation("set node n1 note='say \"hi\"'").attributes());
    assertEquals(List.of(set("comment", "")), operation("set server comment=\"\"").attributes());
    assertEquals(
        List.of(attribute("managers", "", Op.INCR, "a@h,b@h")),
        operation("set server managers += \"a@h,b@h\"").attributes());
  }

  @Test
  void caseOfNamesAndValuesIsKept() throws Exception {
    Directive.Operation operation = operation("SET QUEUE Batch Priority=10,queue_type=Execution");
    assertEquals(named("Batch"), operation.target());
    assertEquals(
        List.of(set("Priority", "10"), set("queue_type", "Execution")), operation.attributes());
  }

  @Test
  void blanksAroundEveryPartAreOptional() throws Exception {
    assertEquals(
        operation("set queue batch a=1,b+=2,c-=3").attributes(),
        operation("set\tqueue   batch  a =\t1 ,  b += 2,c -=3  ").attributes());
  }

  @Test
  void unsetTakesAttributeNames() throws Exception {
    Directive.Operation operation = operation("unset server managers");
    assertEquals(Command.UNSET, operation.command());
    assertEquals(new Target.Unnamed(), operation.target());
    assertEquals(List.of(attribute("managers", "", Op.UNSET, "")), operation.attributes());

    Directive.Operation several =
        operation("unset queue batch max_running, resources_max.walltime");
    assertEquals(named("batch"), several.target());
    assertEquals(
        List.of(
            attribute("max_running", "", Op.UNSET, ""),
            attribute("resources_max", "walltime", Op.UNSET, "")),
        several.attributes());
    assertEquals(
        several.attributes(),
        operation("unset queue batch max_running,resources_max.walltime").attributes());
  }

  @Test
  void unsetOfAnUnknownAttributeAloneStillUnsetsIt() throws Exception {
    Directive.Operation operation = operation("unset server site_flag");
    assertEquals(new Target.Unnamed(), operation.target());
    assertEquals(List.of(attribute("site_flag", "", Op.UNSET, "")), operation.attributes());
  }

  // --- errors ---------------------------------------------------------------------------------

  private static void assertError(String text, String message, int position) {
    QmgrSyntaxException e = error(text);
    assertEquals(message, e.getMessage());
    assertEquals(position, e.position(), "position in: " + text);
  }

  @Test
  void unknownCommand() {
    assertError("frob server", "Illegal operation: frob (try 'help')", 0);
    assertError("  settle server", "Illegal operation: settle (try 'help')", 2);
    assertError("= 1", "Illegal operation: expected a command, found '=' (try 'help')", 0);
  }

  @Test
  void missingOrUnknownObject() {
    assertError("set", "No object type given; expected server, queue or node", 3);
    assertError("set widget x=1", "Illegal object type: widget; expected server, queue or node", 4);
  }

  @Test
  void createAndDeleteOfTheServer() {
    assertError(
        "create server x", "create applies to queues and nodes; the server always exists", 0);
    assertError("d s", "delete applies to queues and nodes; the server always exists", 0);
  }

  @Test
  void setWithoutAttributes() {
    assertError("set server", "Syntax error - set needs at least one 'attribute OP value'", 10);
    assertError(
        "set queue batch", "Syntax error - set needs at least one 'attribute OP value'", 15);
    assertError("unset queue batch", "Syntax error - unset needs at least one attribute name", 17);
  }

  @Test
  void missingOperator() {
    assertError(
        "set server scheduling", "Syntax error - expected =, += or -= after 'scheduling'", 21);
    assertError(
        "set server scheduling true", "Syntax error - expected =, += or -= after 'scheduling'", 22);
    assertError(
        "create queue fast queue_type",
        "Syntax error - expected =, += or -= after 'queue_type'",
        28);
  }

  @Test
  void missingValue() {
    assertError(
        "set server scheduling =", "Syntax error - expected a value after 'scheduling ='", 23);
    assertError(
        "set server resources_max.mem += , a=1",
        "Syntax error - expected a value after 'resources_max.mem +='",
        32);
  }

  @Test
  void unquotedBlankInValue() {
    assertError(
        "set server comment = hello world",
        "Syntax error - unexpected 'world' after the value of comment; separate attributes with"
            + " ',' and quote values that contain blanks",
        27);
  }

  @Test
  void unterminatedQuote() {
    assertError(
        "set server comment = \"hello, world",
        "Syntax error - the quoted value has no closing \"",
        21);
  }

  @Test
  void badAttributeLists() {
    assertError("set server a=1,", "Syntax error - expected another attribute after ','", 15);
    assertError("set server a=1,,b=2", "Syntax error - expected an attribute name, found ','", 15);
    assertError(
        "set server .walltime=1", "Syntax error - expected an attribute name, found '.'", 11);
    assertError(
        "set server resources_max.=1",
        "Syntax error - expected a resource name after 'resources_max.'",
        25);
    assertError(
        "set server \"comment\" = x", "Syntax error - attribute names cannot be quoted", 11);
    assertError("set server a=\"x\" b=2", "Syntax error - expected ',' before 'b'", 17);
    assertError(
        "unset server managers operators", "Syntax error - expected ',' before 'operators'", 22);
  }

  @Test
  void operatorsWhereOnlyNamesAreAllowed() {
    assertError(
        "unset server managers = x",
        "Syntax error - unset takes attribute names only, no operator or value",
        22);
    assertError(
        "list server scheduling=True",
        "Syntax error - list takes attribute names only, no operator or value",
        22);
    assertError(
        "delete queue fast max_running",
        "Syntax error - delete takes names only, no attributes",
        18);
    assertError(
        "active queue batch max_running",
        "Syntax error - active takes names only, no attributes",
        19);
  }

  @Test
  void badNameLists() {
    assertError("list queue a,,b", "Syntax error - empty name in the list 'a,,b'", 13);
    assertError("list queue a,", "Syntax error - empty name in the list 'a,'", 13);
    assertError("list queue batch@", "Syntax error - a server name must follow '@'", 17);
    assertError("list queue a@b@c", "Syntax error - more than one '@' in 'a@b@c'", 14);
  }

  @Test
  void reportShowsTheDirectiveAndACaretUnderTheError() {
    QmgrSyntaxException e = error("set server scheduling true");
    assertEquals(
        "qmgr: Syntax error - expected =, += or -= after 'scheduling'\n"
            + "set server scheduling true\n"
            + "                      ^\n",
        e.report("set server scheduling true"));
  }

  @Test
  void caretFollowsTabs() {
    QmgrSyntaxException e = error("set\tserver\tscheduling");
    assertEquals(
        "qmgr: Syntax error - expected =, += or -= after 'scheduling'\n"
            + "set\tserver\tscheduling\n"
            + "   \t      \t          ^\n",
        e.report("set\tserver\tscheduling"));
  }
}

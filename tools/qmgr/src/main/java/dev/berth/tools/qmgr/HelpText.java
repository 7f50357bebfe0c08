package dev.berth.tools.qmgr;

import java.util.Locale;
import java.util.Map;

/** What {@code help} and {@code help <topic>} print. */
final class HelpText {
  private static final String GENERAL =
      """
      General syntax: command object [name[,name...]] [attribute[.resource] OP value[, ...]]
      Commands: active, create, delete, set, unset, list, print, help, quit (or exit).
        Any prefix will do: s = set, u = unset, l = list, p = print, c = create, d = delete.
      Objects: server, queue, node (s, q, n).
      Other topics: names, operators, values.  Type 'help <topic>', e.g. 'help set'.
      """;

  private static final Map<String, String> TOPICS =
      Map.of(
          "active",
          """
          Syntax: active object [name[,name...]]
          Makes the names the default for later directives on queues or nodes that name
          none; without names, shows the active objects.
          Example: active queue batch,fast  then  set queue max_running = 10
          """,
          "create",
          """
          Syntax: create queue|node name[,name...] [attribute = value, ...]
          Example: create queue fast queue_type=e,enabled=true,started=true
          """,
          "delete",
          """
          Syntax: delete queue|node name[,name...]
          Example: delete queue fast
          """,
          "set",
          """
          Syntax: set object [name[,name...]] attribute[.resource] OP value[, ...]
          Examples: set server scheduling = True
                    set server managers += alice@head
                    set queue fast max_running += 2
                    set queue fast resources_max.walltime = 24:00:00
                    set node n1 state = offline
          """,
          "unset",
          """
          Syntax: unset object [name[,name...]] attribute[.resource][, ...]
          Example: unset queue fast max_running
          """,
          "list",
          """
          Syntax: list object [name[,name...]] [attribute[, ...]]
          Shows the attributes of the objects (all queues or nodes when none are named).
          Examples: list server    list queue batch    list node n1,n2    list server managers
          """,
          "print",
          """
          Syntax: print object [name[,name...]]
          Writes qmgr directives that recreate the objects; 'print server' includes the queues.
          Example: qmgr -c 'print server' > config.qmgr; later qmgr < config.qmgr
          """,
          "names",
          """
          Syntax: name | name@server | @server
          @server (e.g. @default) means every object of the type.  Berth has one server, so
          server names are accepted and ignored.
          """,
          "operators",
          """
          =   sets the value
          +=  adds to a number, or adds items to a list (managers, acl_users, properties ...)
          -=  subtracts from a number, or removes items from a list
          """,
          "values",
          """
          A value runs to the next blank or comma.  Quote it with " or ' when it contains
          blanks, commas, # or ;   Example: set server comment = "head node, rack 4"
          """);

  private HelpText() {}

  static String of(String topic) {
    if (topic.isBlank()) {
      return GENERAL;
    }
    String lower = topic.strip().toLowerCase(Locale.ROOT);
    if (lower.equals("quit") || lower.equals("exit")) {
      return "Syntax: quit (or exit)\nEnds qmgr.\n";
    }
    for (Map.Entry<String, String> entry : TOPICS.entrySet()) {
      if (entry.getKey().startsWith(lower)) {
        return entry.getValue();
      }
    }
    return "No help available on: " + topic.strip() + "\n" + GENERAL;
  }
}

package dev.berth.tools.qmgr;

import dev.berth.proto.Attribute;
import dev.berth.proto.Manage;
import dev.berth.proto.Manage.ObjectType;
import dev.berth.tools.qmgr.Directive.Target;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Reads one qmgr directive, Torque's grammar:
 *
 * <pre>
 * command object [name[,name...]] [attr[.resource] OP value[, attr[.resource] OP value...]]
 * </pre>
 *
 * <p>Commands ({@code active create delete set unset list print help quit exit}) and objects
 * ({@code server queue node}) may be shortened to any prefix ({@code s q}, {@code p s}); no two
 * share a first letter. A name is {@code name}, {@code name@server} or {@code @server} (all objects
 * at the server). OP is {@code =}, {@code +=} or {@code -=}; a value runs to the next blank or
 * comma unless it is quoted with {@code "} or {@code '}, which are removed. Attribute and resource
 * names split at the first dot. Case is kept everywhere except in the command and object words.
 *
 * <p>Whether the word after the object is a name or the first attribute is decided as Torque does
 * it, by what follows and by the attribute names qmgr knows ({@link AttributeCatalog}): {@code set
 * queue batch max_running=2} names {@code batch}; {@code set queue max_running=2} and {@code list
 * server scheduling} name nothing.
 */
final class QmgrParser {
  private static final List<String> COMMANDS =
      List.of(
          "active", "create", "delete", "set", "unset", "list", "print", "help", "quit", "exit");
  private static final List<String> OBJECTS = List.of("server", "queue", "node");

  /** What may follow the names. */
  private enum Mode {
    VALUES,
    NAMES_ONLY,
    NONE
  }

  private final String text;
  private int pos;

  private QmgrParser(String text) {
    this.text = text;
  }

  static Directive parse(String directive) throws QmgrSyntaxException {
    return new QmgrParser(directive).directive();
  }

  private Directive directive() throws QmgrSyntaxException {
    skipBlanks();
    int commandAt = pos;
    String word = word();
    if (word.isEmpty()) {
      String found = atEnd() ? "nothing" : "'" + text.charAt(pos) + "'";
      throw new QmgrSyntaxException(
          "Illegal operation: expected a command, found " + found + " (try 'help')", commandAt);
    }
    String command = match(COMMANDS, word);
    if (command == null) {
      throw new QmgrSyntaxException("Illegal operation: " + word + " (try 'help')", commandAt);
    }
    switch (command) {
      case "help":
        return new Directive.Help(text.substring(pos).strip());
      case "quit":
      case "exit":
        return new Directive.Quit();
      default:
        break;
    }
    ObjectType type = objectType();
    if ((command.equals("create") || command.equals("delete")) && type == ObjectType.SERVER) {
      throw new QmgrSyntaxException(
          command + " applies to queues and nodes; the server always exists", commandAt);
    }
    Target target = target(command, type);
    List<Attribute> attributes = attributes(command);
    if (attributes.isEmpty() && command.equals("set")) {
      throw new QmgrSyntaxException(
          "Syntax error - set needs at least one 'attribute OP value'", pos);
    }
    if (attributes.isEmpty() && command.equals("unset")) {
      throw new QmgrSyntaxException("Syntax error - unset needs at least one attribute name", pos);
    }
    if (command.equals("active")) {
      return new Directive.Active(type, target);
    }
    return new Directive.Operation(manageCommand(command), type, target, attributes);
  }

  private ObjectType objectType() throws QmgrSyntaxException {
    skipBlanks();
    int at = pos;
    String word = word();
    if (word.isEmpty()) {
      throw new QmgrSyntaxException("No object type given; expected server, queue or node", at);
    }
    String object = match(OBJECTS, word);
    if (object == null) {
      throw new QmgrSyntaxException(
          "Illegal object type: " + word + "; expected server, queue or node", at);
    }
    return ObjectType.valueOf(object.toUpperCase(Locale.ROOT));
  }

  /** The names, if the next word is names rather than the first attribute. */
  private Target target(String command, ObjectType type) throws QmgrSyntaxException {
    skipBlanks();
    int start = pos;
    String word = word();
    if (word.isEmpty()) {
      return new Target.Unnamed();
    }
    int end = pos;
    skipBlanks();
    if (!isName(command, type, word)) {
      pos = start;
      return new Target.Unnamed();
    }
    pos = end;
    return names(word, start);
  }

  private boolean isName(String command, ObjectType type, String word) {
    if (word.indexOf('@') >= 0) {
      return true;
    }
    if (isOperator(pos)) {
      return false;
    }
    if (command.equals("create") || command.equals("delete") || command.equals("active")) {
      return true;
    }
    String first = word.split("[.,]", 2)[0];
    if (AttributeCatalog.isKnown(type, first)) {
      return false;
    }
    if (atEnd()) {
      // A lone unknown word names objects, except after "unset server": Berth has one server, and
      // unset needs an attribute, so it is one (an attribute qmgr does not know, like a site one).
      return !(command.equals("unset") && type == ObjectType.SERVER);
    }
    return text.charAt(pos) != ',';
  }

  private Target names(String word, int start) throws QmgrSyntaxException {
    List<String> names = new ArrayList<>();
    boolean all = false;
    int offset = 0;
    for (String item : word.split(",", -1)) {
      int itemAt = start + offset;
      offset += item.length() + 1;
      if (item.isEmpty()) {
        throw new QmgrSyntaxException(
            "Syntax error - empty name in the list '" + word + "'", itemAt);
      }
      int quote = firstQuote(item);
      if (quote >= 0) {
        throw new QmgrSyntaxException(
            "Syntax error - object names cannot be quoted", itemAt + quote);
      }
      int at = item.indexOf('@');
      String name = at < 0 ? item : item.substring(0, at);
      if (at >= 0) {
        String server = item.substring(at + 1);
        if (server.isEmpty()) {
          throw new QmgrSyntaxException(
              "Syntax error - a server name must follow '@'", itemAt + at + 1);
        }
        if (server.indexOf('@') >= 0) {
          throw new QmgrSyntaxException(
              "Syntax error - more than one '@' in '" + item + "'",
              itemAt + at + 1 + server.indexOf('@'));
        }
      }
      if (name.isEmpty()) {
        all = true;
      } else {
        names.add(name);
      }
    }
    return all ? new Target.All() : new Target.Named(names);
  }

  private List<Attribute> attributes(String command) throws QmgrSyntaxException {
    Mode mode =
        switch (command) {
          case "set", "create" -> Mode.VALUES;
          case "unset", "list", "print" -> Mode.NAMES_ONLY;
          default -> Mode.NONE;
        };
    List<Attribute> attributes = new ArrayList<>();
    skipBlanks();
    if (atEnd()) {
      return attributes;
    }
    if (mode == Mode.NONE) {
      throw new QmgrSyntaxException(
          "Syntax error - " + command + " takes names only, no attributes", pos);
    }
    while (true) {
      boolean quoted = attribute(command, mode, attributes);
      skipBlanks();
      if (atEnd()) {
        return attributes;
      }
      if (text.charAt(pos) == ',') {
        pos++;
        skipBlanks();
        if (atEnd()) {
          throw new QmgrSyntaxException("Syntax error - expected another attribute after ','", pos);
        }
        continue;
      }
      throw unexpected(mode, quoted, attributes.get(attributes.size() - 1));
    }
  }

  /** Reads {@code attr[.resource] [OP value]}; returns whether its value was quoted. */
  private boolean attribute(String command, Mode mode, List<Attribute> into)
      throws QmgrSyntaxException {
    int nameAt = pos;
    while (!atEnd() && !isBlank(pos) && !isOperator(pos) && ".,".indexOf(text.charAt(pos)) < 0) {
      pos++;
    }
    String name = text.substring(nameAt, pos);
    if (name.isEmpty()) {
      throw new QmgrSyntaxException(
          "Syntax error - expected an attribute name, found '" + text.charAt(pos) + "'", nameAt);
    }
    if (firstQuote(name) >= 0) {
      throw new QmgrSyntaxException(
          "Syntax error - attribute names cannot be quoted", nameAt + firstQuote(name));
    }
    String resource = "";
    if (!atEnd() && text.charAt(pos) == '.') {
      int resourceAt = ++pos;
      while (!atEnd() && !isBlank(pos) && !isOperator(pos) && text.charAt(pos) != ',') {
        pos++;
      }
      resource = text.substring(resourceAt, pos);
      if (resource.isEmpty()) {
        throw new QmgrSyntaxException(
            "Syntax error - expected a resource name after '" + name + ".'", resourceAt);
      }
    }
    String shown = resource.isEmpty() ? name : name + "." + resource;
    Attribute.Builder attribute = Attribute.newBuilder().setName(name).setResource(resource);
    skipBlanks();
    boolean quoted = false;
    if (isOperator(pos)) {
      if (mode != Mode.VALUES) {
        throw new QmgrSyntaxException(
            "Syntax error - " + command + " takes attribute names only, no operator or value", pos);
      }
      quoted = operatorAndValue(shown, attribute);
    } else if (mode == Mode.VALUES) {
      throw new QmgrSyntaxException(
          "Syntax error - expected =, += or -= after '" + shown + "'", pos);
    } else {
      attribute.setOp(command.equals("unset") ? Attribute.Op.UNSET : Attribute.Op.SET);
    }
    into.add(attribute.build());
    return quoted;
  }

  private boolean operatorAndValue(String shown, Attribute.Builder attribute)
      throws QmgrSyntaxException {
    char first = text.charAt(pos);
    String operator = first == '=' ? "=" : first + "=";
    attribute.setOp(
        switch (first) {
          case '+' -> Attribute.Op.INCR;
          case '-' -> Attribute.Op.DECR;
          default -> Attribute.Op.SET;
        });
    pos += operator.length();
    skipBlanks();
    if (atEnd() || text.charAt(pos) == ',') {
      throw new QmgrSyntaxException(
          "Syntax error - expected a value after '" + shown + " " + operator + "'", pos);
    }
    char quote = text.charAt(pos);
    if (quote == '"' || quote == '\'') {
      int close = text.indexOf(quote, pos + 1);
      if (close < 0) {
        throw new QmgrSyntaxException(
            "Syntax error - the quoted value has no closing " + quote, pos);
      }
      attribute.setValue(text.substring(pos + 1, close));
      pos = close + 1;
      return true;
    }
    int valueAt = pos;
    while (!atEnd() && !isBlank(pos) && text.charAt(pos) != ',') {
      pos++;
    }
    attribute.setValue(text.substring(valueAt, pos));
    return false;
  }

  private QmgrSyntaxException unexpected(Mode mode, boolean quoted, Attribute last) {
    int at = pos;
    String found = word();
    if (found.isEmpty()) {
      found = String.valueOf(text.charAt(at));
    }
    String shown =
        last.getResource().isEmpty() ? last.getName() : last.getName() + "." + last.getResource();
    if (mode == Mode.VALUES && !quoted) {
      return new QmgrSyntaxException(
          "Syntax error - unexpected '"
              + found
              + "' after the value of "
              + shown
              + "; separate attributes with ',' and quote values that contain blanks",
          at);
    }
    return new QmgrSyntaxException("Syntax error - expected ',' before '" + found + "'", at);
  }

  /** A word: up to a blank, an operator or the end. */
  private String word() {
    int start = pos;
    while (!atEnd() && !isBlank(pos) && !isOperator(pos)) {
      pos++;
    }
    return text.substring(start, pos);
  }

  private static String match(List<String> words, String abbreviation) {
    String lower = abbreviation.toLowerCase(Locale.ROOT);
    for (String word : words) {
      if (word.startsWith(lower)) {
        return word;
      }
    }
    return null;
  }

  private static Manage.Command manageCommand(String command) {
    return Manage.Command.valueOf(command.toUpperCase(Locale.ROOT));
  }

  private static int firstQuote(String s) {
    for (int i = 0; i < s.length(); i++) {
      if (s.charAt(i) == '"' || s.charAt(i) == '\'') {
        return i;
      }
    }
    return -1;
  }

  private boolean isOperator(int at) {
    if (at >= text.length()) {
      return false;
    }
    char c = text.charAt(at);
    return c == '='
        || ((c == '+' || c == '-') && at + 1 < text.length() && text.charAt(at + 1) == '=');
  }

  private boolean isBlank(int at) {
    return Character.isWhitespace(text.charAt(at));
  }

  private void skipBlanks() {
    while (!atEnd() && isBlank(pos)) {
      pos++;
    }
  }

  private boolean atEnd() {
    return pos >= text.length();
  }
}

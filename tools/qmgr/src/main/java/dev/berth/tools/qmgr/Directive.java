package dev.berth.tools.qmgr;

import dev.berth.proto.Attribute;
import dev.berth.proto.Manage;
import dev.berth.proto.Manage.ObjectType;
import java.util.List;

/** One parsed qmgr directive. */
sealed interface Directive {

  /** {@code create|delete|set|unset|list|print object [names] [attributes]}: one Manage request. */
  record Operation(
      Manage.Command command, ObjectType type, Target target, List<Attribute> attributes)
      implements Directive {
    public Operation {
      attributes = List.copyOf(attributes);
    }
  }

  /** {@code active object [names]}: names used by later directives that name no object. */
  record Active(ObjectType type, Target target) implements Directive {}

  /** {@code help [topic]}. */
  record Help(String topic) implements Directive {}

  /** {@code quit}, {@code exit}. */
  record Quit() implements Directive {}

  /** Which objects a directive names. */
  sealed interface Target {
    /** No names: the active objects (or, for list and print, all of them). */
    record Unnamed() implements Target {}

    /** {@code @server}: every object of the type at the server. */
    record All() implements Target {}

    /** {@code a,b@server}: these names, servers stripped. */
    record Named(List<String> names) implements Target {
      public Named {
        names = List.copyOf(names);
      }
    }
  }
}

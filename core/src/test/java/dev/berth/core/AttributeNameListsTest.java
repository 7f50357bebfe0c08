package dev.berth.core;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.berth.core.pbs.AttributeDef;
import dev.berth.core.pbs.AttributeTable;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The classes of names the code reads attributes by hold exactly their table's names, in its order:
 * a name added to a table has its constant, and no constant names what the table does not have.
 */
class AttributeNameListsTest {
  @Test
  void theServersNamesAreItsTables() throws IllegalAccessException {
    assertEquals(names(AttributeTable.SERVER), constants(ServerAttributeNames.class));
  }

  @Test
  void aQueuesNamesAreItsTables() throws IllegalAccessException {
    assertEquals(names(AttributeTable.QUEUE), constants(QueueAttributeNames.class));
  }

  @Test
  void aNodesNamesAreItsTables() throws IllegalAccessException {
    assertEquals(names(AttributeTable.NODE), constants(NodeAttributeNames.class));
  }

  private static List<String> names(AttributeTable table) {
    return table.definitions().stream().map(AttributeDef::name).toList();
  }

  /** The values of the class's public string constants, in the order they are declared. */
  private static List<String> constants(Class<?> names) throws IllegalAccessException {
    List<String> values = new ArrayList<>();
    for (Field f : names.getDeclaredFields()) {
      if (Modifier.isPublic(f.getModifiers()) && f.getType() == String.class) {
        values.add((String) f.get(null));
      }
    }
    return values;
  }
}

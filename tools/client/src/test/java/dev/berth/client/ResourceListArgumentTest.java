package dev.berth.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ResourceListArgumentTest {
  @Test
  void requestsInOrderWithBlanksAndEmptyItemsDropped() throws Exception {
    assertEquals(
        List.of(Map.entry("nodes", "2:ppn=8+n1"), Map.entry("walltime", "1:00:00")),
        ResourceListArgument.parse(" nodes = 2:ppn=8+n1,,walltime=1:00:00,"));
  }

  @Test
  void theReasonNamesTheItem() {
    assertEquals("wd: resource request must be name=value", reason("nodes=1,wd"));
    assertEquals("mem=: resource mem has no value", reason("mem="));
    assertEquals("needs name=value resource requests", reason(" , "));
  }

  private static String reason(String value) {
    return assertThrows(BadArgumentException.class, () -> ResourceListArgument.parse(value))
        .getMessage();
  }
}

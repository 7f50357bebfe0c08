package dev.berth.tools.format;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class XmlTest {
  @Test
  void escapesTheFiveCharactersMxmlEscapes() {
    assertEquals("a&lt;b&gt;c&amp;d&quot;e&apos;f", Xml.escape("a<b>c&d\"e'f"));
  }

  @Test
  void groupsConsecutiveResourcesIntoOneElement() {
    Xml xml = new Xml().open("Job");
    AttrDocuments.xml(
        xml,
        List.of(
            Attr.text("Job_Name", "x<y"),
            Attr.text("Resource_List", "nodes", "1"),
            Attr.text("Resource_List", "walltime", "01:00:00"),
            Attr.time("ctime", 5),
            Attr.number("Walltime", "Remaining", 10)));
    assertEquals(
        "<Job><Job_Name>x&lt;y</Job_Name><Resource_List><nodes>1</nodes>"
            + "<walltime>01:00:00</walltime></Resource_List><ctime>5</ctime>"
            + "<Walltime><Remaining>10</Remaining></Walltime></Job>",
        xml.close("Job").toString());
  }
}

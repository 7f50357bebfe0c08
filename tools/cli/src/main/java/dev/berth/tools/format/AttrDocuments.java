package dev.berth.tools.format;

import java.time.ZoneId;
import java.util.List;
import java.util.Map;

/**
 * Writes an attribute list into XML and JSON. Consecutive attributes with the same name and a
 * resource become one nested element or object ({@code Resource_List}, {@code resources_used}), as
 * Torque's {@code create_full_job_xml} and OpenPBS's JSON group them.
 */
public final class AttrDocuments {
  private AttrDocuments() {}

  /** The attributes as child elements of the currently open element. */
  public static void xml(Xml xml, List<Attr> attrs) {
    String group = null;
    for (Attr attr : attrs) {
      if (attr.resource() == null) {
        group = closeGroup(xml, group);
        xml.element(attr.name(), attr.value());
        continue;
      }
      if (!attr.name().equals(group)) {
        closeGroup(xml, group);
        group = attr.name();
        xml.open(group);
      }
      xml.element(attr.resource(), attr.value());
    }
    closeGroup(xml, group);
  }

  private static String closeGroup(Xml xml, String group) {
    if (group != null) {
      xml.close(group);
    }
    return null;
  }

  /** The attributes as members of the currently open JSON object. */
  public static void json(JsonWriter json, List<Attr> attrs, ZoneId zone) {
    String group = null;
    for (Attr attr : attrs) {
      String key = attr.name();
      if (attr.resource() != null) {
        if (!attr.name().equals(group)) {
          closeGroup(json, group);
          group = attr.name();
          json.beginObject(group);
        }
        key = attr.resource();
      } else {
        group = closeGroup(json, group);
      }
      member(json, key, attr, zone);
    }
    closeGroup(json, group);
  }

  private static String closeGroup(JsonWriter json, String group) {
    if (group != null) {
      json.endObject();
    }
    return null;
  }

  private static void member(JsonWriter json, String key, Attr attr, ZoneId zone) {
    switch (attr.kind()) {
      case NUMBER:
        json.field(key, Long.parseLong(attr.value()));
        break;
      case TIME:
        json.field(key, CTime.format(Long.parseLong(attr.value()), zone));
        break;
      case ENTRIES:
        json.beginObject(key);
        for (Map.Entry<String, String> entry : attr.entries()) {
          json.field(entry.getKey(), entry.getValue());
        }
        json.endObject();
        break;
      case LIST:
        json.beginArray(key);
        for (Map.Entry<String, String> entry : attr.entries()) {
          json.value(entry.getValue());
        }
        json.endArray();
        break;
      default:
        json.field(key, attr.value());
    }
  }
}

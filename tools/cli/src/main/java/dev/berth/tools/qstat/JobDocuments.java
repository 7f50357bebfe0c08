package dev.berth.tools.qstat;

import dev.berth.proto.Job;
import dev.berth.tools.format.AttrDocuments;
import dev.berth.tools.format.AttrText;
import dev.berth.tools.format.JsonWriter;
import dev.berth.tools.format.Xml;
import java.time.ZoneId;
import java.util.List;

/**
 * Jobs as {@code qstat -f} text, {@code -x} XML and {@code -F json}, all from {@link
 * JobAttributeList}.
 */
public final class JobDocuments {
  private JobDocuments() {}

  /** {@code Job Id: id}, the folded attributes and an empty line, per job. */
  public static String full(List<Job> jobs, long now, ZoneId zone, int linesize) {
    StringBuilder out = new StringBuilder();
    for (Job job : jobs) {
      out.append(
          AttrText.block("Job Id: " + job.getId(), JobAttributeList.of(job, now), zone, linesize));
    }
    return out.toString();
  }

  /**
   * Torque's {@code qstat -x}: an XML declaration line, then {@code <Data>} with a {@code <Job>}
   * per job on one line (times as epoch seconds, Resource_List and resources_used nested).
   */
  public static String xml(List<Job> jobs, long now) {
    Xml xml = new Xml().open("Data");
    for (Job job : jobs) {
      xml.open("Job").element("Job_Id", job.getId());
      AttrDocuments.xml(xml, JobAttributeList.of(job, now));
      xml.close("Job");
    }
    return "<?xml version=\"1.0\"?>\n" + xml.close("Data") + "\n";
  }

  /** OpenPBS's {@code -F json} layout: timestamp, pbs_version, pbs_server, then Jobs by id. */
  public static String json(List<Job> jobs, String server, String version, long now, ZoneId zone) {
    JsonWriter json = header(server, version, now).beginObject("Jobs");
    for (Job job : jobs) {
      json.beginObject(job.getId());
      AttrDocuments.json(json, JobAttributeList.of(job, now), zone);
      json.endObject();
    }
    return json.endObject().endObject().toString();
  }

  /** The opening of every {@code -F json} document, left open for its listing. */
  public static JsonWriter header(String server, String version, long now) {
    return new JsonWriter()
        .beginObject()
        .field("timestamp", now)
        .field("pbs_version", version)
        .field("pbs_server", server);
  }
}

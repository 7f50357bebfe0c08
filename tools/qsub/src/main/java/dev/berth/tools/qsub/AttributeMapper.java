package dev.berth.tools.qsub;

import static dev.berth.core.AttributeNames.ERROR_PATH;
import static dev.berth.core.AttributeNames.JOB_NAME;
import static dev.berth.core.AttributeNames.JOIN_PATH;
import static dev.berth.core.AttributeNames.OUTPUT_PATH;
import static dev.berth.core.AttributeNames.RESOURCE_LIST;
import static dev.berth.core.AttributeNames.SUBMIT_ARGS;
import static dev.berth.core.AttributeNames.SUBMIT_HOST;
import static dev.berth.core.AttributeNames.VARIABLE_LIST;

import dev.berth.proto.Attribute;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns merged options into the attributes sent to the server: {@link #forAlter} for qalter (the
 * options alone) and {@link #forSubmit} for qsub, which adds what Torque's qsub always sends.
 */
final class AttributeMapper {
  private AttributeMapper() {}

  /**
   * The options as attributes: plain ones first, then one {@code Resource_List} per resource. With
   * {@code -j oe} and {@code -o}, the error path is the output path (and the reverse for {@code
   * eo}), as Torque's qsub records it.
   */
  static List<Attribute> forAlter(JobOptions options) {
    Map<String, String> plain = new LinkedHashMap<>(options.attributes());
    joinPaths(plain);
    List<Attribute> attributes = new ArrayList<>();
    plain.forEach((name, value) -> attributes.add(attribute(name, "", value)));
    options
        .resources()
        .forEach((name, value) -> attributes.add(attribute(RESOURCE_LIST, name, value)));
    return attributes;
  }

  /**
   * Everything qsub sends: the options, a default {@code Job_Name} (the script's), {@code
   * submit_args}, {@code submit_host}, and one {@code Variable_List} attribute per variable with
   * value {@code NAME=value}, so values may contain commas.
   */
  static List<Attribute> forSubmit(
      JobOptions options, String defaultName, SubmitContext ctx, List<String> args) {
    List<Attribute> attributes = new ArrayList<>();
    if (!options.attributes().containsKey(JOB_NAME)) {
      attributes.add(attribute(JOB_NAME, "", defaultName));
    }
    attributes.addAll(forAlter(options));
    attributes.add(attribute(SUBMIT_ARGS, "", String.join(" ", args)));
    attributes.add(attribute(SUBMIT_HOST, "", ctx.host()));
    for (String variable : VariableList.build(options, ctx)) {
      attributes.add(attribute(VARIABLE_LIST, "", variable));
    }
    return attributes;
  }

  private static void joinPaths(Map<String, String> plain) {
    String join = plain.getOrDefault(JOIN_PATH, "n");
    if (join.equals("oe") && plain.containsKey(OUTPUT_PATH)) {
      plain.put(ERROR_PATH, plain.get(OUTPUT_PATH));
    } else if (join.equals("eo") && plain.containsKey(ERROR_PATH)) {
      plain.put(OUTPUT_PATH, plain.get(ERROR_PATH));
    }
  }

  private static Attribute attribute(String name, String resource, String value) {
    return Attribute.newBuilder().setName(name).setResource(resource).setValue(value).build();
  }
}

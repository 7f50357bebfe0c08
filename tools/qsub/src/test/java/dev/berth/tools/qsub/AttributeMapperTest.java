package dev.berth.tools.qsub;

import static dev.berth.tools.qsub.SubmitPlace.byName;
import static dev.berth.tools.qsub.SubmitPlace.options;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.berth.proto.Attribute;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Options to the Torque attributes the server decodes: names, resources and values. */
class AttributeMapperTest {
  private static final String H = SubmitPlace.HOST + ":";

  @Test
  void everySupportedOptionMapsToItsAttribute() throws Exception {
    JobOptions o =
        options(
            "-a",
            "202309220900",
            "-A",
            "acct",
            "-c",
            "s",
            "-d",
            "run",
            "-e",
            "err.txt",
            "-h",
            "-j",
            "n",
            "-k",
            "oe",
            "-l",
            "nodes=2:ppn=4,walltime=1:00:00",
            "-m",
            "abe",
            "-M",
            "a@b.c",
            "-n",
            "-N",
            "job",
            "-o",
            "/out",
            "-p",
            "10",
            "-q",
            "batch@srv",
            "-r",
            "n",
            "-S",
            "/bin/zsh",
            "-t",
            "1-10%2",
            "-w",
            "/data",
            "-W",
            "depend=afterok:12",
            "-W",
            "group_list=grp",
            "-W",
            "umask=027");
    Map<String, String> expected = new LinkedHashMap<>();
    expected.put(
        "Execution_Time", Long.toString(Instant.parse("2023-09-22T07:00:00Z").getEpochSecond()));
    expected.put("Account_Name", "acct");
    expected.put("Checkpoint", "s");
    expected.put("init_work_dir", "/home/alice/work/run");
    expected.put("Error_Path", H + "/home/alice/work/err.txt");
    expected.put("Hold_Types", "u");
    expected.put("Join_Path", "n");
    expected.put("Keep_Files", "oe");
    expected.put("Mail_Points", "abe");
    expected.put("Mail_Users", "a@b.c");
    expected.put("node_exclusive", "True");
    expected.put("Job_Name", "job");
    expected.put("Output_Path", H + "/out");
    expected.put("Priority", "10");
    expected.put("destination", "batch@srv");
    expected.put("Rerunable", "False");
    expected.put("Shell_Path_List", "/bin/zsh");
    expected.put("job_array_request", "1-10%2");
    expected.put("work_dir", "/data");
    expected.put("depend", "afterok:12");
    expected.put("group_list", "grp");
    expected.put("umask", "027");
    expected.put("Resource_List.nodes", "2:ppn=4");
    expected.put("Resource_List.walltime", "1:00:00");
    assertEquals(expected, byName(AttributeMapper.forAlter(o)));
  }

  @Test
  void resourcesTravelAsResourceListWithTheResourceName() throws Exception {
    List<Attribute> attributes = AttributeMapper.forAlter(options("-l", "mem=2gb"));
    assertEquals(
        List.of(
            Attribute.newBuilder()
                .setName("Resource_List")
                .setResource("mem")
                .setValue("2gb")
                .build()),
        attributes);
  }

  @Test
  void joinOeMakesTheErrorPathTheOutputPath() throws Exception {
    Map<String, String> m =
        byName(AttributeMapper.forAlter(options("-j", "oe", "-o", "x.out", "-e", "x.err")));
    assertEquals(H + "/home/alice/work/x.out", m.get("Output_Path"));
    assertEquals(H + "/home/alice/work/x.out", m.get("Error_Path"));
  }

  @Test
  void joinEoMakesTheOutputPathTheErrorPath() throws Exception {
    Map<String, String> m = byName(AttributeMapper.forAlter(options("-j", "eo", "-e", "x.err")));
    assertEquals(H + "/home/alice/work/x.err", m.get("Output_Path"));
  }

  @Test
  void submitAddsNameArgsHostAndVariables() throws Exception {
    List<Attribute> attributes =
        AttributeMapper.forSubmit(
            options("-q", "gpu"), "job.sh", SubmitPlace.CTX, List.of("-q", "gpu", "job.sh"));
    Map<String, String> m = byName(attributes);
    assertEquals(
        Map.of(
            "Job_Name", "job.sh",
            "destination", "gpu",
            "submit_args", "-q gpu job.sh",
            "submit_host", SubmitPlace.HOST),
        m);
    assertEquals("Job_Name", attributes.get(0).getName());
    assertEquals(8, SubmitPlace.variables(attributes).size());
  }

  @Test
  void anExplicitNameIsNotReplacedByTheDefault() throws Exception {
    List<Attribute> attributes =
        AttributeMapper.forSubmit(
            options("-N", "mine"), "STDIN", SubmitPlace.CTX, List.of("-N", "mine"));
    assertEquals("mine", byName(attributes).get("Job_Name"));
    assertEquals(1, attributes.stream().filter(a -> a.getName().equals("Job_Name")).count());
  }
}

package dev.berth.tools.qsub;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What qsub must make of each corpus script, submitted as {@code qsub FILE} from {@link
 * SubmitPlace#CWD} on {@link SubmitPlace#HOST}, written from the corpus INDEX (Torque 6.1.3
 * semantics).
 *
 * <p>A row lists, separated by {@code " | "}: attributes as {@code Name=value} ({@code l.x} is
 * {@code Resource_List.x}; {@code {H}} is {@code host:} and {@code {CWD}} the cwd), {@code -V} when
 * the whole environment goes into Variable_List, {@code var: NAME=value} for a variable that must
 * be there, {@code novar: NAME} for one that must not, and {@code warn: text} / {@code error: text}
 * for the start of each expected warning or error, in order. Values are what qsub sends: the server
 * parses walltimes, sizes and node specs. Every accepted script also gets {@code submit_args=FILE},
 * {@code submit_host}, and {@code Job_Name=FILE} unless it names itself; the attributes must match
 * exactly.
 */
final class CorpusExpectations {
  record Expected(
      Map<String, String> plain,
      List<String> variables,
      List<String> absentVariables,
      boolean exportsEnvironment,
      List<String> warnings,
      List<String> errors) {

    /** All non-variable attributes qsub must send for {@code file}. */
    Map<String, String> attributes(String file) {
      Map<String, String> all = new LinkedHashMap<>();
      all.put("Job_Name", file);
      all.putAll(plain);
      all.put("submit_args", file);
      all.put("submit_host", SubmitPlace.HOST);
      return all;
    }
  }

  private static final String CRLF =
      "error: script is written in DOS/Windows text format (CRLF line endings); convert it with"
          + " dos2unix";

  static final Map<String, Expected> ALL = parse(rows());

  private CorpusExpectations() {}

  private static Map<String, String> rows() {
    Map<String, String> t = new TreeMap<>();
    t.put(
        "01-gpu-minimal.pbs",
        "Job_Name=matrixmul | l.nodes=1:ppn=1:gpus=1 | l.walltime=00:10:00 | -V");
    t.put(
        "02-gpu-exclusive-noshebang.pbs",
        "Job_Name=CUDA_JOB | Rerunable=False | l.nodes=1:ppn=1:gpus=1:exclusive_process"
            + " | l.walltime=00:05:00");
    // -p takes "-1024" although it starts with '-'; the comment's "2 at a time" does not count.
    t.put(
        "03-gpu-array-priority.pbs",
        "Priority=-1024 | job_array_request=1-4%4 | l.walltime=12:00:00 | destination=gpu"
            + " | Join_Path=oe | Keep_Files=oe | l.nodes=1:ppn=1:gpus=1:exclusive");
    t.put(
        "04-array-workdir-mail-oneline.pbs",
        "init_work_dir={CWD}/. | destination=pq | l.walltime=01:00:00 | l.nodes=1:ppn=4"
            + " | Account_Name=Research_Project-T110748 | Job_Name=chromopainter_test"
            + " | Error_Path={H}{CWD}/logs/chromopainter_run.err.txt"
            + " | Output_Path={H}{CWD}/logs/chromopainter_run.out.txt | -V | Mail_Points=e"
            + " | Mail_Users=j.whiting2@exeter.ac.uk | job_array_request=1-33"
            + " | var: PBS_O_INITDIR={CWD}/.");
    t.put(
        "05-grouplist-gpu-array.pbs",
        "Account_Name=vaccine | group_list=vaccine | l.nodes=1:gpus=1:ppn=4 | l.mem=188GB"
            + " | l.walltime=1:00:00 | job_array_request=0-19%20"
            + " | init_work_dir=/home/projects/vaccine/people/nilsch/masters_thesis/src/"
            + " | Error_Path={H}/home/projects/vaccine/people/nilsch/masters_thesis/logs/"
            + " | Output_Path={H}/home/projects/vaccine/people/nilsch/masters_thesis/logs/"
            + " | Mail_Points=ae | Mail_Users=s123015@student.dtu.dk");
    // Torque skips the "# ..." words as non-options; Berth reads them as trailing comments:
    // the same attributes, and nothing to warn about.
    t.put(
        "06-trailing-comments.pbs",
        "l.walltime=48:00:00 | destination=batch-h | l.nodes=1:ppn=24 | Job_Name=ppm-analysis"
            + " | Account_Name=ExaCT | Mail_Points=ae | Join_Path=oe"
            + " | Mail_Users=marc.henrydefrahan@nrel.gov");
    // The blank line 1 and the "#!" on line 2 do not stop the scan; comments as in 06.
    t.put(
        "07-blank-first-line-comments.pbs",
        "-V | init_work_dir={CWD}/. | destination=ptq | l.nodes=1:ppn=8 | l.walltime=0:30:00"
            + " | Account_Name=Research_Project-161613 | Mail_Points=e"
            + " | Mail_Users=jp492@exeter.ac.uk");
    // With -j oe and -o, the error path is recorded as the output path.
    t.put(
        "08-many-opts-one-line.pbs",
        "Job_Name=hmmerpRozella | l.nodes=1:ppn=2 | l.walltime=96:00:00 | l.mem=2gb"
            + " | Join_Path=oe | Output_Path={H}{CWD}/hmmerpRozella.out"
            + " | Error_Path={H}{CWD}/hmmerpRozella.out"
            + " | init_work_dir=/home_stajichlab/jstajich/bigdata/Rozella/OrthoMCL/sp");
    t.put(
        "09-two-l-one-line-array.pbs",
        "l.walltime=120:00:00 | l.nodes=1:ppn=4 | l.pmem=16gb | Mail_Users=rmills198@gmail.com"
            + " | Mail_Points=abe | Job_Name=RndmForests | job_array_request=1-100%10");
    t.put(
        "10-array-list-slotlimit.pbs",
        "l.nodes=1:nehalem | l.mem=4gb | Join_Path=oe | destination=xlong"
            + " | l.walltime=62:00:00 | job_array_request=46-52,58-64,70-76,82-99%24");
    // qsub passes -t through as Torque's does; pbs_server refuses "[0-8]%9".
    t.put(
        "11-array-brackets.pbs",
        "l.nodes=1:gpus=1 | l.walltime=6:00:00 | Account_Name=jvb-000-ag | Mail_Points=bea"
            + " | job_array_request=[0-8]%9");
    // The INDEX leaves open which PBS_O_WORKDIR the job sees. Berth sends the name once, and
    // an explicit -v beats qsub's own value (CorpusTest checks there is exactly one).
    t.put(
        "12-lmem-nospace-v-override.pbs",
        "destination=gpu2 | l.ngpus=2 | l.mem=10gb | l.pmem=10gb | l.vmem=10gb | l.pvmem=10gb"
            + " | var: PBS_O_WORKDIR=/msegalrolab/msegalro/ACMAP");
    t.put(
        "13-v-var-native.pbs",
        "Job_Name=hadoopcluster | destination=normal | l.nodes=2:ppn=1:native"
            + " | l.walltime=00:15:00 | Mail_Points=bae | Join_Path=oe"
            + " | Output_Path={H}{CWD}/hadoopcluster.log | Error_Path={H}{CWD}/hadoopcluster.log"
            + " | var: Catalina_maxhops=None");
    t.put("14-l-nospace.pbs", "l.walltime=00:10:00 | l.nodes=1:ppn=12 | l.mem=250GB");
    // Walltime is sent as written; the server reads 0:120:00 as 7200 s.
    t.put(
        "15-walltime-120min-field.pbs",
        "Shell_Path_List=/bin/bash | Job_Name=pk_run | -V | l.nodes=1:ppn=1"
            + " | l.walltime=0:120:00 | l.mem=5MB | Priority=1023");
    // Three -m lines: the last one wins (a), not abe.
    t.put(
        "16-pbsdsh-repeated-m.pbs",
        "Job_Name=katts-sample | l.nodes=1:ppn=23 | l.walltime=00:60:00 | l.mem=55000mb"
            + " | Join_Path=oe | Mail_Points=a | -V");
    t.put(
        "17-walltime-seconds-gpus.pbs",
        "Job_Name=Comp551 | Account_Name=eeg-641-aa | l.walltime=300 | l.nodes=1:gpus=2");
    t.put(
        "18-nodes-hostname-days.pbs",
        "Mail_Users=mike.sivley@vanderbilt.edu | Mail_Points=bae"
            + " | l.nodes=vision.mc.vanderbilt.edu | l.mem=5000mb | l.walltime=1:00:00:00");
    t.put(
        "19-walltime-days-login.pbs",
        "l.walltime=5:00:00:00 | l.nodes=20:ppn=1 | l.mem=200gb | destination=main"
            + " | Mail_Users=genase23@gmail.com | Mail_Points=abe | Job_Name=qiime");
    // $PBS_JOBID stays literal; the mom expands it at stage-out.
    t.put(
        "20-nodes-plus-props.pbs",
        "Job_Name=mpi2nodes | destination=night | Output_Path={H}/nas_home/hpcfapix/$PBS_JOBID.out"
            + " | Error_Path={H}/nas_home/hpcfapix/$PBS_JOBID.err | l.walltime=00:20:00"
            + " | l.nodes=1:node01:ppn=20+1:node03:ppn=24");
    // "## PBS -q test" on line 12 is not a directive.
    t.put(
        "21-nodes-plus-specfem.pbs",
        "Shell_Path_List=/bin/bash | Job_Name=go_process | Join_Path=oe"
            + " | Output_Path={H}{CWD}/OUTPUT_FILES/$PBS_JOBID.o"
            + " | Error_Path={H}{CWD}/OUTPUT_FILES/$PBS_JOBID.o"
            + " | l.nodes=10:ppn=8+1:ppn=1 | l.walltime=4:00:00");
    t.put(
        "22-tabs-no-eol.pbs",
        "l.nodes=1:ppn=4 | l.walltime=1:00:00 | destination=gpu | Mail_Points=ae"
            + " | Output_Path={H}{CWD}/out.log | Error_Path={H}{CWD}/err.log"
            + " | Job_Name=macroassembly_job");
    // Berth differs: Torque 6 accepts -L (NUMA requests); Berth refuses it and names the -l form.
    t.put("23-torque6-L-quoted-d.pbs", "error: directive on line 5: -L is not supported: ");
    t.put(
        "24-quoted-name-queue-server.pbs",
        "Job_Name=test | l.nodes=1 | l.walltime=5:00:00 | destination=qwork@mp2 | Join_Path=oe");
    // -n is the node-exclusive flag; Torque skips the word silently, Berth warns and names -N.
    t.put(
        "25-lowercase-n-misuse.pbs",
        "l.nodes=1:ppn=1 | l.walltime=24:00:00 | node_exclusive=True | destination=priya"
            + " | Account_Name=lc_pv | Mail_Points=ae | Mail_Users=sungwooh@usc.edu"
            + " | Output_Path={H}{CWD}/log | Error_Path={H}{CWD}/log | init_work_dir={CWD}/."
            + " | Join_Path=oe | warn: directive on line 3: '2000K_S_MoO3' is not an option and"
            + " is ignored (-n means node-exclusive and takes no value; for a job name use -N)");
    // Refused as by Torque (-N without a value); Berth also flags the stray group_list word.
    t.put(
        "26-reject-empty-N.pbs",
        "warn: directive on line 2: 'group_list=cu_10039' is not an option and is ignored"
            + " (did you mean -W group_list=cu_10039?)"
            + " | error: directive on line 5: option requires an argument -- 'N'");
    // Refused as by Torque: the template placeholder TOKEN is not a job id.
    t.put(
        "27-depend-placeholder-server-only.pbs",
        "error: directive on line 6: illegal -W depend value 'afterany:TOKEN': job id 'TOKEN'"
            + " must start with digits");
    // The server appends its name to 11111 and checks that the job exists.
    t.put(
        "28-depend-afterok.pbs",
        "Job_Name=test_qtools_submitter_wait_for_pbs"
            + " | Output_Path={H}/Users/olga/workspace-git/YeoLab/gscripts/tests/data/"
            + "test_qtools_submitter_wait_for_pbs.sh.out"
            + " | Error_Path={H}/Users/olga/workspace-git/YeoLab/gscripts/tests/data/"
            + "test_qtools_submitter_wait_for_pbs.sh.err"
            + " | -V | l.walltime=0:01:00 | l.nodes=1:ppn=16 | Account_Name=yeo-group"
            + " | destination=home-yeo | depend=afterok:11111");
    // The late -v on line 19 is ignored as by Torque; Berth warns about it.
    t.put(
        "29-late-v-ignored.pbs",
        "init_work_dir=/home5/flournoy/kids/Motion/ | Error_Path={H}/home5/flournoy/"
            + " | Output_Path={H}/home5/flournoy/ | destination=short | l.nodes=1:ppn=1"
            + " | novar: motion_thresh"
            + " | warn: #PBS directive on line 19 is ignored: directives must come before the"
            + " first command (line 8)");
    t.put(
        "30-cd-before-directives.pbs",
        "warn: #PBS directives on lines 2, 3, 4, 5 are ignored: directives must come before the"
            + " first command (line 1)");
    t.put(
        "31-early-S-late-multi.pbs",
        "Shell_Path_List=/bin/bash | warn: #PBS directives on lines 14, 15 are ignored:"
            + " directives must come before the first command (line 5)");
    t.put("32-missing-hash.pbs", "");
    // Refused as by Torque, with a message that says how to fix it.
    t.put("33-crlf-array.pbs", CRLF);
    t.put("34-crlf-grouplist.pbs", CRLF);
    // Garbage in, as in Torque: the first word of each <placeholder> is the value, the rest are
    // skipped (Berth warns about each).
    t.put(
        "35-placeholders-feature.pbs",
        "Job_Name=sim$SIMNO | l.nodes=1:ppn=16 | l.mem=44gb | l.feature=16core"
            + " | l.walltime=06:00:00 | Output_Path={H}{CWD}/<standard"
            + " | Error_Path={H}{CWD}/<standard | init_work_dir={CWD}/<data | Mail_Points=ae"
            + " | Mail_Users=<email"
            + " | warn: directive on line 6: 'output' is not an option"
            + " | warn: directive on line 6: 'directory>' is not an option"
            + " | warn: directive on line 7: 'error' is not an option"
            + " | warn: directive on line 7: 'directory>' is not an option"
            + " | warn: directive on line 8: 'directory>' is not an option"
            + " | warn: directive on line 10: 'address' is not an option"
            + " | warn: directive on line 10: 'for' is not an option"
            + " | warn: directive on line 10: 'notifications>' is not an option");
    t.put(
        "36-gres-dollar-paths.pbs",
        "l.nodes=4:ppn=1:x | l.walltime=00:29:00 | Job_Name=mpiio"
            + " | Error_Path={H}{CWD}/$PBS_JOBID.err | Output_Path={H}{CWD}/$PBS_JOBID.out"
            + " | Mail_Points=bea | Mail_Users=gheber@hdfgroup.org | l.gres=darshan");
    t.put(
        "37-noshebang-machinefile.pbs",
        "l.nodes=6:ppn=2 | l.walltime=00:01:00 | Output_Path={H}{CWD}/output.txt"
            + " | Error_Path={H}{CWD}/error.txt");
    // "# PBS -t 1-22" is not a directive, so this is not an array job.
    t.put(
        "38-space-in-prefix-not-directive.pbs",
        "Job_Name=garfield | Output_Path={H}{CWD}/garfield-trans-output"
            + " | Error_Path={H}{CWD}/garfield-trans-error | l.walltime=20:00:00"
            + " | l.nodes=1:ppn=8 | Shell_Path_List=/bin/bash");
    // OpenPBS select/place are unknown to Torque and kept as opaque resources.
    t.put(
        "39-openpbs-select-place.pbs",
        "l.select=1:ncpus=2:mem=12GB | l.place=pack | l.walltime=0:10:00"
            + " | destination=short_cpuQ | Output_Path={H}{CWD}/p2p-pack.csv"
            + " | Error_Path={H}{CWD}/p2p-pack.err");
    // Berth differs: Torque dies on line 2 with "unmatched" (the apostrophe of "job's" in a
    // comment). Berth reads comments as comments and reports each real problem instead.
    t.put(
        "40-openpbs-gadi-contrast.pbs",
        "error: directive on line 2: -P is not supported: "
            + " | error: directive on line 11: -l wd: resource request must be name=value"
            + " | error: directive on line 17: -J is not supported: ");
    return t;
  }

  private static Map<String, Expected> parse(Map<String, String> rows) {
    Map<String, Expected> parsed = new TreeMap<>();
    rows.forEach((file, row) -> parsed.put(file, parse(row)));
    return parsed;
  }

  private static Expected parse(String row) {
    Map<String, String> plain = new LinkedHashMap<>();
    List<String> variables = new ArrayList<>();
    List<String> absent = new ArrayList<>();
    List<String> warnings = new ArrayList<>();
    List<String> errors = new ArrayList<>();
    boolean exports = false;
    for (String raw : row.split(" \\| ")) {
      String item =
          raw.strip()
              .replace("{H}", SubmitPlace.HOST + ":")
              .replace("{CWD}", SubmitPlace.CWD.toString());
      if (item.equals("-V")) {
        exports = true;
      } else if (item.startsWith("var: ")) {
        variables.add(item.substring(5));
      } else if (item.startsWith("novar: ")) {
        absent.add(item.substring(7));
      } else if (item.startsWith("warn: ")) {
        warnings.add(item.substring(6));
      } else if (item.startsWith("error: ")) {
        errors.add(item.substring(7));
      } else if (!item.isEmpty()) {
        int eq = item.indexOf('=');
        String key = item.substring(0, eq);
        plain.put(
            key.startsWith("l.") ? "Resource_List." + key.substring(2) : key,
            item.substring(eq + 1));
      }
    }
    return new Expected(plain, variables, absent, exports, warnings, errors);
  }
}

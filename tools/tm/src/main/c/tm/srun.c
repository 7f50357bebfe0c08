/*
 * srun [-n tasks] [-N nodes] [--ntasks-per-node n] [-c cpus] [-l] [-u] [--mpi=TYPE] program
 * [args...]: Slurm's srun inside a job (sbatch's or qsub's), through the job's task manager as
 * pbsdsh: every task on the job's nodes, in its cgroup, as its owner, with Slurm's SLURM_PROCID,
 * SLURM_LOCALID, SLURM_NODEID and the step's SLURM_* variables; the tasks' output back on srun's
 * own (each line behind its task's number with -l), srun's stdin to task 0 as Slurm sends it, and
 * srun's exit status as Slurm's: the highest exit code, or 128 + the highest signal when a task
 * was killed. docs/slurm.md has the rest.
 * The step's tasks are served PMI-1 (pmi.c) and PMIx (step-pmix.c), so that MPICH's and Open
 * MPI's ranks started by srun form one MPI job; a rank's MPI_Abort ends the others.
 *
 * Tasks are laid out as Slurm's block distribution lays them: the step's nodes (-N, else as many
 * of the job's as there are tasks) get one task each, then each node in turn is filled up to its
 * CPUs (divided by -c) or --ntasks-per-node, so that tasks 0, 1, ... sit on node 0 first.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "pmi.h"
#include "step-pmix.h"
#include "tm.h"

#define USAGE                                                                                      \
  "Usage: srun [-n ntasks] [-N nnodes] [--ntasks-per-node=n] [-c ncpus] [-l] [-u]\n"             \
  "            [--mpi=pmix] [--cpu-bind=q|none] executable [args...]\n"
#define HELP                                                                                       \
  USAGE "\n"                                                                                       \
        "Runs a parallel job step inside the job srun is called from (an sbatch or qsub job),\n"   \
        "through the job's task manager: each task in the job's cgroup on its node.\n\n"           \
        "  -n, --ntasks=N           tasks to run (default: the job's SLURM_NTASKS, else one\n"     \
        "                           per node of -N, else one per CPU of the job)\n"                \
        "  -N, --nodes=N            nodes to run them on (default: as many as needed)\n"           \
        "      --ntasks-per-node=N  at most N tasks on each node\n"                                \
        "  -c, --cpus-per-task=N    CPUs each task takes from its node's\n"                        \
        "  -l, --label              each output line behind its task's number\n"                   \
        "  -u, --unbuffered         output as it comes (it always does without -l)\n"              \
        "      --mpi=TYPE           none, pmi2, pmix, pmix_v3, pmix_v4: taken; every step is\n"    \
        "                           served PMI-1 (MPICH's ranks) and PMIx (Open MPI's)\n"          \
        "      --cpu-bind=q|none    each task on any CPU of the job's on its node (as always)\n"   \
        "      --gpus-per-task=N    each task N of the job's GPUs on its node, in order (as\n"     \
        "                           Slurm's per-task binding); default: sbatch's\n"                \
        "  -h, --help, --usage, -V, --version\n\n"                                                 \
        "Outside a job, srun allocates first (salloc's options, --pty, pyxis's container\n"      \
        "options) and runs this step there. Other options of Slurm's srun are refused by name.\n" \
        "The whole text: man srun, or docs/slurm.md, \"srun\".\n"

/* The most GPUs srun binds to one task (--gpus-per-task, SLURM_GPUS_PER_TASK). */
#define MAX_TASK_GPUS 64

enum { OPT_NTASKS_PER_NODE = 256, OPT_MPI, OPT_CPU_BIND, OPT_GPUS_PER_TASK, OPT_USAGE };

/*
 * --cpu-bind: what Berth does anyway, a task on any CPU of the job's on its node (none), said
 * quietly (q, quiet; Snakemake's jobs ask for --cpu-bind=q); a binding of its own is refused.
 */
static int cpu_bind(const char *value) {
  char copy[256];
  snprintf(copy, sizeof copy, "%s", value);
  for (char *save = NULL, *item = strtok_r(copy, ",", &save); item;
       item = strtok_r(NULL, ",", &save)) {
    if (strcmp(item, "q") && strcmp(item, "quiet") && strcmp(item, "none") && strcmp(item, "no")) {
      tm_say("error: --cpu-bind=%s is not supported by Berth's srun yet (q, quiet and none are:"
             " each task may use every CPU the job has on its node)",
             value);
      return -1;
    }
  }
  return 0;
}

struct options {
  int ntasks, nodes, per_node, cpus_per_task, label; /* 0: not given (cpus_per_task too) */
  int pmix;          /* --mpi=pmix: the step needs PMIx */
  int gpus_per_task; /* --gpus-per-task, else sbatch's SLURM_GPUS_PER_TASK; 0: none */
  char **argv;
  int argc;
};

/* A task: its node and rank there, and what became of it. */
struct task {
  int node, local;
  int32_t id, status;
  int state; /* 0 not started, 1 spawning, 2 waiting, 3 ended */
  char *message;
  char *line[2]; /* -l: what came of stdout and stderr since the last newline */
  size_t line_n[2];
};

struct run {
  struct options o;
  struct tm_conn c;
  struct tm_nodes nodes;
  int step_nodes;    /* the first step_nodes of the job's nodes */
  int *count;        /* tasks on each of them */
  struct task *task; /* o.ntasks of them */
  int spawned, ended, width, caught;
  int exit_code, signal; /* the highest of the tasks' */
  char cwd[4096];
  struct pmi *pmi;       /* the step's PMI-1 server; NULL if it could not listen */
  struct step_pmix *pmix; /* its PMIx server; NULL without libpmix */
  struct step_layout layout;
  struct pollfd *waited; /* its descriptors, for tm_poll */
  int pmi_room; /* how many of waited's first entries pmi.c may fill */
  int waited_cap, aborted;
  int input; /* srun's stdin, while task 0 takes it (Slurm's default); -1 once it has ended */
};

/* ---- the command line ---- */

static int say_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int say_error(const char *fmt, ...) {
  char message[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(message, sizeof message, fmt, ap);
  va_end(ap);
  tm_say("error: %s", message);
  return -1;
}

static int count(const char *option, const char *text, int *value) {
  char *end;
  errno = 0;
  long n = strtol(text, &end, 10);
  if (*text < '0' || *text > '9' || *end || errno || n < 1 || n > 1 << 20) {
    return say_error("Invalid numeric value \"%s\" for %s.", text, option);
  }
  *value = (int)n;
  return 0;
}

/* Slurm's srun options that Berth's does not honour (yet): refused by name. */
static const struct option REFUSED[] = {
    {"pty", no_argument, 0, 0},           {"container-image", required_argument, 0, 0},
    {"container-mounts", required_argument, 0, 0}, {"container-workdir", required_argument, 0, 0},
    {"container-name", required_argument, 0, 0},   {"container-env", required_argument, 0, 0},
    {"container-remap-root", no_argument, 0, 0},   {"multi-prog", no_argument, 0, 0},
    {"output", required_argument, 0, 'o'},         {"error", required_argument, 0, 'e'},
    {"input", required_argument, 0, 'i'},          {"job-name", required_argument, 0, 'J'},
    {"time", required_argument, 0, 't'},           {"partition", required_argument, 0, 'p'},
    {"exclusive", optional_argument, 0, 0},        {"overlap", no_argument, 0, 0},
    {"mem", required_argument, 0, 0},              {"mem-per-cpu", required_argument, 0, 0},
    {"gres", required_argument, 0, 0},             {"gpus", required_argument, 0, 'G'},
    {"gpus-per-node", required_argument, 0, 0},    {"export", required_argument, 0, 0},
    {"chdir", required_argument, 0, 'D'},          {"nodelist", required_argument, 0, 'w'},
    {"exclude", required_argument, 0, 'x'},        {"distribution", required_argument, 0, 'm'},
    {"kill-on-bad-exit", optional_argument, 0, 'K'},
    {"wait", required_argument, 0, 'W'},           {"account", required_argument, 0, 'A'},
    {"dependency", required_argument, 0, 'd'},     {"immediate", optional_argument, 0, 'I'},
    {"verbose", no_argument, 0, 'v'},              {"quiet", no_argument, 0, 'Q'},
    {0, 0, 0, 0}};

static int parse(int argc, char **argv, struct options *o) {
  static const struct option own[] = {{"ntasks", required_argument, 0, 'n'},
                                      {"nodes", required_argument, 0, 'N'},
                                      {"ntasks-per-node", required_argument, 0, OPT_NTASKS_PER_NODE},
                                      {"cpus-per-task", required_argument, 0, 'c'},
                                      {"label", no_argument, 0, 'l'},
                                      {"unbuffered", no_argument, 0, 'u'},
                                      {"mpi", required_argument, 0, OPT_MPI},
                                      {"cpu-bind", required_argument, 0, OPT_CPU_BIND},
                                      {"gpus-per-task", required_argument, 0, OPT_GPUS_PER_TASK},
                                      {"help", no_argument, 0, 'h'},
                                      {"usage", no_argument, 0, OPT_USAGE},
                                      {"version", no_argument, 0, 'V'}};
  size_t n_own = sizeof own / sizeof *own, n_refused = sizeof REFUSED / sizeof *REFUSED;
  struct option *all = tm_alloc((n_own + n_refused) * sizeof *all);
  memcpy(all, own, sizeof own);
  memcpy(all + n_own, REFUSED, sizeof REFUSED); /* ends with REFUSED's zeros */
  memset(o, 0, sizeof *o);
  int c, index;
  opterr = 0;
  /* "+": options end at the program, whose own options are its own */
  while ((c = getopt_long(argc, argv, "+:n:N:c:luhVo:e:i:J:t:p:G:D:w:x:m:K::W:A:d:I::vQ", all,
                          &index)) != -1) {
    const char *refused = NULL;
    switch (c) {
    case 'n':
      if (count("--ntasks", optarg, &o->ntasks) < 0) return -1;
      break;
    case 'N':
      if (count("--nodes", optarg, &o->nodes) < 0) return -1;
      break;
    case OPT_NTASKS_PER_NODE:
      if (count("--ntasks-per-node", optarg, &o->per_node) < 0) return -1;
      break;
    case 'c':
      if (count("--cpus-per-task", optarg, &o->cpus_per_task) < 0) return -1;
      break;
    case 'l': o->label = 1; break;
    case 'u': break; /* relayed output is never held back */
    case OPT_MPI:
      /* every step is served PMI-1 and, where libpmix is, PMIx: Slurm's pmi2 plugin serves PMI-1
       * clients too, so MPICH's programs run under --mpi=pmi2 as under none; --mpi=pmix (and
       * Slurm's versioned names) says that the step needs PMIx */
      if (!strcmp(optarg, "pmix") || !strcmp(optarg, "pmix_v3") || !strcmp(optarg, "pmix_v4")) {
        o->pmix = 1;
      } else if (strcmp(optarg, "none") != 0 && strcmp(optarg, "pmi2") != 0) {
        return say_error("--mpi=%s is not supported by Berth's srun: every step is served PMI-1"
                         " (MPICH's programs) and PMIx (Open MPI's); --mpi takes none, pmi2,"
                         " pmix, pmix_v3 and pmix_v4",
                         optarg);
      }
      break;
    case OPT_CPU_BIND:
      if (cpu_bind(optarg) < 0) return -1;
      break;
    case OPT_GPUS_PER_TASK:
      if (count("--gpus-per-task", optarg, &o->gpus_per_task) < 0) return -1;
      break;
    case 'h': fputs(HELP, stdout); return 1;
    case OPT_USAGE: fputs(USAGE, stdout); return 1;
    case 'V': printf("berth %s\n", BERTH_VERSION); return 1;
    case ':': return say_error("option '%s' requires an argument", argv[optind - 1]);
    case '?':
      fprintf(stderr, "srun: unrecognized option '%s'\nTry \"srun --help\" for more information\n",
              argv[optind - 1]);
      return -1;
    case 0: refused = all[index].name; break;
    default:
      for (const struct option *r = REFUSED; r->name; r++) {
        if (r->val == c) refused = r->name;
      }
    }
    if (refused) {
      return say_error("--%s is not supported by Berth's srun yet (docs/slurm.md lists what is)",
                       refused);
    }
  }
  if (optind >= argc) return say_error("No command given to execute."), -1;
  o->argv = argv + optind;
  o->argc = argc - optind;
  return 0;
}

/* ---- the layout ---- */

static int env_count(const char *name) {
  const char *v = getenv(name);
  char *end;
  long n = v ? strtol(v, &end, 10) : 0;
  return v && *v && !*end && n > 0 && n <= 1 << 20 ? (int)n : 0;
}

/* What node i can take: its CPUs over -c, or --ntasks-per-node. */
static int capacity(const struct run *run, int i) {
  int cpus = run->nodes.node[i].slots / run->o.cpus_per_task;
  return run->o.per_node > 0 && run->o.per_node < cpus ? run->o.per_node : cpus;
}

/* Places the tasks (block distribution); prints why and returns -1 when they do not fit. */
static int lay_out(struct run *run) {
  struct options *o = &run->o;
  int job_nodes = run->nodes.n;
  /* what the command line leaves out, the step's (or sbatch's) variables say, as Slurm's srun */
  int given_tasks = o->ntasks > 0;
  if (!o->cpus_per_task) o->cpus_per_task = env_count("SLURM_CPUS_PER_TASK");
  if (!o->gpus_per_task) o->gpus_per_task = env_count("SLURM_GPUS_PER_TASK");
  if (o->gpus_per_task > MAX_TASK_GPUS) {
    return say_error("--gpus-per-task=%d: at most %d GPUs to a task", o->gpus_per_task,
                     MAX_TASK_GPUS);
  }
  if (!o->cpus_per_task) o->cpus_per_task = 1;
  if (!o->per_node) o->per_node = env_count("SLURM_NTASKS_PER_NODE");
  if (!o->ntasks && !o->nodes) o->ntasks = env_count("SLURM_NTASKS");
  if (!o->nodes) {
    o->nodes = env_count("SLURM_NNODES");
    if (given_tasks && o->nodes > o->ntasks) o->nodes = o->ntasks;
  }
  if (o->nodes > job_nodes) {
    return say_error("Unable to create step for job %s: the job has %d node%s, not %d",
                     run->nodes.job_id, job_nodes, job_nodes == 1 ? "" : "s", o->nodes);
  }
  if (o->ntasks == 0) {
    if (o->per_node > 0) o->ntasks = o->per_node * (o->nodes ? o->nodes : job_nodes);
    else if (o->nodes > 0) o->ntasks = o->nodes;
    else {
      for (int i = 0; i < job_nodes; i++) o->ntasks += capacity(run, i);
    }
  }
  run->step_nodes = o->nodes ? o->nodes : o->ntasks < job_nodes ? o->ntasks : job_nodes;
  if (o->ntasks < run->step_nodes) {
    return say_error("Unable to create step for job %s: %d tasks cannot fill %d nodes",
                     run->nodes.job_id, o->ntasks, run->step_nodes);
  }
  run->count = tm_alloc((size_t)run->step_nodes * sizeof *run->count);
  long room = 0;
  for (int i = 0; i < run->step_nodes; i++) {
    if (capacity(run, i) < 1) {
      return say_error("Unable to create step for job %s: node %s has %d CPUs, fewer than"
                       " --cpus-per-task=%d",
                       run->nodes.job_id, run->nodes.node[i].name, run->nodes.node[i].slots,
                       o->cpus_per_task);
    }
    run->count[i] = 1;
    room += capacity(run, i);
  }
  if (o->ntasks > room) {
    return say_error("Unable to create step for job %s: More processors requested than permitted"
                     " (%d tasks, room for %ld on %d node%s)",
                     run->nodes.job_id, o->ntasks, room, run->step_nodes,
                     run->step_nodes == 1 ? "" : "s");
  }
  int left = o->ntasks - run->step_nodes;
  for (int i = 0; i < run->step_nodes && left > 0; i++) {
    int more = capacity(run, i) - run->count[i];
    if (more > left) more = left;
    run->count[i] += more;
    left -= more;
  }
  run->task = tm_alloc((size_t)o->ntasks * sizeof *run->task);
  memset(run->task, 0, (size_t)o->ntasks * sizeof *run->task);
  for (int i = 0, t = 0; i < run->step_nodes; i++) {
    for (int l = 0; l < run->count[i]; l++, t++) run->task[t] = (struct task){.node = i, .local = l};
  }
  for (int n = o->ntasks - 1; n >= 10; n /= 10) run->width++;
  run->width++;
  return 0;
}

/* ---- the step's environment ---- */

static void set_number(const char *name, long value) {
  char text[32];
  snprintf(text, sizeof text, "%ld", value);
  setenv(name, text, 1);
}

/* Slurm's run-length counts: 2,2,1 is 2(x2),1. */
static char *counts(const int *count, int n) {
  char *text = tm_alloc((size_t)n * 24 + 1);
  size_t at = 0;
  for (int i = 0; i < n;) {
    int same = 1;
    while (i + same < n && count[i + same] == count[i]) same++;
    at += (size_t)sprintf(text + at, same > 1 ? "%s%d(x%d)" : "%s%d", at ? "," : "", count[i], same);
    i += same;
  }
  text[at] = 0;
  return text;
}

/* What every task of the step sees alike. */
static void step_environment(struct run *run) {
  size_t size = 1;
  for (int i = 0; i < run->step_nodes; i++) size += strlen(run->nodes.node[i].name) + 1;
  char *nodes = tm_alloc(size);
  nodes[0] = 0;
  for (int i = 0; i < run->step_nodes; i++) {
    if (i) strcat(nodes, ",");
    strcat(nodes, run->nodes.node[i].name);
  }
  char *tasks = counts(run->count, run->step_nodes);
  setenv("SLURM_STEP_NODELIST", nodes, 1);
  setenv("SLURM_STEP_TASKS_PER_NODE", tasks, 1);
  setenv("SLURM_TASKS_PER_NODE", tasks, 1);
  set_number("SLURM_STEP_NUM_NODES", run->step_nodes);
  set_number("SLURM_STEP_NUM_TASKS", run->o.ntasks);
  set_number("SLURM_NTASKS", run->o.ntasks);
  set_number("SLURM_NPROCS", run->o.ntasks);
  set_number("SLURM_NNODES", run->step_nodes);
  if (run->o.cpus_per_task > 1) set_number("SLURM_CPUS_PER_TASK", run->o.cpus_per_task);
  if (run->o.gpus_per_task > 0) set_number("SLURM_GPUS_PER_TASK", run->o.gpus_per_task);
  setenv("SLURM_STEP_ID", "0", 1);
  setenv("SLURM_STEPID", "0", 1);
  setenv("SLURM_DISTRIBUTION", "block", 1);
  setenv("SLURM_LAUNCH_NODE_IPADDR", "", 0);
  /* what an sbatch or salloc job has already, and a qsub job has not: Open MPI's ranks take
   * SLURM_JOBID, SLURM_NODELIST and SLURM_STEP_ID together for a launch by srun, and PMIx then */
  char number[32];
  snprintf(number, sizeof number, "%.*s", (int)strcspn(run->nodes.job_id, "."),
           run->nodes.job_id);
  setenv("SLURM_JOB_ID", number, 0);
  setenv("SLURM_JOBID", number, 0);
  setenv("SLURM_JOB_NODELIST", nodes, 0);
  setenv("SLURM_NODELIST", nodes, 0);
  free(nodes);
  free(tasks);
}

/* ---- the run ---- */

static void ended(struct run *run, int t);

static void spawn(struct run *run, int t) {
  struct task *task = &run->task[t];
  set_number("SLURM_PROCID", t);
  set_number("SLURM_LOCALID", task->local);
  set_number("SLURM_NODEID", task->node);
  const struct tm_node *node = &run->nodes.node[task->node];
  int slot = task->local * run->o.cpus_per_task;
  struct tm_spawn s = {.node = node->name,
                       .argv = run->o.argv,
                       .argc = run->o.argc,
                       .cwd = run->cwd,
                       .vnode = node->first_vnode + (node->slots > 0 ? slot % node->slots : 0),
                       .relay_output = 1};
  /* --gpus-per-task: Slurm's per-task binding, the node's GPUs in order, N to each local task;
   * the mom refuses a task whose GPUs the job has not got there */
  int32_t gpus[MAX_TASK_GPUS];
  s.ngpus = run->o.gpus_per_task; /* at most MAX_TASK_GPUS: lay_out refused more */
  for (int g = 0; g < s.ngpus; g++) gpus[g] = task->local * run->o.gpus_per_task + g;
  s.gpus = gpus;
  if (run->pmi) pmi_task_environment(run->pmi, t);
  if (run->pmix && step_pmix_task_environment(run->pmix, t, task->node) < 0) {
    task->status = -1;
    task->message = strdup("PMIx refused it");
    ended(run, t);
    return;
  }
  task->state = 1;
  tm_send_spawn(&run->c, TM_ID(TM_ASK_SPAWN, t), &s);
}

/* -l: each whole line behind "N: "; the rest waits for its newline (or the task's end). */
static void labelled(struct run *run, int t, int stream, const char *p, size_t n, int flush) {
  struct task *task = &run->task[t];
  int s = stream == 1 ? 0 : 1;
  for (size_t i = 0; i < n; i++) {
    if (task->line_n[s] % 4096 == 0) {
      char *grown = realloc(task->line[s], task->line_n[s] + 4096);
      if (!grown) {
        tm_say("out of memory");
        exit(1);
      }
      task->line[s] = grown;
    }
    task->line[s][task->line_n[s]++] = p[i];
    if (p[i] == '\n' || task->line_n[s] >= 1 << 20) flush = 2;
    if (flush == 2) {
      char label[32];
      int w = snprintf(label, sizeof label, "%*d: ", run->width, t);
      tm_write_all(stream == 1 ? 1 : 2, label, (size_t)w);
      tm_write_all(stream == 1 ? 1 : 2, task->line[s], task->line_n[s]);
      task->line_n[s] = 0;
      flush = 0;
    }
  }
  if (flush && task->line_n[s] > 0) {
    labelled(run, t, stream, "\n", 1, 0);
  }
}

static int task_of(const struct run *run, int32_t id) {
  for (int t = 0; t < run->o.ntasks; t++) {
    if (run->task[t].state >= 2 && run->task[t].id == id) return t;
  }
  return -1;
}

static void on_output(void *ctx, const struct tm_response *r) {
  struct run *run = ctx;
  int t = task_of(run, r->task_id);
  if (!run->o.label || t < 0) {
    tm_write_all(r->stream == 1 ? 1 : 2, r->data.p, r->data.n);
  } else {
    labelled(run, t, r->stream, r->data.p, r->data.n, 0);
  }
}

/*
 * Reports a task's end as Slurm's srun does (its failures only) and keeps the highest exit code
 * and signal: srun exits with 128 + the signal when a task was killed, else the exit code.
 */
static void ended(struct run *run, int t) {
  struct task *task = &run->task[t];
  const char *node = run->nodes.node[task->node].name;
  task->state = 3;
  run->ended++;
  if (run->o.label) {
    labelled(run, t, 1, "", 0, 1);
    labelled(run, t, 2, "", 0, 1);
  }
  int status = task->status;
  if (status < 0) {
    /* Slurm's slurmstepd fails an exec with status 2 */
    say_error("%s: task %d: could not start: %s", node, t, task->message ? task->message : "");
    status = 2;
  } else if (status >= 256) {
    say_error("%s: task %d: %s", node, t, strsignal(status - 256));
    if (status - 256 > run->signal) run->signal = status - 256;
    return;
  } else if (status > 0) {
    say_error("%s: task %d: Exited with exit code %d", node, t, status);
  }
  if (status > run->exit_code) run->exit_code = status;
}

static int status(const struct run *run) {
  return run->signal ? 128 + run->signal : run->exit_code;
}

static int on_response(void *ctx, const struct tm_response *r) {
  struct run *run = ctx;
  uint64_t t = TM_ID_INDEX(r->id);
  int kind = TM_ID_KIND(r->id);
  if (kind == TM_ASK_SIGNAL) return 1;
  if (t >= (uint64_t)run->o.ntasks) return 0;
  struct task *task = &run->task[t];
  if (kind == TM_ASK_SPAWN && task->state == 1) {
    if (r->body != TM_SPAWNED) {
      task->status = -1;
      task->message = tm_unexpected(r, TM_SPAWNED);
      ended(run, (int)t);
      return 1;
    }
    task->id = r->task_id;
    task->state = 2;
    if (run->caught) tm_send_signal(&run->c, TM_ID(TM_ASK_SIGNAL, t), task->id, run->caught);
    if (t == 0) {
      run->input = 0; /* srun's stdin goes to task 0, as Slurm's srun sends it */
    } else {
      tm_send_input(&run->c, task->id, NULL, 0, 1);
    }
    tm_send_wait(&run->c, TM_ID(TM_ASK_WAIT, t), task->id);
    return 1;
  }
  if (kind == TM_ASK_WAIT && task->state == 2) {
    task->status = r->body == TM_EXITED ? r->exit_status : -1;
    if (r->body != TM_EXITED) task->message = tm_unexpected(r, TM_EXITED);
    else if (r->exit_status < 0) task->message = tm_strdup(r->error);
    ended(run, (int)t);
    return 1;
  }
  return 0;
}

/* What srun's stdin has for task 0: sent on; its end (or an unreadable stdin) ends task 0's. */
static void forward_input(struct run *run) {
  static char chunk[64 << 10];
  ssize_t n = read(run->input, chunk, sizeof chunk);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
  if (n > 0) {
    tm_send_input(&run->c, run->task[0].id, chunk, (size_t)n, 0);
    return;
  }
  tm_send_input(&run->c, run->task[0].id, NULL, 0, 1);
  run->input = -1;
}

static void on_signal(void *ctx, int signal) {
  struct run *run = ctx;
  run->caught = signal;
  for (int t = 0; t < run->o.ntasks; t++) {
    if (run->task[t].state == 2) {
      tm_send_signal(&run->c, TM_ID(TM_ASK_SIGNAL, t), run->task[t].id, signal);
    }
  }
}

/*
 * PMIx for the step, which Open MPI's ranks need: served wherever libpmix is, as Slurm's sites
 * serve it by default (MpiDefault=pmix); without libpmix, a step that asked for it (--mpi=pmix)
 * is refused rather than run as ranks that each believe they are alone.
 */
static int serve_pmix(struct run *run) {
  const char **names = tm_alloc((size_t)run->step_nodes * sizeof *names);
  for (int i = 0; i < run->step_nodes; i++) names[i] = run->nodes.node[i].name;
  run->layout = (struct step_layout){.job = run->nodes.job_id, .ntasks = run->o.ntasks,
                                     .nnodes = run->step_nodes, .count = run->count,
                                     .name = names};
  run->pmix = step_pmix_start(&run->layout, run->o.pmix);
  return !run->pmix && run->o.pmix ? -1 : 0;
}

/* srun's exit, once its PMIx server (and the thread libpmix runs it in) has stopped. */
static int finish(struct run *run, int code) {
  if (run->pmix) step_pmix_stop(run->pmix);
  run->pmix = NULL;
  return code;
}

int srun_main(int argc, char **argv) {
  static struct run run;
  int parsed = parse(argc, argv, &run.o);
  if (parsed == 1) return 0;
  if (parsed < 0) return 1;
  if (!getenv(TM_SOCKET_VARIABLE)) {
    say_error("this srun runs steps inside a job (sbatch's, salloc's, qsub's); outside one,"
              " run srun from Berth's commands (ops/bin/srun, /usr/bin/srun), which allocates");
    return 1;
  }
  if (tm_connect(&run.c) < 0 || tm_get_nodes(&run.c, &run.nodes) < 0) return 1;
  if (lay_out(&run) < 0) return 1;
  if (!getcwd(run.cwd, sizeof run.cwd)) run.cwd[0] = 0;
  step_environment(&run);
  run.pmi = pmi_start(run.o.ntasks, run.count, run.step_nodes, run.nodes.job_id);
  if (serve_pmix(&run) < 0) return 1;
  /* PMI-1's descriptors, PMIx's, and stdin */
  run.pmi_room = pmi_max_fds(run.o.ntasks);
  run.waited_cap = run.pmi_room + (run.pmix ? step_pmix_max_fds(run.o.ntasks) : 0) + 1;
  run.waited = tm_alloc((size_t)run.waited_cap * sizeof *run.waited);
  run.c.on_response = on_response;
  run.c.on_signal = on_signal;
  run.c.on_output = on_output;
  run.c.ctx = &run;
  tm_trap((const int[]){SIGINT, SIGTERM}, 2);
  for (;;) {
    while (run.spawned < run.o.ntasks && tm_pending(&run.c) < (64 << 10) && !run.caught) {
      spawn(&run, run.spawned++);
    }
    if (run.caught && run.spawned < run.o.ntasks) {
      run.o.ntasks = run.spawned; /* after a signal no further task starts */
    }
    if (run.ended == run.o.ntasks) return finish(&run, status(&run));
    if (run.c.ended) {
      say_error("lost the connection to the task manager: %s", run.c.why);
      return finish(&run, status(&run) > 1 ? status(&run) : 1);
    }
    int pmix_at = run.pmi ? pmi_fds(run.pmi, run.waited, run.pmi_room) : 0;
    int n = pmix_at;
    if (run.pmix) n += step_pmix_fds(run.pmix, run.waited + n, run.waited_cap - 1 - n);
    /* stdin only as fast as the task manager takes it, and only while task 0 runs */
    int reading = run.input >= 0 && run.task[0].state == 2 && tm_pending(&run.c) < (64 << 10);
    if (reading) run.waited[n] = (struct pollfd){.fd = run.input, .events = POLLIN};
    tm_poll(&run.c, run.waited, n + reading);
    if (reading && run.waited[n].revents) forward_input(&run);
    if (run.pmi) pmi_serve(run.pmi, run.waited, pmix_at);
    if (run.pmix) step_pmix_serve(run.pmix, run.waited + pmix_at, n - pmix_at);
    int aborted =
        (run.pmi && pmi_aborted(run.pmi) >= 0) || (run.pmix && step_pmix_aborted(run.pmix));
    if (aborted && !run.aborted) { /* MPI_Abort: the other ranks end too */
      run.aborted = 1;
      on_signal(&run, SIGKILL);
    }
  }
}

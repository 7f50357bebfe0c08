/*
 * The TM client's helpers for the commands built on it (tm.h): messages, memory, exit statuses
 * and the job's nodes. Like the wire and the connection, they know nothing of the commands; the
 * build checks that the library links on its own.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tm.h"

const char *tm_program = "berth-tm";
static int failure_status = 1; /* what out of memory exits with: the command's own failures' */

void tm_init(const char *program, int status) {
  tm_program = program;
  failure_status = status;
}

void tm_say(const char *fmt, ...) {
  char *line;
  va_list ap;
  va_start(ap, fmt);
  int n = vasprintf(&line, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  fprintf(stderr, "%s: %s\n", tm_program, line); /* one write: stderr is unbuffered */
  free(line);
}

void *tm_alloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) {
    tm_say("out of memory");
    exit(failure_status);
  }
  return p;
}

char *tm_strdup(struct pb_bytes b) {
  char *s = tm_alloc(b.n + 1);
  memcpy(s, b.p, b.n);
  s[b.n] = 0;
  return s;
}

char *tm_unexpected(const struct tm_response *r, enum tm_body expected) {
  if (r->body == TM_ERROR) return tm_strdup(r->message);
  char text[200];
  int n = snprintf(text, sizeof text,
                   "the task manager answered request %llu with %s instead of %s",
                   (unsigned long long)r->id, tm_body_name(r->body), tm_body_name(expected));
  return tm_strdup((struct pb_bytes){text, (size_t)n});
}

int tm_exit_code(int32_t status) {
  if (status < 0) return 127;
  if (status < 256) return status;
  return status - 256 < 127 ? 128 + (status - 256) : 255;
}

/* The wait for the job's nodes, the first answer either command needs. */
struct nodes_wait {
  int done;
  struct tm_nodes *nodes;
  char *failure;
};

static int nodes_answer(void *ctx, const struct tm_response *r) {
  struct nodes_wait *w = ctx;
  if (w->done || r->id != TM_ID(TM_ASK_NODES, 0)) return 0;
  w->done = 1;
  if (r->body != TM_NODES) {
    w->failure = tm_unexpected(r, TM_NODES);
    return 1;
  }
  int parsed = tm_nodes_parse(r->nodes, w->nodes);
  const char *why = parsed == -2 ? "out of memory" : "the task manager sent a malformed node list";
  if (parsed < 0) w->failure = tm_strdup((struct pb_bytes){why, strlen(why)});
  return 1;
}

int tm_get_nodes(struct tm_conn *c, struct tm_nodes *nodes) {
  struct nodes_wait w = {0, nodes, NULL};
  int (*on_response)(void *, const struct tm_response *) = c->on_response;
  void *ctx = c->ctx;
  c->on_response = nodes_answer;
  c->ctx = &w;
  tm_send_nodes(c);
  while (!w.done && !c->ended) tm_poll(c, NULL, 0);
  c->on_response = on_response;
  c->ctx = ctx;
  if (w.done && !w.failure) return 0;
  tm_say("cannot get the job's nodes: %s", w.failure ? w.failure : c->why);
  free(w.failure);
  return -1;
}

static size_t short_length(const char *name) { return strcspn(name, "."); }

const struct tm_node *tm_find_node(const struct tm_nodes *nodes, const char *host) {
  for (int i = 0; i < nodes->n; i++) {
    if (!strcmp(nodes->node[i].name, host)) return &nodes->node[i];
  }
  size_t wanted = short_length(host);
  for (int i = 0; i < nodes->n; i++) {
    const char *name = nodes->node[i].name;
    if (short_length(name) == wanted && !strncmp(name, host, wanted)) return &nodes->node[i];
  }
  return NULL;
}

void tm_say_not_a_node(const struct tm_nodes *nodes, const char *host) {
  size_t size = 1;
  for (int i = 0; i < nodes->n; i++) size += strlen(nodes->node[i].name) + 2;
  char *names = tm_alloc(size), *at = names;
  for (int i = 0; i < nodes->n; i++) {
    at = stpcpy(at, i ? ", " : "");
    at = stpcpy(at, nodes->node[i].name);
  }
  *at = 0;
  tm_say("%s is not a node of job %s (its nodes: %s)", host, nodes->job_id, names);
  free(names);
}

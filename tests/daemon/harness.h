// SPDX-License-Identifier: Apache-2.0 OR MIT
/* End-to-end test harness for cuzkd: a temporary directory with small
 * parameter files made by the project's own dev setup, a cuzkd started on a
 * socket there (READY=1 awaited through NOTIFY_SOCKET, not by sleeping), and
 * a raw protocol client speaking src/ipc/protocol.h directly, so that tests
 * can send anything, well-formed or not. */
#ifndef CUZK_TESTS_DAEMON_HARNESS_H
#define CUZK_TESTS_DAEMON_HARNESS_H

#include <stddef.h>
#include <stdint.h>
#include <fcntl.h>
#include <sys/types.h>

#include "devtools/synth.h"
#include "formats/r1cs.h"
#include "ipc/protocol.h"
#include "prover/types.h"

#define TD_TIMEOUT_MS 120000   /* generous: the sanitizer build is slow */

struct td_env {
	char dir[256];
	char srs_dir[300];
	char socket[300];
	char conf[300];
	char log[300];
	pid_t pid;
	int notify_fd;
	int pidfd;
	struct td_notify *notify;      /* the thread that reads notify_fd (harness.c) */
	int exit_status;           /* after td_daemon_wait */
	unsigned long watchdog_usec;   /* set before td_daemon_start: WATCHDOG_USEC */
	char last_notify[4096];        /* the message td_notify_wait matched */
	int gate_fd;                   /* td_gate_open's FIFO, or -1 */
};

/* The daemon under test: $CUZKD_TEST_BIN (e.g. an older build, to see a
 * test fail there), else the one this build made. */
const char *td_cuzkd_bin(void);

/* The backend the daemon tests run on: $CUZKD_TEST_BACKEND (cpu, gpu or
 * auto), cpu by default. */
const char *td_backend(void);

/* A circuit from the synthetic generator with its dev-setup parameters
 * written as srs_dir/name, and its witness. */
struct tcircuit {
	char name[64];
	groth16_params params;
	r1cs cs;
	fr_t *z;
	groth16_synth syn;
};

/* mkdtemp + srs dir; exits the test on failure. */
void td_env_init(struct td_env *env, const char *tag);
/* Removes what td_env_init and the daemon created; prints the daemon log
 * when print_log (a failed test) or $CUZKD_TEST_VERBOSE is set. */
void td_env_cleanup(struct td_env *env, int print_log);

void tcircuit_make(struct tcircuit *c, const struct td_env *env, const char *name, unsigned log_k,
		   size_t inputs, uint64_t seed);
void tcircuit_free(struct tcircuit *c);
/* A memfd holding the witness, parts partitions (copies), sealed with seals
 * (F_SEAL_* bits; 0 for none). */
int tcircuit_memfd(const struct tcircuit *c, unsigned parts, unsigned seals);
/* The same bytes in a plain file at path (not a memfd): one partition, or
 * parts partitions. */
int tcircuit_file(const struct tcircuit *c, const char *path);
int tcircuit_file_parts(const struct tcircuit *c, const char *path, unsigned parts);
/* 0 when proof (192 bytes) verifies against c's vk and public inputs. */
int tcircuit_verify(const struct tcircuit *c, const uint8_t *proof);
#define TD_SEALS_OK (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)

/* Configuration text for exactly one worker on whichever backend runs
 * (CPU or the first GPU), for tests that depend on the order of work. */
const char *td_one_worker_conf(void);

/* The partition gate ($CUZKD_TEST_GATE): a daemon started after
 * td_gate_open proves a partition only once the test let one through
 * (td_gate_pass), so what runs and what waits when the test looks is its
 * own decision, however fast the backend.  A worker waiting at the gate
 * counts as running.  td_gate_close stops gating daemons started later. */
void td_gate_open(struct td_env *env);
void td_gate_pass(struct td_env *env, unsigned n);
void td_gate_close(struct td_env *env);

/* Writes env->conf: the [daemon] section with socket and srs_dir, then
 * extra (more INI text, may be NULL), and starts cuzkd; returns once it said
 * READY=1.  Exits the test if it does not. */
void td_daemon_start(struct td_env *env, const char *extra);
/* The two halves of td_daemon_start: the configuration file, and a child
 * process (stderr to env->log, NOTIFY_SOCKET set) running argv. */
void td_write_conf(struct td_env *env, const char *extra);
void td_spawn(struct td_env *env, char *const argv[]);
/* The same, with a listening socket of type (SOCK_SEQPACKET, SOCK_STREAM) at
 * env->socket passed as systemd passes a socket unit's socket (fd 3,
 * LISTEN_FDS=1, LISTEN_PID); the test keeps no copy of it. */
void td_spawn_listening(struct td_env *env, char *const argv[], int type);
/* Waits for a notify message (sd_notify) containing needle, taking the
 * messages received since the last call in order; 0 or -1 (timeout, or the
 * daemon exited without sending it).  A thread reads the socket all along:
 * the daemon's sd_notify would block once a few messages are unread
 * (net.unix.max_dgram_qlen), stopping its event loop. */
int td_notify_wait(struct td_env *env, const char *needle, int timeout_ms);
/* Sends sig and waits for the exit; returns the wait status. */
int td_daemon_stop(struct td_env *env, int sig);
/* Waits for the daemon to exit by itself (timeout_ms); -1 on timeout. */
int td_daemon_wait(struct td_env *env, int timeout_ms);
/* 1 when a line of the daemon's log contains needle. */
int td_log_has(const struct td_env *env, const char *needle);
/* 1 when the daemon process is still running. */
int td_daemon_alive(struct td_env *env);

/* A raw protocol client. */
struct tclient {
	int fd;
	struct msg_hello_reply hello;
	struct ring_consumer ring;
	int ring_fd, head_fd, efd;
	int ring_open;
};

/* Connects without saying hello (for bad-input tests). */
int tc_connect_raw(struct tclient *c, const struct td_env *env);
/* Connects and says hello (max_inflight wish, 0 = daemon's). 0 or -status. */
int tc_connect(struct tclient *c, const struct td_env *env, uint32_t max_inflight);
/* The same, asking for hello_flags (CUZK_HELLO_*); c->hello.flags says
 * what the daemon granted. */
int tc_connect_flags(struct tclient *c, const struct td_env *env, uint32_t max_inflight, uint32_t hello_flags);
void tc_close(struct tclient *c);
/* One packet with up to 16 fds. */
int tc_send(struct tclient *c, const void *msg, size_t len, const int *fds, unsigned nfds);
/* Receives one packet (timeout_ms); returns its length, 0 on EOF, -1 on timeout/error. */
ssize_t tc_recv(struct tclient *c, void *buf, size_t cap, int timeout_ms);
/* Receives a REPLY; returns its status, or -1 (EOF, timeout, not a reply). */
int tc_reply(struct tclient *c, struct msg_reply *ret);
/* Fills a PROVE message. */
void tc_prove_msg(struct msg_prove *m, uint64_t request_id, const char *srs, unsigned priority,
		  uint32_t flags, uint64_t seed);
/* PROVE with one fd; returns the reply's status (-1 on no reply). */
int tc_submit(struct tclient *c, uint64_t request_id, const char *srs, unsigned priority, int fd,
	      struct msg_reply *ret);
/* Waits for the next completion; 0 and *rec/proofs filled, or -1 on
 * timeout or hang-up. proofs: room for 64 * 192 bytes (may be NULL). */
int tc_wait(struct tclient *c, struct ring_rec *rec, uint8_t *proofs, int timeout_ms);
/* STATUS or METRICS text (malloc'd), or NULL. */
char *tc_text(struct tclient *c, int metrics, int json);
/* STATUS text in any format (PARAMS too; malloc'd), or NULL. */
char *tc_status(struct tclient *c, enum cuzk_status_format format);
/* The value of a Prometheus sample line "name value" (exact name with
 * labels), or -1. */
double tc_metric(const char *text, const char *name);

/* Waits until the JSON status contains need1 (and need2 unless NULL), e.g.
 * "\"running\":1".  The protocol has no "started" event, so this asks for
 * the status until it says so; each question waits for its answer, nothing
 * sleeps.  0, or -1 when the daemon stops answering or TD_TIMEOUT_MS pass.
 * States that last only as long as a proof are for gated daemons. */
int tc_wait_status(struct tclient *c, const char *need1, const char *need2);
#define tc_wait_running(c) tc_wait_status((c), "\"running\":1,", NULL)

/* What the daemon holds, read from /proc after a STATUS was answered (so
 * the loop has handled everything sent before) and once no dropped buffer
 * is left for the releaser thread: open fds, mappings, resident memory.  via: the client that asks, or NULL for a fresh one
 * (which is then counted too). */
struct td_usage {
	int fds, maps;
	int file_maps;   /* of those, mappings of a file, a memfd or a device */
	long rss_kb;
};
struct td_usage td_daemon_usage(const struct td_env *env, struct tclient *via);
/* Whether the daemon holds the mappings it held before: the same mappings
 * of files and memfds (what a client's witness would leave), and at most
 * TD_ANON_MAPS_SLACK more anonymous ones.  The slack is the C library's:
 * a proof runs threads of its own (the MSM lanes, the precompute, the
 * parallel loops), and glibc keeps up to 40 MiB of joined threads' stacks
 * (two mappings each, the stack and its guard) to reuse in whatever order
 * they come back, so two moments between proofs can differ by a few
 * stacks.  Leaked memory shows in the RSS, which callers bound. */
#define TD_ANON_MAPS_SLACK 12
int td_same_mappings(const struct td_usage *before, const struct td_usage *after);
/* Whether mappings and RSS mean anything: not under AddressSanitizer,
 * whose allocator maps and keeps memory of its own (its quarantine). */
#if defined(__SANITIZE_ADDRESS__)
#define TD_MEMORY_FIGURES 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TD_MEMORY_FIGURES 0
#endif
#endif
#ifndef TD_MEMORY_FIGURES
#define TD_MEMORY_FIGURES 1
#endif

/* A well-behaved client proves c once and verifies: the daemon still serves. */
int td_serves(const struct td_env *env, const struct tcircuit *c);

/* One request of 8 partitions of c, every proof verified: each worker has
 * proved c at least once (its first proof of a set loads it, and on the GPU
 * backend makes the CUDA runtime's lazy allocations for that worker), so
 * that a later comparison of the daemon's mappings and RSS counts no cache
 * as a leak. */
int td_warm(const struct td_env *env, const struct tcircuit *c);

#endif

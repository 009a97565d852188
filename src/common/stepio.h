/* stepio.h — the frames between srun and a step's shepherds.
 *
 * Each shepherd dials srun's I/O port (SLURM_SRUN_COMM_PORT) and first sends
 * HELLO with the step's io_key (which srun chose and ctld handed to the node
 * over its signed link), so srun talks only to the step's own shepherds.
 * Then, both ways, frames of a 12-byte header and a payload:
 *
 *   type (1) | 0 (3) | task (4, big-endian) | length (4, big-endian) | payload
 *
 * shepherd -> srun: STDOUT and STDERR carry a task's output (length 0: that
 * stream ended), EXIT a task's wait status (4 bytes, big-endian; bit
 * STEPIO_EXIT_OOM set above the 16 bits of the wait status when the task died
 * of SIGKILL in a step whose cgroup saw an OOM kill).
 * srun -> shepherd: STDIN data for a task (length 0: end of input), SIGNAL a
 * signal number (4 bytes) for every task the shepherd runs.
 *
 * srun --mpi=pmix only: a fence of the step's PMIx servers (one per node)
 * goes through srun. Each shepherd sends FENCE_UP (task 0) with its node's
 * contribution, the blob libpmix handed its fence_nb; once every shepherd
 * of the step sent one, srun sends all of them FENCE_DOWN: the
 * contributions in shepherd order, each as length (4, big-endian) | blob.
 * One fence at a time: PMIx processes enter the next only after this one
 * completed everywhere. ABORT (no payload) from a shepherd: one of its tasks
 * called MPI_Abort; srun ends the step as -K would.
 *
 * srun --pty only: task 0 runs on a pseudo-terminal, whose output (stdout
 * and stderr merged, as a terminal does) comes as STDOUT of task 0. srun
 * sends WINSIZE (task 0; rows (2) | cols (2), big-endian) to task 0's
 * shepherd first of all, right after its HELLO (0 0: srun has no terminal,
 * the size stays the kernel's default), and again on every SIGWINCH.
 *
 * sattach joins a running step at srun's port: its first frame is ATTACH,
 * whose payload is the step's attach key (stepio_attach_key; ctld gives it
 * to the job's owner). srun then sends it the output it still holds (its
 * last STEPIO_REPLAY_MAX bytes, as slurmstepd replays its buffers), EXIT
 * for the tasks already ended, then every STDOUT, STDERR and EXIT frame as
 * they come; sattach's STDIN frames go to that task (STEPIO_ALL_TASKS: to
 * each), an empty one ending its input.
 *
 * ABORTING (shepherd -> srun, payload KillWait in seconds, 4 bytes big-endian):
 * the step is being ended (scancel, the job's end or time limit); srun says
 * once "srun: Job step aborted: Waiting up to N seconds for job step to
 * finish." (N = KillWait + 2), as Slurm's srun does. */
#ifndef DRV_COMMON_STEPIO_H
#define DRV_COMMON_STEPIO_H

#include <stddef.h>
#include <stdint.h>

enum stepio_type {
	STEPIO_HELLO = 1, /* payload: {"io_key","node_id","node","tasks":[..]} */
	STEPIO_STDOUT = 2,
	STEPIO_STDERR = 3,
	STEPIO_EXIT = 4,
	STEPIO_STDIN = 5,
	STEPIO_SIGNAL = 6,
	STEPIO_FENCE_UP = 7,   /* shepherd -> srun: this node's blob */
	STEPIO_FENCE_DOWN = 8, /* srun -> shepherds: every node's, length-prefixed */
	STEPIO_ABORT = 9,      /* shepherd -> srun: MPI_Abort, end the whole step */
	STEPIO_WINSIZE = 10,   /* srun -> shepherd: --pty's terminal size */
	STEPIO_ATTACH = 11,    /* sattach -> srun: the attach key */
	STEPIO_ABORTING = 12,  /* shepherd -> srun: being ended, KillWait (4 bytes) */
};

/* The task of a STDIN frame from sattach meaning "every task". */
#define STEPIO_ALL_TASKS 0xffffffffu
/* How much recent output srun keeps for a newly attached sattach. */
#define STEPIO_REPLAY_MAX (64u * 1024)

/* In an EXIT payload: the kernel's OOM killer ended the task. */
#define STEPIO_EXIT_OOM 0x10000u

#define STEPIO_HDR_LEN 12
#define STEPIO_MAX_PAYLOAD (1u << 20)

struct stepio_hdr {
	uint8_t type;
	uint32_t task, len;
};

/* Writes the header of a frame into buf (STEPIO_HDR_LEN bytes). */
void stepio_hdr_pack(uint8_t *buf, uint8_t type, uint32_t task, uint32_t len);
/* Reads one; -1 when the length is over STEPIO_MAX_PAYLOAD or the type is
 * unknown. */
int stepio_hdr_unpack(const uint8_t *buf, struct stepio_hdr *h);
/* Writes a whole frame to a blocking fd. 0 or -errno. */
int stepio_send(int fd, uint8_t type, uint32_t task, const void *data, uint32_t len);
/* The key sattach shows srun (STEPIO_ATTACH): the hex SHA-256 of
 * "sattach:" and the step's hex io_key, so that ctld can hand it to the
 * step's owner without handing out io_key, which shepherds prove
 * themselves with. out: 65 bytes. */
void stepio_attach_key(const char *io_key, char out[65]);
/* Reads exactly len bytes from a blocking fd: 0, -EPIPE at EOF, or -errno. */
int stepio_read_full(int fd, void *buf, size_t len);

#endif

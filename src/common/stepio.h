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
	STEPIO_ABORTING = 10,  /* shepherd -> srun: being ended, KillWait (4 bytes) */
};

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
/* Reads exactly len bytes from a blocking fd: 0, -EPIPE at EOF, or -errno. */
int stepio_read_full(int fd, void *buf, size_t len);

#endif

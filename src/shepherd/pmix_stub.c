/* pmix_stub.c — srun --mpi=pmix on a node built without libpmix: the step
 * fails with a message saying so (pmix.c is the real one). */
#include <errno.h>
#include <stdio.h>

#include "shepherd/shepherd.h"

struct pmixsrv *pmixsrv_new(json_t *spec, const char *node, int64_t job_id,
			    int64_t step_id, uid_t uid, gid_t gid, char *err,
			    size_t errlen)
{
	snprintf(err, errlen, "PMIx is not available on this node");
	errno = ENOTSUP;
	return NULL;
}

char **pmixsrv_task_env(struct pmixsrv *p, uint32_t id)
{
	return NULL;
}

void pmixsrv_set_pgid(struct pmixsrv *p, pid_t pgid)
{
}

int pmixsrv_fd(const struct pmixsrv *p)
{
	return -1;
}

int pmixsrv_ready(struct pmixsrv *p, int sock)
{
	return 0;
}

int pmixsrv_fence_down(struct pmixsrv *p, int sock, const void *data, uint32_t len)
{
	return 0;
}

void pmixsrv_free(struct pmixsrv *p)
{
}

/* cgroup_bpf.c — cgroup v2's device control: v2 has no devices.allow, the
 * kernel asks a BPF_PROG_TYPE_CGROUP_DEVICE program attached to the cgroup
 * instead. This file writes that program as raw instructions (a list of
 * "type major minor: allow" tests, then "deny"), loads it and attaches it
 * with the bpf(2) syscall: no libbpf, no compiler at run time.
 *
 * The attachment lives as long as the cgroup; the program's fd is closed
 * at once. BPF_F_ALLOW_MULTI: programs above ours (a container runtime's)
 * still run, and a device must pass them all. */
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/cgroup_internal.h"

#define MAX_INSNS 1024

static struct bpf_insn insn(uint8_t code, uint8_t dst, uint8_t src, int16_t off,
			    int32_t imm)
{
	return (struct bpf_insn){
	    .code = code, .dst_reg = dst, .src_reg = src, .off = off, .imm = imm};
}

/* r2 = device type, r3 = major, r4 = minor; each rule: the tests that are
 * not wildcards jump past it when they fail, else r0 = 1 and exit; at the
 * end r0 = 0 (denied). */
static size_t build(const struct cg_dev *rules, size_t n, struct bpf_insn *p)
{
	size_t k = 0;
	p[k++] = insn(BPF_LDX | BPF_MEM | BPF_W, 2, 1,
		      offsetof(struct bpf_cgroup_dev_ctx, access_type), 0);
	p[k++] = insn(BPF_ALU | BPF_AND | BPF_K, 2, 0, 0, 0xffff);
	p[k++] = insn(BPF_LDX | BPF_MEM | BPF_W, 3, 1,
		      offsetof(struct bpf_cgroup_dev_ctx, major), 0);
	p[k++] = insn(BPF_LDX | BPF_MEM | BPF_W, 4, 1,
		      offsetof(struct bpf_cgroup_dev_ctx, minor), 0);
	for (size_t i = 0; i < n && k + 7 < MAX_INSNS; i++) {
		int32_t type =
		    rules[i].type == 'b' ? BPF_DEVCG_DEV_BLOCK : BPF_DEVCG_DEV_CHAR;
		int16_t tests = 1 + (rules[i].major >= 0) + (rules[i].minor >= 0);
		int16_t left = tests + 2; /* instructions of this rule */
		p[k++] = insn(BPF_JMP | BPF_JNE | BPF_K, 2, 0, --left, type);
		if (rules[i].major >= 0)
			p[k++] = insn(BPF_JMP | BPF_JNE | BPF_K, 3, 0, --left,
				      (int32_t)rules[i].major);
		if (rules[i].minor >= 0)
			p[k++] = insn(BPF_JMP | BPF_JNE | BPF_K, 4, 0, --left,
				      (int32_t)rules[i].minor);
		p[k++] = insn(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 1);
		p[k++] = insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	}
	p[k++] = insn(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0);
	p[k++] = insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	return k;
}

int cg_bpf_devices(const char *dir, const struct cg_dev *rules, size_t n)
{
	static struct bpf_insn prog[MAX_INSNS];
	size_t len = build(rules, n, prog);
	union bpf_attr a;
	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_CGROUP_DEVICE;
	a.insns = (uint64_t)(uintptr_t)prog;
	a.insn_cnt = (uint32_t)len;
	a.license = (uint64_t)(uintptr_t) "GPL";
	int pfd = (int)syscall(SYS_bpf, BPF_PROG_LOAD, &a, sizeof(a));
	if (pfd < 0)
		return -errno;
	int cfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int rc = cfd < 0 ? -errno : 0;
	if (rc == 0) {
		memset(&a, 0, sizeof(a));
		a.target_fd = (uint32_t)cfd;
		a.attach_bpf_fd = (uint32_t)pfd;
		a.attach_type = BPF_CGROUP_DEVICE;
		a.attach_flags = BPF_F_ALLOW_MULTI;
		if (syscall(SYS_bpf, BPF_PROG_ATTACH, &a, sizeof(a)) < 0)
			rc = -errno;
		close(cfd);
	}
	close(pfd);
	return rc;
}

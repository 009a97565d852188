/* stepio.c — srun <-> shepherd frames (stepio.h). */
#include "common/stepio.h"

#include <errno.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include <sodium.h>

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

void stepio_hdr_pack(uint8_t *buf, uint8_t type, uint32_t task, uint32_t len)
{
	memset(buf, 0, STEPIO_HDR_LEN);
	buf[0] = type;
	put32(buf + 4, task);
	put32(buf + 8, len);
}

int stepio_hdr_unpack(const uint8_t *buf, struct stepio_hdr *h)
{
	h->type = buf[0];
	h->task = get32(buf + 4);
	h->len = get32(buf + 8);
	if (h->type < STEPIO_HELLO || h->type > STEPIO_ABORTING ||
	    h->len > STEPIO_MAX_PAYLOAD)
		return -1;
	return 0;
}

int stepio_send(int fd, uint8_t type, uint32_t task, const void *data, uint32_t len)
{
	uint8_t hdr[STEPIO_HDR_LEN];
	stepio_hdr_pack(hdr, type, task, len);
	struct iovec iov[2] = {{hdr, sizeof(hdr)}, {(void *)data, len}};
	size_t left = sizeof(hdr) + len;
	int n_iov = len ? 2 : 1;
	struct iovec *v = iov;
	while (left) {
		ssize_t w = writev(fd, v, n_iov);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		left -= (size_t)w;
		while (n_iov && (size_t)w >= v->iov_len) {
			w -= (ssize_t)v->iov_len;
			v++;
			n_iov--;
		}
		if (n_iov) {
			v->iov_base = (char *)v->iov_base + w;
			v->iov_len -= (size_t)w;
		}
	}
	return 0;
}

void stepio_attach_key(const char *io_key, char out[65])
{
	crypto_hash_sha256_state st;
	unsigned char h[crypto_hash_sha256_BYTES];
	crypto_hash_sha256_init(&st);
	crypto_hash_sha256_update(&st, (const unsigned char *)"sattach:", 8);
	crypto_hash_sha256_update(&st, (const unsigned char *)io_key, strlen(io_key));
	crypto_hash_sha256_final(&st, h);
	sodium_bin2hex(out, 65, h, sizeof(h));
}

int stepio_read_full(int fd, void *buf, size_t len)
{
	size_t got = 0;
	while (got < len) {
		ssize_t n = read(fd, (char *)buf + got, len - got);
		if (n == 0)
			return -EPIPE;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		got += (size_t)n;
	}
	return 0;
}

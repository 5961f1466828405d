// SPDX-License-Identifier: Apache-2.0 OR MIT
/* One packet with file descriptors, each way.  Received descriptors are
 * hostile until checked: they arrive close-on-exec, and every one of them is
 * either handed to the caller or closed, whatever went wrong. */
#include "ipc/protocol.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int msg_send(int sock, const void *msg, size_t len, const int *fds, unsigned nfds,
	     cuzk_error *err)
{
	union {
		char buf[CUZK_CMSG_SPACE];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { .iov_base = (void *)msg, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (nfds > 3)
		return err_fail(err, CUZK_E_INVAL, "cannot send %u fds in one message (at most 3)", nfds);
	if (nfds) {
		memset(&ctl, 0, sizeof(ctl));
		mh.msg_control = ctl.buf;
		mh.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(nfds * sizeof(int));
		memcpy(CMSG_DATA(cm), fds, nfds * sizeof(int));
	}
	for (;;) {
		ssize_t n = sendmsg(sock, &mh, MSG_NOSIGNAL);
		if (n >= 0) {
			if ((size_t)n != len)
				return err_fail(err, CUZK_E_IO, "sendmsg sent %zd of %zu bytes", n, len);
			return 0;
		}
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return err_fail(err, CUZK_E_BUSY, "sendmsg: the peer does not read its socket");
		return err_fail_errno(err, errno, "sendmsg");
	}
}

static void close_all(int *fds, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		close(fds[i]);
}

int msg_take_fds(const struct msghdr *mh, int *fds, unsigned max_fds, unsigned *ret_nfds,
		 cuzk_error *err)
{
	/* Collect every fd first (closing the surplus), so that no error path
	 * below leaks one. */
	int got[64];
	unsigned n = 0, dropped = 0;
	int foreign = 0;

	for (struct cmsghdr *cm = CMSG_FIRSTHDR(mh); cm; cm = CMSG_NXTHDR((struct msghdr *)mh, cm)) {
		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS) {
			foreign = 1;
			continue;
		}
		size_t count = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		const unsigned char *data = CMSG_DATA(cm);
		for (size_t i = 0; i < count; i++) {
			int fd;
			memcpy(&fd, data + i * sizeof(int), sizeof(int));
			if (n < sizeof(got) / sizeof(got[0])) {
				got[n++] = fd;
			} else {
				close(fd);
				dropped++;
			}
		}
	}
	if (mh->msg_flags & MSG_CTRUNC) {
		close_all(got, n);
		return err_fail(err, CUZK_E_FD, "control data truncated (MSG_CTRUNC): too many fds sent");
	}
	if (n + dropped > max_fds) {
		close_all(got, n);
		return err_fail(err, CUZK_E_FD, "%u fds sent, at most %u expected", n + dropped, max_fds);
	}
	if (foreign) {
		close_all(got, n);
		return err_fail(err, CUZK_E_FD, "unexpected control message (only SCM_RIGHTS is accepted)");
	}
	if (n)
		memcpy(fds, got, n * sizeof(int));
	*ret_nfds = n;
	return 0;
}

int msg_recv(int sock, void *buf, size_t cap, size_t *ret_len, int *fds, unsigned max_fds,
	     unsigned *ret_nfds, cuzk_error *err)
{
	union {
		char buf[CUZK_CMSG_SPACE];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { .iov_base = buf, .iov_len = cap };
	struct msghdr mh;
	ssize_t n;
	int reset_seen = 0;

	for (;;) {
		memset(&mh, 0, sizeof(mh));
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = ctl.buf;
		mh.msg_controllen = sizeof(ctl.buf);
		n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
		if (n >= 0)
			break;
		if (errno == EINTR)
			continue;
		/* A peer that closed with our packet unread leaves ECONNRESET,
		 * which the kernel reports (once) before the packets the peer
		 * sent first: its last words, e.g. why it refused us. */
		if (errno == ECONNRESET && !reset_seen) {
			reset_seen = 1;
			continue;
		}
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return err_fail(err, CUZK_E_BUSY, "recvmsg: nothing to read");
		return err_fail_errno(err, errno, "recvmsg");
	}
	unsigned nfds = 0;
	int r = msg_take_fds(&mh, fds, max_fds, &nfds, err);
	if (r < 0)
		return r;
	if (mh.msg_flags & MSG_TRUNC) {
		close_all(fds, nfds);
		return err_fail(err, CUZK_E_PROTOCOL, "message larger than %zu bytes (truncated)", cap);
	}
	*ret_len = (size_t)n;
	*ret_nfds = nfds;
	return 0;
}

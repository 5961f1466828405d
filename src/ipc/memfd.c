// SPDX-License-Identifier: Apache-2.0 OR MIT
/* Creating the memfds of the protocol: the ring pages and witness buffers. */
#include "ipc/protocol.h"

#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

int memfd_new(const char *name, unsigned int flags, uint64_t size, cuzk_error *err)
{
	int fd = memfd_create(name, flags);
	if (fd < 0)
		return err_fail_errno(err, errno, "memfd_create(%s)", name);
	if (ftruncate(fd, (off_t)size) < 0) {
		int e = errno;
		close(fd);
		return err_fail_errno(err, e, "ftruncate(%s, %llu)", name, (unsigned long long)size);
	}
	return fd;
}

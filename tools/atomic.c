/* Output files are written whole or not at all: into a temporary file in
 * the same directory, then renamed over the target.  "-" is standard
 * output; devices and FIFOs (/dev/null) are written in place. */
#define _GNU_SOURCE 1 /* copy_file_range */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int atomic_open(atomic_file *a, const char *path, char *err, size_t errlen)
{
    memset(a, 0, offsetof(atomic_file, buf));
    a->path = path;
    a->fd = -1;
    a->mode = 0644;
    if (!strcmp(path, "-")) {
        a->fd = 1;
        a->to_stdout = 1;
        return 0;
    }
    struct stat st;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            snprintf(err, errlen, "%s: is a directory", path);
            return -1;
        }
        if (!S_ISREG(st.st_mode)) {
            a->fd = open(path, O_WRONLY | O_CLOEXEC);
            if (a->fd < 0) {
                snprintf(err, errlen, "%s: %s", path, strerror(errno));
                return -1;
            }
            a->direct = 1;
            return 0;
        }
        a->mode = st.st_mode & 07777;
    }
    struct stat lst;
    if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode))
        a->target = realpath(path, NULL); /* NULL (dangling): the link itself is replaced */
    const char *t = a->target ? a->target : path;
    size_t n = strlen(t);
    a->tmp = malloc(n + 16);
    if (!a->tmp) {
        snprintf(err, errlen, "out of memory");
        free(a->target);
        a->target = NULL;
        return -1;
    }
    memcpy(a->tmp, t, n);
    memcpy(a->tmp + n, ".tmp.XXXXXX", 12);
    a->fd = mkstemp(a->tmp);
    if (a->fd < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        free(a->tmp);
        free(a->target);
        a->tmp = a->target = NULL;
        return -1;
    }
    return 0;
}

static int raw_write(atomic_file *a, const char *p, size_t size)
{
    while (size && !a->failed) {
        ssize_t w = write(a->fd, p, size);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            a->failed = errno ? errno : EIO;
            break;
        }
        p += w;
        size -= (size_t)w;
    }
    return a->failed ? -1 : 0;
}

/* pread what copy_file_range could not copy */
static int copy_rest(atomic_file *a, int in_fd, uint64_t off, uint64_t n)
{
    while (n && !a->failed) {
        size_t k = n < sizeof a->buf ? (size_t)n : sizeof a->buf;
        ssize_t r = pread(in_fd, a->buf, k, (off_t)off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            a->failed = r < 0 ? errno : EIO;
            break;
        }
        raw_write(a, a->buf, (size_t)r);
        off += (uint64_t)r;
        n -= (uint64_t)r;
    }
    return a->failed ? -1 : 0;
}

/* Small pieces (section headers, padding) are gathered; big ones go
 * straight through. */
static int flush(atomic_file *a)
{
    int rc = raw_write(a, a->buf, a->nbuf);
    a->nbuf = 0;
    return rc;
}

int atomic_write(void *ctx, const void *data, size_t size)
{
    atomic_file *a = ctx;
    if ((a->nbuf + size > sizeof a->buf || size >= sizeof a->buf / 2) && a->nbuf && flush(a))
        return -1;
    if (size >= sizeof a->buf / 2) /* in order: what was gathered went first */
        return raw_write(a, data, size);
    memcpy(a->buf + a->nbuf, data, size);
    a->nbuf += size;
    return 0;
}

int atomic_copy_from(atomic_file *a, int in_fd, uint64_t off, uint64_t n)
{
    if (a->to_stdout || a->direct || in_fd < 0 || a->no_copy)
        return 1;
    if (a->nbuf && flush(a))
        return -1;
    loff_t o = (loff_t)off;
    while (n) {
        ssize_t w = copy_file_range(in_fd, &o, a->fd, NULL, (size_t)(n > (1u << 30) ? 1u << 30 : n), 0);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w < 0 && (errno == EXDEV || errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP ||
                          errno == EBADF)) {
                /* not here: write() from now on; what was copied stays, the rest goes through write */
                a->no_copy = 1;
                off = (uint64_t)o;
                (void)off;
                return n == 0 ? 0 : copy_rest(a, in_fd, (uint64_t)o, n);
            }
            a->failed = w < 0 ? errno : EIO;
            return -1;
        }
        n -= (uint64_t)w;
    }
    return 0;
}

void atomic_abort(atomic_file *a)
{
    if (!a->to_stdout && a->fd >= 0) {
        close(a->fd);
        if (a->tmp)
            unlink(a->tmp);
    }
    free(a->tmp);
    free(a->target);
    a->tmp = a->target = NULL;
    a->fd = -1;
}

int atomic_commit(atomic_file *a, char *err, size_t errlen)
{
    if (a->nbuf)
        flush(a);
    if (a->failed) {
        snprintf(err, errlen, "%s: %s", a->path, strerror(a->failed));
        atomic_abort(a);
        return -1;
    }
    if (a->to_stdout)
        return 0;
    if (a->direct) {
        int rc = close(a->fd);
        a->fd = -1;
        if (rc != 0) {
            snprintf(err, errlen, "%s: %s", a->path, strerror(errno));
            return -1;
        }
        return 0;
    }
    if (fchmod(a->fd, (mode_t)a->mode) != 0 || close(a->fd) != 0 ||
        rename(a->tmp, a->target ? a->target : a->path) != 0) {
        snprintf(err, errlen, "%s: %s", a->path, strerror(errno));
        a->fd = -1;
        unlink(a->tmp);
        free(a->tmp);
        free(a->target);
        a->tmp = a->target = NULL;
        return -1;
    }
    free(a->tmp);
    free(a->target);
    a->tmp = a->target = NULL;
    return 0;
}

int write_file_atomic(const char *path, const void *data, size_t size, char *err, size_t errlen)
{
    atomic_file a;
    if (atomic_open(&a, path, err, errlen))
        return -1;
    if (!strcmp(path, "-")) {
        if (fwrite(data, 1, size, stdout) != size || fflush(stdout)) {
            snprintf(err, errlen, "writing standard output: %s", strerror(errno));
            return -1;
        }
        return 0;
    }
    atomic_write(&a, data, size);
    return atomic_commit(&a, err, errlen);
}

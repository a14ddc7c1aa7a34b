/* Output files are written whole or not at all: into a temporary file in
 * the same directory, then renamed over the target.  "-" is standard
 * output. */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int atomic_open(atomic_file *a, const char *path, char *err, size_t errlen)
{
    memset(a, 0, sizeof *a);
    a->path = path;
    a->fd = -1;
    if (!strcmp(path, "-")) {
        a->fd = 1;
        a->to_stdout = 1;
        return 0;
    }
    size_t n = strlen(path);
    a->tmp = malloc(n + 16);
    if (!a->tmp) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    memcpy(a->tmp, path, n);
    memcpy(a->tmp + n, ".tmp.XXXXXX", 12);
    a->fd = mkstemp(a->tmp);
    if (a->fd < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        free(a->tmp);
        a->tmp = NULL;
        return -1;
    }
    return 0;
}

int atomic_write(void *ctx, const void *data, size_t size)
{
    atomic_file *a = ctx;
    const char *p = data;
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

void atomic_abort(atomic_file *a)
{
    if (!a->to_stdout && a->fd >= 0) {
        close(a->fd);
        unlink(a->tmp);
    }
    free(a->tmp);
    a->tmp = NULL;
    a->fd = -1;
}

int atomic_commit(atomic_file *a, char *err, size_t errlen)
{
    if (a->failed) {
        snprintf(err, errlen, "%s: %s", a->path, strerror(a->failed));
        atomic_abort(a);
        return -1;
    }
    if (a->to_stdout)
        return 0;
    if (fchmod(a->fd, 0644) != 0 || close(a->fd) != 0 || rename(a->tmp, a->path) != 0) {
        snprintf(err, errlen, "%s: %s", a->path, strerror(errno));
        a->fd = -1;
        unlink(a->tmp);
        free(a->tmp);
        a->tmp = NULL;
        return -1;
    }
    free(a->tmp);
    a->tmp = NULL;
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

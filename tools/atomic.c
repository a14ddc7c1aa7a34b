/* Output files are written whole or not at all: into a temporary file in
 * the same directory, then renamed over the target. */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int write_file_atomic(const char *path, const void *data, size_t size, char *err, size_t errlen)
{
    if (!strcmp(path, "-")) {
        if (fwrite(data, 1, size, stdout) != size || fflush(stdout)) {
            snprintf(err, errlen, "writing standard output: %s", strerror(errno));
            return -1;
        }
        return 0;
    }
    size_t n = strlen(path);
    char *tmp = malloc(n + 16);
    if (!tmp) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    memcpy(tmp, path, n);
    memcpy(tmp + n, ".tmp.XXXXXX", 12);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        free(tmp);
        return -1;
    }
    const char *p = data;
    size_t left = size;
    while (left) {
        ssize_t w = write(fd, p, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            snprintf(err, errlen, "%s: %s", path, strerror(errno));
            close(fd);
            unlink(tmp);
            free(tmp);
            return -1;
        }
        p += w;
        left -= (size_t)w;
    }
    if (fchmod(fd, 0644) != 0 || close(fd) != 0 || rename(tmp, path) != 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        unlink(tmp);
        free(tmp);
        return -1;
    }
    free(tmp);
    return 0;
}

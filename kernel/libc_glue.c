/*
 * kernel/libc_glue.c: the system-call layer newlib expects (newlib "Syscalls" chapter of its
 * libc manual). stdout/stderr go to the console; the heap is a fixed reserved arena; everything
 * else fails with ENOSYS. There is no process to exit: _exit panics.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "console.h"
#include "panic.h"
#include "param.h"
#include "percpu.h"
#include "spinlock.h"

#undef errno
extern int errno;

static uint8_t libc_heap[WS_HEAP_BYTES] __attribute__((aligned(64)));
static size_t libc_heap_used;
static struct spinlock libc_malloc_lock = SPINLOCK_INIT("malloc");

int _write(int fd, const char *buf, int len);
int _read(int fd, char *buf, int len);
void *_sbrk(ptrdiff_t incr);
int _close(int fd);
int _fstat(int fd, struct stat *st);
int _isatty(int fd);
int _lseek(int fd, int off, int whence);
void _exit(int status);
int _kill(int pid, int sig);
int _getpid(void);
int _open(const char *path, int flags, int mode);
struct _reent;
void __malloc_lock(struct _reent *r);
void __malloc_unlock(struct _reent *r);

int _write(int fd, const char *buf, int len)
{
    if (fd != 1 && fd != 2) {
        errno = EBADF;
        return -1;
    }
    console_write(buf, (size_t)len);
    return len;
}

int _read(int fd, char *buf, int len)
{
    (void)fd, (void)buf, (void)len;
    errno = ENOSYS; /* console input belongs to the console core's poll loop */
    return -1;
}

void *_sbrk(ptrdiff_t incr)
{
    if (incr < 0 || (size_t)incr > sizeof(libc_heap) - libc_heap_used) {
        errno = ENOMEM;
        return (void *)-1;
    }
    void *p = &libc_heap[libc_heap_used];
    libc_heap_used += (size_t)incr;
    return p;
}

/* newlib's malloc is not multi-core safe by itself; it calls these around every operation,
 * recursively (realloc calls malloc), so the lock counts its depth. Init-time use only. */
static unsigned libc_malloc_depth; /* guarded by libc_malloc_lock */

void __malloc_lock(struct _reent *r)
{
    (void)r;
    if (libc_malloc_lock.holder == (int)this_cpu()->index) {
        libc_malloc_depth++;
        return;
    }
    spin_lock(&libc_malloc_lock);
    libc_malloc_depth = 1;
}

void __malloc_unlock(struct _reent *r)
{
    (void)r;
    if (--libc_malloc_depth == 0) {
        spin_unlock(&libc_malloc_lock);
    }
}

int _close(int fd)
{
    (void)fd;
    errno = ENOSYS;
    return -1;
}

int _fstat(int fd, struct stat *st)
{
    if (fd < 0 || fd > 2) {
        errno = EBADF;
        return -1;
    }
    st->st_mode = S_IFCHR; /* a character device: newlib then line-buffers stdout */
    return 0;
}

int _isatty(int fd)
{
    return fd >= 0 && fd <= 2;
}

int _lseek(int fd, int off, int whence)
{
    (void)fd, (void)off, (void)whence;
    errno = ENOSYS;
    return -1;
}

int _open(const char *path, int flags, int mode)
{
    (void)path, (void)flags, (void)mode;
    errno = ENOSYS;
    return -1;
}

void _exit(int status)
{
    panic("_exit(%d) called: the firmware has no process to exit", status);
}

int _kill(int pid, int sig)
{
    (void)pid, (void)sig;
    errno = ENOSYS;
    return -1;
}

int _getpid(void)
{
    return 1;
}

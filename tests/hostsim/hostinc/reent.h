/*
 * tests/hostsim/hostinc/reent.h: host stand-in for newlib's <reent.h>, which kernel/percpu.h
 * includes for the per-core `struct _reent` (errno and friends). glibc has no such header; the
 * host simulation only needs the type to exist. Put this directory on the include path (-I)
 * before the system headers; nothing else of newlib is stood in for.
 */
#ifndef WS_HOSTSIM_REENT_H
#define WS_HOSTSIM_REENT_H

struct _reent {
    int unused;
};

#define _REENT_INIT_PTR(p) ((void)(p))

#endif

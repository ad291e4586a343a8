/* kernel/err.h: the one list of error codes. Functions return 0 or one of these (negative). */
#ifndef WS_ERR_H
#define WS_ERR_H

#include <stdarg.h>
#include <stddef.h>

#define WS_OK 0
#define WS_ERR_GENERIC (-1)   /* unspecified failure; prefer a specific code */
#define WS_ERR_INVAL (-2)     /* malformed input (bad field, bad length) */
#define WS_ERR_NOT_FOUND (-3) /* looked for something that is not there */
#define WS_ERR_CHECKSUM (-4)  /* a checksum did not verify */
#define WS_ERR_TRUNCATED (-5) /* input ends before a length it declares */
#define WS_ERR_NO_MEMORY (-6) /* a fixed-size table or pool is full */
#define WS_ERR_TIMEDOUT (-7)  /* a bounded wait ran out */
#define WS_ERR_NOSYS (-8)     /* not supported */
#define WS_ERR_RANGE (-9)     /* value outside its allowed range */
#define WS_ERR_DEVICE (-10)   /* hardware answered something impossible (e.g. all-ones) */

/* err_name: short name of an error code, for messages ("EINVAL"-like). Never NULL. */
const char *err_name(int err);

/* err_vfmt: tiny dependency-free formatter (%s %c %d %u %x with l/ll/z) for parsers' messages,
 * which also run in host tests. Always NUL-terminates. */
void err_vfmt(char *buf, size_t len, const char *fmt, va_list ap);

#endif

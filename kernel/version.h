/* kernel/version.h: identity of this build, shown in the banner and by `version`. */
#ifndef WS_VERSION_H
#define WS_VERSION_H

#define WS_VERSION "0.1.0"

/* WS_GIT_REV and WS_BUILD_CONFIG are passed by the Makefile (-D). */
#ifndef WS_GIT_REV
#define WS_GIT_REV "unknown"
#endif

#endif

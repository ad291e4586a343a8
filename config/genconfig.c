/* config/genconfig.c: build-time tool turning a baked configuration file into a C header.
 *   genconfig <in.conf> <out.h>   validate in.conf; write out.h only if it is valid
 *   genconfig --doc               print the key reference table of docs/config.md
 * Exit status: 0 done, 1 invalid configuration or I/O error, 2 bad usage. */
#include "confparse.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define GENCONFIG_MAX_INPUT_BYTES (1024 * 1024) /* a config is a few hundred bytes */

/* genconfig_read: read the whole file into a malloc'd buffer. Returns NULL after a message. */
static char *genconfig_read(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf;

    if (f == NULL) {
        fprintf(stderr, "genconfig: cannot open %s: %s\n", path, strerror(errno));
        return NULL;
    }
    /* One byte more than allowed, so that a file of exactly the limit is not called too big. */
    buf = malloc(GENCONFIG_MAX_INPUT_BYTES + 1);
    if (buf == NULL) {
        fprintf(stderr, "genconfig: out of memory\n");
        fclose(f);
        return NULL;
    }
    *len = fread(buf, 1, GENCONFIG_MAX_INPUT_BYTES + 1, f);
    if (ferror(f) || *len > GENCONFIG_MAX_INPUT_BYTES) {
        fprintf(stderr, "genconfig: %s: %s\n", path,
                ferror(f) ? "read error" : "file too large for a configuration");
        free(buf);
        fclose(f);
        return NULL;
    }
    fclose(f);
    return buf;
}

/*
 * genconfig_write: write the header to a temporary file next to out and rename it over out,
 * so an interrupted build never leaves a half-written header that make would trust.
 */
static int genconfig_write(const struct conf_values *v, const char *out)
{
    size_t tmp_size = strlen(out) + sizeof(".XXXXXX");
    char *tmp = malloc(tmp_size);
    FILE *f;
    int fd;
    int emit_rc;

    if (tmp == NULL) {
        fprintf(stderr, "genconfig: out of memory\n");
        return -1;
    }
    snprintf(tmp, tmp_size, "%s.XXXXXX", out);
    fd = mkstemp(tmp);
    if (fd < 0) {
        fprintf(stderr, "genconfig: cannot create %s: %s\n", tmp, strerror(errno));
        goto err_name;
    }
    /* mkstemp makes it 0600; a header is an ordinary build product */
    if (fchmod(fd, 0644) != 0 || (f = fdopen(fd, "w")) == NULL) {
        fprintf(stderr, "genconfig: cannot open %s: %s\n", tmp, strerror(errno));
        close(fd);
        goto err_file;
    }
    emit_rc = conf_emit_header(v, f);
    if (fclose(f) != 0 || emit_rc != 0) {
        fprintf(stderr, "genconfig: cannot write %s: %s\n", tmp, strerror(errno));
        goto err_file;
    }
    if (rename(tmp, out) != 0) {
        fprintf(stderr, "genconfig: cannot rename %s to %s: %s\n", tmp, out, strerror(errno));
        goto err_file;
    }
    free(tmp);
    return 0;

err_file:
    unlink(tmp);
err_name:
    free(tmp);
    return -1;
}

/* genconfig_report: print every error as "file:line: message", as compilers do. */
static void genconfig_report(const struct conf_errors *errs, const char *in, const char *out)
{
    for (unsigned i = 0; i < errs->count; i++) {
        const struct conf_error *e = &errs->list[i];

        fprintf(stderr, "%s:%u: %s\n", e->file, e->line, e->msg);
    }
    if (errs->dropped != 0) {
        fprintf(stderr, "%s: %u more errors not shown\n", in, errs->dropped);
    }
    fprintf(stderr, "%s: %u error%s, %s not written\n", in, errs->count + errs->dropped,
            errs->count + errs->dropped == 1 ? "" : "s", out);
}

int main(int argc, char **argv)
{
    static struct conf_values values; /* ~11 KiB: keep it off the stack */
    static struct conf_errors errs;
    size_t len;
    char *text;
    int rc;

    if (argc == 2 && strcmp(argv[1], "--doc") == 0) {
        return conf_emit_doc(stdout) == 0 && fflush(stdout) == 0 ? 0 : 1;
    }
    if (argc != 3 || argv[1][0] == '-') {
        fprintf(stderr, "usage: genconfig <in.conf> <out.h>\n"
                        "       genconfig --doc\n");
        return 2;
    }
    text = genconfig_read(argv[1], &len);
    if (text == NULL) {
        return 1;
    }
    rc = conf_parse(argv[1], text, len, &values, &errs);
    free(text);
    if (rc != 0) {
        genconfig_report(&errs, argv[1], argv[2]);
        return 1;
    }
    return genconfig_write(&values, argv[2]) == 0 ? 0 : 1;
}

/* job.c - reading, parsing and validating a job description file. */
#include <stdio.h>
#include <string.h>

#include "printer.h"

static const char *const kind_names[] = { "print", "copy", "scan", "fax" };
static const char *const mode_names[] = { "mono", "color" };
static const char *const compress_names[] = { "none", "rle", "lz" };
static const char *const content_names[] = { "text", "image", "mixed" };

void job_init(struct job *job)
{
    memset(job, 0, sizeof *job);
    snprintf(job->name, sizeof job->name, "%s", "job");
    job->kind = KIND_PRINT;
    job->pages = 1;
    job->mode = MODE_MONO;
    job->nup = 1;
    job->compress = COMP_RLE;
    job->content = CONTENT_TEXT;
}

void job_error(struct job *job, int lineno, const char *msg, const char *detail)
{
    job->error_line = lineno;
    snprintf(job->error, sizeof job->error, "%s '%s'", msg, detail);
}

int job_parse_enum(const char *value, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(value, names[i]) == 0)
            return i;
    return -1;
}

#define SET_ENUM(field, table)                                              \
    do {                                                                    \
        int v_ = job_parse_enum(value, table, (int)(sizeof table / sizeof table[0])); \
        if (v_ < 0) {                                                       \
            job_error(job, lineno, "bad value for " #field, value);         \
            return -1;                                                      \
        }                                                                   \
        job->field = v_;                                                    \
    } while (0)

#define SET_INT(field)                                                      \
    do {                                                                    \
        if (util_parse_int(value, &job->field) != 0) {                      \
            job_error(job, lineno, "not a number for " #field, value);      \
            return -1;                                                      \
        }                                                                   \
    } while (0)

#define SET_STR(field) snprintf(job->field, sizeof job->field, "%s", value)

int job_set_field(struct job *job, const char *key, const char *value, int lineno)
{
    if (strcmp(key, "name") == 0)
        SET_STR(name);
    else if (strcmp(key, "kind") == 0)
        SET_ENUM(kind, kind_names);
    else if (strcmp(key, "pages") == 0)
        SET_INT(pages);
    else if (strcmp(key, "mode") == 0)
        SET_ENUM(mode, mode_names);
    else if (strcmp(key, "duplex") == 0)
        SET_INT(duplex);
    else if (strcmp(key, "nup") == 0)
        SET_INT(nup);
    else if (strcmp(key, "compress") == 0)
        SET_ENUM(compress, compress_names);
    else if (strcmp(key, "content") == 0)
        SET_ENUM(content, content_names);
    else if (strcmp(key, "text") == 0)
        SET_STR(text);
    else if (strcmp(key, "watermark") == 0)
        SET_STR(watermark);
    else if (strcmp(key, "number") == 0)
        SET_STR(number);
    else {
        job_error(job, lineno, "unknown key", key);
        return -1;
    }
    return 0;
}

int job_parse_line(struct job *job, char *line, int lineno)
{
    char *s = util_trim(line);
    if (*s == '\0' || *s == '#')
        return 0;
    char *eq = strchr(s, '=');
    if (!eq) {
        job_error(job, lineno, "expected key=value, got", s);
        return -1;
    }
    *eq = '\0';
    char *key = util_trim(s);
    char *value = util_trim(eq + 1);
    return job_set_field(job, key, value, lineno);
}

int job_load(struct job *job, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        job_error(job, 0, "cannot open job file", path);
        return -1;
    }
    char line[512];
    int lineno = 0;
    int rc = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        lineno++;
        rc = job_parse_line(job, line, lineno);
    }
    fclose(f);
    return rc;
}

int job_validate(struct job *job)
{
    if (job->pages < 1 || job->pages > 16) {
        char buf[16];
        snprintf(buf, sizeof buf, "%d", job->pages);
        job_error(job, 0, "pages out of range 1..16:", buf);
        return -1;
    }
    if (job->nup != 1 && job->nup != 2 && job->nup != 4) {
        char buf[16];
        snprintf(buf, sizeof buf, "%d", job->nup);
        job_error(job, 0, "nup must be 1, 2 or 4:", buf);
        return -1;
    }
    if (job->duplex != 0 && job->duplex != 1) {
        char buf[16];
        snprintf(buf, sizeof buf, "%d", job->duplex);
        job_error(job, 0, "duplex must be 0 or 1:", buf);
        return -1;
    }
    if (job->kind == KIND_FAX && job->number[0] == '\0') {
        job_error(job, 0, "fax job needs a number", "");
        return -1;
    }
    return 0;
}

void job_page_text(const struct job *job, int page, char *out, size_t outsz)
{
    snprintf(out, outsz, "P%d/%d %s", page + 1, job->pages, job->text);
}

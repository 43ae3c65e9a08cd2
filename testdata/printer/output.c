/* output.c - the spooler (page description stream kept in memory, with a
 * running CRC), scan-to-file and the fax line. */
#include <stdio.h>
#include <string.h>

#include "printer.h"

void spool_write(struct spool *sp, const void *data, size_t n)
{
    if (sp->len + n > sp->cap) {
        size_t cap = sp->cap ? sp->cap : 1024;
        while (cap < sp->len + n)
            cap *= 2;
        uint8_t *p = xmalloc(cap);
        if (sp->len)
            memcpy(p, sp->data, sp->len);
        xfree(sp->data);
        sp->data = p;
        sp->cap = cap;
    }
    memcpy(sp->data + sp->len, data, n);
    sp->len += n;
    sp->crc = util_crc32(sp->crc, data, n);
}

void output_open(struct spool *sp, const struct job *job)
{
    char hdr[96];
    memset(sp, 0, sizeof *sp);
    int n = snprintf(hdr, sizeof hdr, "@PJL JOB NAME=\"%s\" MODE=%s\n", job->name,
                     job->mode == MODE_COLOR ? "COLOR" : "MONO");
    spool_write(sp, hdr, (size_t)n);
}

void output_side_begin(struct spool *sp, int side, int plane_count)
{
    uint8_t hdr[4] = { 'S', (uint8_t)side, (uint8_t)plane_count, 0 };
    spool_write(sp, hdr, sizeof hdr);
    sp->sides++;
}

void output_band(struct spool *sp, const uint8_t *data, size_t n)
{
    uint8_t hdr[3] = { 'B', (uint8_t)(n >> 8), (uint8_t)n };
    spool_write(sp, hdr, sizeof hdr);
    spool_write(sp, data, n);
    sp->bands++;
}

void output_side_end(struct spool *sp)
{
    spool_write(sp, "\f", 1);
}

void output_blank_side(struct spool *sp)
{
    output_side_begin(sp, sp->sides, 0);
    output_side_end(sp);
}

void output_duplex_flip(struct spool *sp)
{
    spool_write(sp, "@FLIP\n", 6);
}

void output_close(struct spool *sp)
{
    spool_write(sp, "@PJL EOJ\n", 9);
}

void output_store_scan(struct spool *sp, const struct job *job)
{
    char hdr[64];
    int n = snprintf(hdr, sizeof hdr, "SCAN2FILE %s.pdf pages=%d\n", job->name, job->pages);
    spool_write(sp, hdr, (size_t)n);
}

int fax_dial(const char *number)
{
    int line = 0;
    for (const char *p = number; *p; p++)
        line = (line * 10 + (*p - '0')) % 97;
    return line;
}

void fax_send_page(struct spool *sp, const uint8_t *data, size_t n, int page)
{
    uint8_t hdr[4] = { 'F', (uint8_t)page, (uint8_t)(n >> 8), (uint8_t)n };
    spool_write(sp, hdr, sizeof hdr);
    spool_write(sp, data, n);
    sp->sides++;
}

void fax_hangup(int line)
{
    printf("fax: line %d released\n", line);
}

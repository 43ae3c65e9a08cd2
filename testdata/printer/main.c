/* printer - a toy multifunction printer: print, copy, scan and fax jobs.
 *
 * Usage:  printer JOBFILE        (see printer.h for the job file format)
 * Build (from the repository root):
 *   gcc -g -O0 -finstrument-functions testdata/printer/[a-z]*.c runtime/calltrace.c -o printer
 * Exit status: 0 on success, 1 for a bad job (an error sheet is printed),
 *              2 for a usage error.
 */
#include <stdio.h>
#include <string.h>

#include "printer.h"

static const struct rgb BLACK = { 0, 0, 0 };
static const struct rgb HEADER_MONO = { 96, 96, 96 };
static const struct rgb HEADER_COLOR = { 40, 80, 200 };

/* screens, compresses and spools one sheet side, band by band */
void emit_side(const struct job *job, struct raster *r, int has_image, struct spool *sp)
{
    int nplanes = job->mode == MODE_COLOR ? 4 : 1;
    uint8_t chan[4][PAGE_W], bits[PAGE_W], packed[ROW_BYTES];
    uint8_t *planes[4] = { chan[0], chan[1], chan[2], chan[3] };
    uint8_t band[4][BAND_ROWS * (2 * ROW_BYTES + 2)];
    size_t band_len[4] = { 0, 0, 0, 0 };

    output_side_begin(sp, sp->sides, nplanes);
    for (int y = 0; y < r->h; y++) {
        const struct rgb *row = &r->px[y * r->w];
        if (nplanes == 1)
            color_to_gray_row(row, r->w, chan[0]);
        else
            color_convert_row(row, r->w, planes);
        for (int p = 0; p < nplanes; p++) {
            if (has_image)
                raster_halftone_row(chan[p], r->w, y, bits);
            else
                raster_threshold_row(chan[p], r->w, bits);
            raster_pack_bits(bits, r->w, packed);
            band_len[p] += compress_row(job->compress, packed, ROW_BYTES, band[p] + band_len[p]);
        }
        if ((y + 1) % BAND_ROWS == 0 || y + 1 == r->h) {
            for (int p = 0; p < nplanes; p++) {
                output_band(sp, band[p], band_len[p]);
                band_len[p] = 0;
            }
        }
    }
    output_side_end(sp);
}

void render_logical_page(const struct job *job, int page, struct raster *r)
{
    char text[300];
    char lines[MAX_LINES][LINE_CHARS + 1];
    struct rect header = { 0, 0, PAGE_W, HEADER_H - 2 };
    int maxlines = job->content == CONTENT_TEXT ? MAX_LINES
                 : job->content == CONTENT_MIXED ? 3 : 1;

    raster_clear(r);
    raster_fill_rect(r, &header, job->mode == MODE_COLOR ? HEADER_COLOR : HEADER_MONO);
    job_page_text(job, page, text, sizeof text);
    int n = layout_wrap_text(text, lines, maxlines);
    for (int i = 0; i < n; i++)
        raster_draw_text(r, MARGIN, HEADER_H + i * CELL_H, lines[i], BLACK);
    if (job->content != CONTENT_TEXT) {
        struct rect img;
        layout_image_rect(job, &img);
        raster_draw_image(r, &img, page);
    }
}

void process_print(const struct job *job, struct spool *sp)
{
    struct raster *sheet = raster_new(PAGE_W, PAGE_H);
    struct raster *logical = job->nup > 1 ? raster_new(PAGE_W, PAGE_H) : NULL;
    int sides = layout_sheet_sides(job);

    for (int side = 0; side < sides; side++) {
        int back = job->duplex && side % 2 == 1;
        if (back)
            output_duplex_flip(sp);
        int first = layout_side_first_page(job, side);
        if (first < 0) {
            output_blank_side(sp);
            continue;
        }
        if (job->nup == 1) {
            render_logical_page(job, first, sheet);
        } else {
            raster_clear(sheet);
            for (int slot = 0; slot < job->nup && first + slot < job->pages; slot++) {
                struct rect tile;
                render_logical_page(job, first + slot, logical);
                layout_tile_rect(job, slot, &tile);
                for (int ty = 0; ty < tile.h; ty++)
                    raster_downscale_row(logical, sheet, &tile, ty);
            }
        }
        if (job->watermark[0])
            raster_draw_watermark(sheet, job->watermark);
        if (back)
            raster_rotate_180(sheet);
        emit_side(job, sheet, job->content != CONTENT_TEXT, sp);
    }
    if (logical)
        raster_free(logical);
    raster_free(sheet);
}

void process_copy(const struct job *job, struct spool *sp)
{
    struct raster *r = raster_new(PAGE_W, PAGE_H);
    int gain;
    scan_calibrate(&gain);
    for (int page = 0; page < job->pages; page++) {
        scan_acquire_page(r, page, gain);
        emit_side(job, r, 1, sp);
    }
    raster_free(r);
}

void process_scan(const struct job *job, struct spool *sp)
{
    struct raster *r = raster_new(PAGE_W, PAGE_H);
    int gain;
    output_store_scan(sp, job);
    scan_calibrate(&gain);
    for (int page = 0; page < job->pages; page++) {
        scan_acquire_page(r, page, gain);
        emit_side(job, r, 0, sp);
    }
    raster_free(r);
}

void process_fax(const struct job *job, struct spool *sp)
{
    struct raster *r = raster_new(PAGE_W, PAGE_H);
    uint8_t gray[PAGE_W], bits[PAGE_W];
    uint8_t *coded = xmalloc(PAGE_H * (2 * PAGE_W + 2));
    int gain;
    int line = fax_dial(job->number);
    scan_calibrate(&gain);
    for (int page = 0; page < job->pages; page++) {
        size_t n = 0;
        scan_acquire_page(r, page, gain);
        for (int y = 0; y < r->h; y++) {
            color_to_gray_row(&r->px[y * r->w], r->w, gray);
            raster_threshold_row(gray, r->w, bits);
            memset(coded + n, 0, 2 * PAGE_W + 2);
            n += fax_encode_g3(bits, r->w, coded + n);
        }
        fax_send_page(sp, coded, n, page);
    }
    fax_hangup(line);
    xfree(coded);
    raster_free(r);
}

void report_error(const struct job *job)
{
    if (job->error_line > 0)
        fprintf(stderr, "printer: job line %d: %s\n", job->error_line, job->error);
    else
        fprintf(stderr, "printer: %s\n", job->error);
}

/* a bad job still produces a (mono, one side) sheet with the error */
void print_error_sheet(const struct job *job, struct spool *sp)
{
    struct job errjob = *job;
    char lines[MAX_LINES][LINE_CHARS + 1];
    struct raster *r = raster_new(PAGE_W, PAGE_H);

    errjob.mode = MODE_MONO;
    errjob.compress = COMP_RLE;
    raster_clear(r);
    raster_draw_text(r, MARGIN, MARGIN, "JOB ERROR", BLACK);
    int n = layout_wrap_text(job->error, lines, MAX_LINES - 2);
    for (int i = 0; i < n; i++)
        raster_draw_text(r, MARGIN, MARGIN + (i + 1) * CELL_H, lines[i], BLACK);
    n = layout_wrap_text("Please correct the job file.", lines, 1);
    for (int i = 0; i < n; i++)
        raster_draw_text(r, MARGIN, PAGE_H - CELL_H, lines[i], BLACK);
    emit_side(&errjob, r, 0, sp);
    raster_free(r);
}

void print_summary(const struct job *job, const struct spool *sp)
{
    static const char *const kinds[] = { "print", "copy", "scan", "fax" };
    printf("%s: %s sides=%d bands=%d bytes=%zu crc=%08x\n", job->name,
           job->error[0] ? "error" : kinds[job->kind], sp->sides, sp->bands, sp->len,
           (unsigned)sp->crc);
}

int run_job(const char *path)
{
    struct job job;
    struct spool sp;
    int rc = 0;

    job_init(&job);
    if (job_load(&job, path) != 0 || job_validate(&job) != 0) {
        report_error(&job);
        output_open(&sp, &job);
        print_error_sheet(&job, &sp);
        rc = 1;
    } else {
        output_open(&sp, &job);
        switch (job.kind) {
        case KIND_COPY:
            process_copy(&job, &sp);
            break;
        case KIND_SCAN:
            process_scan(&job, &sp);
            break;
        case KIND_FAX:
            process_fax(&job, &sp);
            break;
        default:
            process_print(&job, &sp);
            break;
        }
    }
    output_close(&sp);
    print_summary(&job, &sp);
    xfree(sp.data);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s JOBFILE\n", argv[0]);
        return 2;
    }
    return run_job(argv[1]);
}

/* printer.h - shared declarations of the toy multifunction-printer pipeline.
 *
 * The "printer" reads one job description file and runs it through the
 * pipeline  job -> layout -> raster -> color -> compress -> output,
 * entirely in memory (nothing is written to disk; the spooled byte count and
 * a CRC are printed at the end).  Everything is deterministic.
 *
 * Job file: one "key=value" per line, '#' starts a comment line.
 *   name=<word>                 job name (default "job")
 *   kind=print|copy|scan|fax    default print
 *   pages=<1..16>               logical pages (default 1)
 *   mode=mono|color             default mono
 *   duplex=0|1                  default 0
 *   nup=1|2|4                   logical pages per sheet side (default 1)
 *   compress=none|rle|lz        default rle (fax always uses its own G3 coder)
 *   content=text|image|mixed    default text
 *   text=<rest of line>         text printed on every page
 *   watermark=<word>            optional diagonal watermark
 *   number=<digits>             fax destination (kind=fax only)
 */
#ifndef PRINTER_H
#define PRINTER_H

#include <stddef.h>
#include <stdint.h>

#define PAGE_W 64            /* pixels (small: keeps the committed traces small) */
#define PAGE_H 36
#define ROW_BYTES (PAGE_W / 8)
#define BAND_ROWS 8
#define GLYPH_W 5
#define GLYPH_H 7
#define CELL_W 6
#define CELL_H 9
#define MARGIN 4
#define HEADER_H 8
#define MAX_LINES 3           /* text lines that fit below the header */
#define LINE_CHARS ((PAGE_W - 2 * MARGIN) / CELL_W)

enum job_kind { KIND_PRINT, KIND_COPY, KIND_SCAN, KIND_FAX };
enum color_mode { MODE_MONO, MODE_COLOR };
enum compress_kind { COMP_NONE, COMP_RLE, COMP_LZ };
enum content_kind { CONTENT_TEXT, CONTENT_IMAGE, CONTENT_MIXED };

struct job {
    char name[32];
    int kind;
    int pages;
    int mode;
    int duplex;
    int nup;
    int compress;
    int content;
    char text[256];
    char watermark[32];
    char number[32];
    int error_line;
    char error[128];
};

struct rgb {
    uint8_t r, g, b;
};

struct raster {
    int w, h;
    struct rgb *px;
};

struct rect {
    int x, y, w, h;
};

struct spool {
    uint8_t *data;
    size_t len, cap;
    uint32_t crc;
    int sides;
    int bands;
};

/* main.c */
int run_job(const char *path);
void process_print(const struct job *job, struct spool *sp);
void process_copy(const struct job *job, struct spool *sp);
void process_scan(const struct job *job, struct spool *sp);
void process_fax(const struct job *job, struct spool *sp);
void render_logical_page(const struct job *job, int page, struct raster *r);
void emit_side(const struct job *job, struct raster *r, int has_image, struct spool *sp);
void report_error(const struct job *job);
void print_error_sheet(const struct job *job, struct spool *sp);
void print_summary(const struct job *job, const struct spool *sp);

/* job.c */
void job_init(struct job *job);
int job_load(struct job *job, const char *path);
int job_parse_line(struct job *job, char *line, int lineno);
int job_set_field(struct job *job, const char *key, const char *value, int lineno);
int job_parse_enum(const char *value, const char *const *names, int n);
int job_validate(struct job *job);
void job_error(struct job *job, int lineno, const char *msg, const char *detail);
void job_page_text(const struct job *job, int page, char *out, size_t outsz);

/* layout.c */
int layout_sheet_sides(const struct job *job);
int layout_side_first_page(const struct job *job, int side);
void layout_tile_rect(const struct job *job, int slot, struct rect *out);
int layout_wrap_text(const char *text, char lines[][LINE_CHARS + 1], int maxlines);
int layout_next_word(const char *text, int pos, int *start, int *len);
void layout_image_rect(const struct job *job, struct rect *out);

/* raster.c */
struct raster *raster_new(int w, int h);
void raster_free(struct raster *r);
void raster_clear(struct raster *r);
void raster_fill_rect(struct raster *r, const struct rect *rc, struct rgb c);
void raster_draw_text(struct raster *r, int x, int y, const char *s, struct rgb c);
void raster_draw_glyph(struct raster *r, int x, int y, char ch, struct rgb c);
void raster_glyph_bits(char ch, uint8_t rows[GLYPH_H]);
void raster_put_pixel(struct raster *r, int x, int y, struct rgb c);
void raster_draw_image(struct raster *r, const struct rect *rc, int page);
void raster_image_row(int y, int w, int page, struct rgb *out);
void raster_downscale_row(const struct raster *src, struct raster *dst, const struct rect *tile, int ty);
void raster_rotate_180(struct raster *r);
void raster_draw_watermark(struct raster *r, const char *text);
void raster_threshold_row(const uint8_t *in, int w, uint8_t *bits);
void raster_halftone_row(const uint8_t *in, int w, int y, uint8_t *bits);
void raster_pack_bits(const uint8_t *bits, int w, uint8_t *packed);
void scan_calibrate(int *gain);
void scan_acquire_page(struct raster *r, int page, int gain);
void scan_read_line(struct rgb *row, int w, int y, int page, int gain);

/* color.c */
void color_to_gray_row(const struct rgb *in, int w, uint8_t *gray);
void color_convert_row(const struct rgb *in, int w, uint8_t *planes[4]);
void color_rgb_to_cmyk(struct rgb c, uint8_t cmyk[4]);
uint8_t color_luma(struct rgb c);

/* compress.c */
size_t compress_row(int kind, const uint8_t *in, size_t n, uint8_t *out);
size_t compress_none_copy(const uint8_t *in, size_t n, uint8_t *out);
size_t rle_encode(const uint8_t *in, size_t n, uint8_t *out);
size_t rle_emit_run(uint8_t *out, int literal, const uint8_t *src, size_t len);
size_t lz_encode(const uint8_t *in, size_t n, uint8_t *out);
size_t lz_find_match(const uint8_t *in, size_t n, size_t pos, size_t *dist);
size_t lz_emit_literal(uint8_t *out, uint8_t b);
size_t lz_emit_match(uint8_t *out, size_t dist, size_t len);
size_t fax_encode_g3(const uint8_t *bits, int w, uint8_t *out);
size_t fax_code_run(int run, int black, uint8_t *out, size_t pos);
size_t fax_put_bits(uint8_t *out, size_t pos, uint32_t code, int nbits);

/* output.c */
void output_open(struct spool *sp, const struct job *job);
void output_side_begin(struct spool *sp, int side, int plane_count);
void output_band(struct spool *sp, const uint8_t *data, size_t n);
void output_side_end(struct spool *sp);
void output_blank_side(struct spool *sp);
void output_duplex_flip(struct spool *sp);
void output_close(struct spool *sp);
void spool_write(struct spool *sp, const void *data, size_t n);
void output_store_scan(struct spool *sp, const struct job *job);
int fax_dial(const char *number);
void fax_send_page(struct spool *sp, const uint8_t *data, size_t n, int page);
void fax_hangup(int line);

/* util.c */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void xfree(void *p);
int util_min(int a, int b);
int util_max(int a, int b);
int util_clamp(int v, int lo, int hi);
uint32_t util_crc32(uint32_t crc, const uint8_t *data, size_t n);
uint32_t util_lcg_next(uint32_t *state);
char *util_trim(char *s);
int util_parse_int(const char *s, int *out);

#endif

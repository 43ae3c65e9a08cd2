/* raster.c - page bitmaps: text, images, n-up scaling, rotation,
 * screening (threshold / ordered dither) and the scanner front end. */
#include <string.h>

#include "printer.h"

struct raster *raster_new(int w, int h)
{
    struct raster *r = xmalloc(sizeof *r);
    r->w = w;
    r->h = h;
    r->px = xcalloc((size_t)w * (size_t)h, sizeof *r->px);
    return r;
}

void raster_free(struct raster *r)
{
    xfree(r->px);
    xfree(r);
}

void raster_clear(struct raster *r)
{
    memset(r->px, 0xff, (size_t)r->w * (size_t)r->h * sizeof *r->px);
}

void raster_fill_rect(struct raster *r, const struct rect *rc, struct rgb c)
{
    int x1 = util_min(rc->x + rc->w, r->w);
    int y1 = util_min(rc->y + rc->h, r->h);
    for (int y = util_max(rc->y, 0); y < y1; y++)
        for (int x = util_max(rc->x, 0); x < x1; x++)
            r->px[y * r->w + x] = c;
}

void raster_put_pixel(struct raster *r, int x, int y, struct rgb c)
{
    if (x >= 0 && y >= 0 && x < r->w && y < r->h)
        r->px[y * r->w + x] = c;
}

/* toy 5x7 font: the bitmap of a character is derived from its code */
void raster_glyph_bits(char ch, uint8_t rows[GLYPH_H])
{
    uint32_t h = (uint32_t)(unsigned char)ch * 2654435761u;
    for (int i = 0; i < GLYPH_H; i++) {
        if (ch == ' ')
            rows[i] = 0;
        else if (ch == '/' || ch == '.' || ch == '-')
            rows[i] = (uint8_t)(1u << (i * GLYPH_W / GLYPH_H));
        else
            rows[i] = (uint8_t)(((h >> (i * 3)) & 0x0e) | (i == 0 || i == GLYPH_H - 1 ? 0x11 : 0));
    }
}

void raster_draw_glyph(struct raster *r, int x, int y, char ch, struct rgb c)
{
    uint8_t rows[GLYPH_H];
    raster_glyph_bits(ch, rows);
    for (int gy = 0; gy < GLYPH_H; gy++)
        for (int gx = 0; gx < GLYPH_W; gx++)
            if (rows[gy] & (1u << (GLYPH_W - 1 - gx)))
                raster_put_pixel(r, x + gx, y + gy, c);
}

void raster_draw_text(struct raster *r, int x, int y, const char *s, struct rgb c)
{
    for (; *s; s++, x += CELL_W)
        if (*s != ' ')
            raster_draw_glyph(r, x, y, *s, c);
}

/* synthetic photo: colour gradient in 8-pixel steps with a dark disc */
void raster_image_row(int y, int w, int page, struct rgb *out)
{
    for (int x = 0; x < w; x++) {
        int dx = x - w / 2, dy = 2 * (y - 12);
        int step = (x / 8) * 8;
        out[x].r = (uint8_t)(step * 255 / w);
        out[x].g = (uint8_t)((y * 8) & 0xff);
        out[x].b = (uint8_t)((page * 64 + 96) & 0xff);
        if (dx * dx + dy * dy < 144) {
            out[x].r /= 4;
            out[x].g /= 4;
            out[x].b /= 4;
        }
    }
}

void raster_draw_image(struct raster *r, const struct rect *rc, int page)
{
    struct rgb row[PAGE_W];
    for (int y = 0; y < rc->h; y++) {
        raster_image_row(y, rc->w, page, row);
        memcpy(&r->px[(rc->y + y) * r->w + rc->x], row, (size_t)rc->w * sizeof row[0]);
    }
}

/* one row of a half-size copy of src into the tile rectangle of dst */
void raster_downscale_row(const struct raster *src, struct raster *dst, const struct rect *tile, int ty)
{
    const struct rgb *a = &src->px[(2 * ty) * src->w];
    const struct rgb *b = &src->px[(2 * ty + 1) * src->w];
    struct rgb *o = &dst->px[(tile->y + ty) * dst->w + tile->x];
    for (int tx = 0; tx < tile->w; tx++) {
        int i = 2 * tx;
        o[tx].r = (uint8_t)((a[i].r + a[i + 1].r + b[i].r + b[i + 1].r) / 4);
        o[tx].g = (uint8_t)((a[i].g + a[i + 1].g + b[i].g + b[i + 1].g) / 4);
        o[tx].b = (uint8_t)((a[i].b + a[i + 1].b + b[i].b + b[i + 1].b) / 4);
    }
}

/* back sides of duplex sheets are printed upside down */
void raster_rotate_180(struct raster *r)
{
    size_t n = (size_t)r->w * (size_t)r->h;
    for (size_t i = 0; i < n / 2; i++) {
        struct rgb t = r->px[i];
        r->px[i] = r->px[n - 1 - i];
        r->px[n - 1 - i] = t;
    }
}

void raster_draw_watermark(struct raster *r, const char *text)
{
    const struct rgb grey = { 160, 160, 160 };
    int n = (int)strlen(text);
    for (int i = 0; i < n; i++)
        raster_draw_glyph(r, 8 + i * 8, PAGE_H - 12 - i * 5, text[i], grey);
}

void raster_threshold_row(const uint8_t *in, int w, uint8_t *bits)
{
    for (int x = 0; x < w; x++)
        bits[x] = in[x] < 128;
}

/* 4x4 ordered dither (Bayer) */
void raster_halftone_row(const uint8_t *in, int w, int y, uint8_t *bits)
{
    static const uint8_t bayer[4][4] = {
        { 0, 8, 2, 10 }, { 12, 4, 14, 6 }, { 3, 11, 1, 9 }, { 15, 7, 13, 5 }
    };
    for (int x = 0; x < w; x++)
        bits[x] = in[x] < bayer[y & 3][x & 3] * 16 + 8;
}

void raster_pack_bits(const uint8_t *bits, int w, uint8_t *packed)
{
    memset(packed, 0, (size_t)(w + 7) / 8);
    for (int x = 0; x < w; x++)
        if (bits[x])
            packed[x / 8] |= (uint8_t)(0x80u >> (x % 8));
}

/* scanner: measure the white reference strip to find the gain */
void scan_calibrate(int *gain)
{
    uint32_t state = 12345u;
    int sum = 0;
    for (int i = 0; i < 16; i++)
        sum += 240 + (int)(util_lcg_next(&state) % 16);
    *gain = util_clamp(255 * 16 * 16 / sum, 16, 32);
}

/* scanner: one sensor line of a synthetic document (text-like bars,
 * a framed photo area, sensor noise) */
void scan_read_line(struct rgb *row, int w, int y, int page, int gain)
{
    uint32_t state = (uint32_t)(page * 1000 + y);
    uint32_t noise = util_lcg_next(&state);
    int texty = y > PAGE_H / 10 && y < PAGE_H / 2 && (y % 9) < 7;
    for (int x = 0; x < w; x++) {
        int v = 250;
        if (texty && x > 6 && x < w - 6 && ((x + y + page) / 5) % 3 != 0)
            v = 30;
        if (y >= PAGE_H * 7 / 12 && y < PAGE_H * 15 / 16 && x >= 20 && x < w - 20)
            v = 60 + ((x / 8) * 24 + (y / 4) * 8) % 160;
        v = v * gain / 16 - (int)((noise >> ((x / 16) % 24)) & 7);
        if (v < 0)
            v = 0;
        if (v > 255)
            v = 255;
        row[x].r = row[x].g = row[x].b = (uint8_t)v;
    }
}

void scan_acquire_page(struct raster *r, int page, int gain)
{
    for (int y = 0; y < r->h; y++)
        scan_read_line(&r->px[y * r->w], r->w, y, page, gain);
}

/* color.c - colour conversion: RGB -> gray (mono jobs) and RGB -> CMYK. */
#include "printer.h"

uint8_t color_luma(struct rgb c)
{
    return (uint8_t)((77 * c.r + 150 * c.g + 29 * c.b) >> 8);
}

/* the last converted colour is cached: runs of equal pixels convert once */
void color_to_gray_row(const struct rgb *in, int w, uint8_t *gray)
{
    struct rgb last = { 255, 255, 255 };
    uint8_t last_gray = 255;
    for (int x = 0; x < w; x++) {
        if (in[x].r != last.r || in[x].g != last.g || in[x].b != last.b) {
            last = in[x];
            last_gray = color_luma(last);
        }
        gray[x] = last_gray;
    }
}

void color_rgb_to_cmyk(struct rgb c, uint8_t cmyk[4])
{
    int max = util_max(util_max(c.r, c.g), c.b);
    int k = 255 - max;
    if (max == 0) {
        cmyk[0] = cmyk[1] = cmyk[2] = 0;
    } else {
        cmyk[0] = (uint8_t)((max - c.r) * 255 / max);
        cmyk[1] = (uint8_t)((max - c.g) * 255 / max);
        cmyk[2] = (uint8_t)((max - c.b) * 255 / max);
    }
    cmyk[3] = (uint8_t)k;
}

/* planes[p][x] is the ink coverage 0..255; the screening step expects
 * "dark" = low values, so coverage is stored inverted */
void color_convert_row(const struct rgb *in, int w, uint8_t *planes[4])
{
    struct rgb last = { 255, 255, 255 };
    uint8_t cmyk[4] = { 0, 0, 0, 0 };
    for (int x = 0; x < w; x++) {
        if (in[x].r != last.r || in[x].g != last.g || in[x].b != last.b) {
            last = in[x];
            color_rgb_to_cmyk(last, cmyk);
        }
        for (int p = 0; p < 4; p++)
            planes[p][x] = (uint8_t)(255 - cmyk[p]);
    }
}

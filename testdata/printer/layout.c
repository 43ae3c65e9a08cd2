/* layout.c - sheet sides, n-up tiles, text wrapping, image placement. */
#include <string.h>

#include "printer.h"

/* number of physical sheet sides to print, including a blank back side
 * when a duplex job ends on a front side */
int layout_sheet_sides(const struct job *job)
{
    int sides = (job->pages + job->nup - 1) / job->nup;
    if (job->duplex && sides % 2 == 1)
        sides++;
    return sides;
}

/* first logical page on a side, or -1 for a blank side */
int layout_side_first_page(const struct job *job, int side)
{
    int first = side * job->nup;
    return first < job->pages ? first : -1;
}

void layout_tile_rect(const struct job *job, int slot, struct rect *out)
{
    out->w = PAGE_W / 2;
    out->h = PAGE_H / 2;
    if (job->nup == 2) {
        out->x = PAGE_W / 4;
        out->y = slot * (PAGE_H / 2);
    } else {
        out->x = (slot % 2) * (PAGE_W / 2);
        out->y = (slot / 2) * (PAGE_H / 2);
    }
}

/* finds the next word at or after pos; returns the position after it,
 * or -1 when there are no more words */
int layout_next_word(const char *text, int pos, int *start, int *len)
{
    while (text[pos] == ' ')
        pos++;
    if (text[pos] == '\0')
        return -1;
    *start = pos;
    while (text[pos] != '\0' && text[pos] != ' ')
        pos++;
    *len = pos - *start;
    return pos;
}

/* greedy word wrap; words longer than a line are cut */
int layout_wrap_text(const char *text, char lines[][LINE_CHARS + 1], int maxlines)
{
    int n = 0, col = 0, pos = 0, start, len;
    lines[0][0] = '\0';
    while (n < maxlines && (pos = layout_next_word(text, pos, &start, &len)) >= 0) {
        len = util_min(len, LINE_CHARS);
        if (col > 0 && col + 1 + len > LINE_CHARS) {
            if (++n == maxlines)
                break;
            col = 0;
            lines[n][0] = '\0';
        }
        if (col > 0)
            lines[n][col++] = ' ';
        memcpy(&lines[n][col], &text[start], (size_t)len);
        col += len;
        lines[n][col] = '\0';
    }
    return n < maxlines ? n + 1 : maxlines;
}

void layout_image_rect(const struct job *job, struct rect *out)
{
    out->x = MARGIN;
    out->w = PAGE_W - 2 * MARGIN;
    if (job->content == CONTENT_IMAGE) {
        /* below the header and one caption line */
        out->y = HEADER_H + MARGIN + CELL_H;
        out->h = PAGE_H - out->y - MARGIN;
    } else { /* mixed: text on top, picture in the lower half */
        out->y = PAGE_H / 2 + MARGIN;
        out->h = PAGE_H / 2 - 2 * MARGIN;
    }
}

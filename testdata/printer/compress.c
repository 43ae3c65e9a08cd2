/* compress.c - band compression: none, run-length (PackBits style),
 * a small LZ77, and a toy Group 3 (modified Huffman) fax coder.
 * All encoders write at most 2*n + 2 bytes for n input bytes. */
#include <string.h>

#include "printer.h"

size_t compress_none_copy(const uint8_t *in, size_t n, uint8_t *out)
{
    memcpy(out, in, n);
    return n;
}

/* literal run: header len-1 (0..127) then the bytes;
 * repeat run: header 257-len (129..255) then one byte */
size_t rle_emit_run(uint8_t *out, int literal, const uint8_t *src, size_t len)
{
    if (literal) {
        out[0] = (uint8_t)(len - 1);
        memcpy(out + 1, src, len);
        return len + 1;
    }
    out[0] = (uint8_t)(257 - len);
    out[1] = src[0];
    return 2;
}

size_t rle_encode(const uint8_t *in, size_t n, uint8_t *out)
{
    size_t o = 0, i = 0, lit = 0;
    while (i < n) {
        size_t run = 1;
        while (i + run < n && run < 128 && in[i + run] == in[i])
            run++;
        if (run >= 3) {
            if (lit > 0)
                o += rle_emit_run(out + o, 1, in + i - lit, lit);
            lit = 0;
            o += rle_emit_run(out + o, 0, in + i, run);
            i += run;
        } else {
            lit++;
            i++;
            if (lit == 128) {
                o += rle_emit_run(out + o, 1, in + i - lit, lit);
                lit = 0;
            }
        }
    }
    if (lit > 0)
        o += rle_emit_run(out + o, 1, in + n - lit, lit);
    return o;
}

#define LZ_WINDOW 64
#define LZ_MIN 3
#define LZ_MAX 127

size_t lz_find_match(const uint8_t *in, size_t n, size_t pos, size_t *dist)
{
    size_t best = 0;
    size_t from = pos > LZ_WINDOW ? pos - LZ_WINDOW : 0;
    for (size_t s = from; s < pos; s++) {
        size_t len = 0;
        while (pos + len < n && len < LZ_MAX && in[s + len] == in[pos + len])
            len++;
        if (len > best) {
            best = len;
            *dist = pos - s;
        }
    }
    return best;
}

size_t lz_emit_literal(uint8_t *out, uint8_t b)
{
    out[0] = 0;
    out[1] = b;
    return 2;
}

size_t lz_emit_match(uint8_t *out, size_t dist, size_t len)
{
    out[0] = (uint8_t)(0x80 | len);
    out[1] = (uint8_t)dist;
    return 2;
}

size_t lz_encode(const uint8_t *in, size_t n, uint8_t *out)
{
    size_t o = 0, pos = 0;
    while (pos < n) {
        size_t dist = 0;
        size_t len = lz_find_match(in, n, pos, &dist);
        if (len >= LZ_MIN) {
            o += lz_emit_match(out + o, dist, len);
            pos += len;
        } else {
            o += lz_emit_literal(out + o, in[pos]);
            pos++;
        }
    }
    return o;
}

size_t compress_row(int kind, const uint8_t *in, size_t n, uint8_t *out)
{
    switch (kind) {
    case COMP_RLE:
        return rle_encode(in, n, out);
    case COMP_LZ:
        return lz_encode(in, n, out);
    default:
        return compress_none_copy(in, n, out);
    }
}

/* writes nbits of code (most significant first) at bit position pos */
size_t fax_put_bits(uint8_t *out, size_t pos, uint32_t code, int nbits)
{
    for (int i = nbits - 1; i >= 0; i--, pos++) {
        if (code & (1u << i))
            out[pos / 8] |= (uint8_t)(0x80u >> (pos % 8));
        else
            out[pos / 8] &= (uint8_t)~(0x80u >> (pos % 8));
    }
    return pos;
}

/* toy modified-Huffman code: runs >= 64 get a make-up code, every run a
 * terminating code; white and black codes differ in their prefix */
size_t fax_code_run(int run, int black, uint8_t *out, size_t pos)
{
    if (run >= 64)
        pos = fax_put_bits(out, pos, 0x40u | (uint32_t)(run / 64), 7);
    return fax_put_bits(out, pos, (black ? 0x80u : 0x40u) | (uint32_t)(run % 64),
                        black ? 8 : 7);
}

/* one scan line of 0/1 pixels (1 = black); lines start with a white run */
size_t fax_encode_g3(const uint8_t *bits, int w, uint8_t *out)
{
    size_t pos = 0;
    int x = 0, black = 0;
    while (x < w) {
        int run = 0;
        while (x + run < w && bits[x + run] == black)
            run++;
        pos = fax_code_run(run, black, out, pos);
        x += run;
        black = !black;
    }
    pos = fax_put_bits(out, pos, 0x001u, 12); /* EOL */
    return (pos + 7) / 8;
}

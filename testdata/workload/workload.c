/*
 * workload.c - a deterministic, call-heavy benchmark workload for calltrace.
 *
 * It generates pseudo-English text, compresses it block by block with a
 * deflate-like codec (LZ77 with hash chains and lazy matching, then canonical
 * Huffman coding of literals/lengths and distances), decompresses every block
 * again, verifies the round trip and prints a checksum.  The work is spread
 * over many small functions (typically 20-200 ns per call), as in real code.
 *
 *   gcc -O2 -g workload.c -o workload                   # plain
 *   gcc -O2 -g -finstrument-functions workload.c calltrace.c -o workload-traced
 *   ./workload [MB]                                      # default 4
 *
 * MB is the amount of generated input text in MiB (fractions allowed, e.g.
 * 0.25).  Each MiB makes about 1.84 million trace events (0.92 million calls
 * of 60-70 ns on average uninstrumented), i.e. about 4.3 MB of binary trace or
 * 60 MB of text trace: `./workload 50` gives about 215 MB binary / 3 GB text.
 * The output (sizes and checksums) is the same for every run with the same
 * argument.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK_SIZE 65536
#define HASH_BITS 15
#define HASH_SIZE (1u << HASH_BITS)
#define MIN_MATCH 3
#define MAX_MATCH 258
#define MAX_CHAIN 32
#define WINDOW_SIZE 32768 /* largest distance the codes can express */
#define NICE_MATCH 128
#define LAZY_LIMIT 32
#define MAX_BITS 12
#define NUM_LITLEN 286 /* 0..255 literals, 256 end of block, 257..285 lengths */
#define NUM_DIST 30
#define END_BLOCK 256
#define NUM_WORDS 1024

/* ------------------------------------------------------------------ */
/* Deterministic text generator                                         */

struct rng {
    uint64_t s;
};

#define RNG_NEXT(r) ((r)->s ^= (r)->s << 13, (r)->s ^= (r)->s >> 7, (r)->s ^= (r)->s << 17, (uint32_t)((r)->s >> 11))

struct vocab {
    char word[NUM_WORDS][12];
    uint8_t len[NUM_WORDS];
};

static const char *const syllables[] = {
    "ka", "to", "re", "mi", "an", "el", "or", "us", "in", "the", "con", "per",
    "ing", "ion", "al", "er", "es", "ta", "lo", "ve", "nd", "st", "pro", "com",
};
#define NUM_SYLL (sizeof syllables / sizeof syllables[0])

static int make_word(struct rng *r, char *dst)
{
    int n = 0, parts = 1 + (int)(RNG_NEXT(r) % 3);
    while (parts-- > 0) {
        const char *s = syllables[RNG_NEXT(r) % NUM_SYLL];
        while (*s && n < 11)
            dst[n++] = *s++;
    }
    dst[n] = 0;
    return n;
}

static void build_vocab(struct vocab *v, struct rng *r)
{
    int i;
    for (i = 0; i < NUM_WORDS; i++)
        v->len[i] = (uint8_t)make_word(r, v->word[i]);
}


static size_t append_number(struct rng *r, uint8_t *dst, size_t room)
{
    char tmp[12];
    size_t n = 0, i;
    uint32_t v = RNG_NEXT(r) % 100000;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (i = 0; i < n && i < room; i++)
        dst[i] = (uint8_t)tmp[n - 1 - i];
    return i;
}

/* One sentence into dst (at most room bytes); returns bytes written. */
static size_t gen_sentence(const struct vocab *v, struct rng *r, uint8_t *dst, size_t room)
{
    size_t n = 0;
    int words = 4 + (int)(RNG_NEXT(r) % 12), w;
    for (w = 0; w < words && n < room; w++) {
        if (RNG_NEXT(r) % 16 == 0) {
            n += append_number(r, dst + n, room - n);
        } else {
            uint32_t a = RNG_NEXT(r) % NUM_WORDS, b = RNG_NEXT(r) % NUM_WORDS;
            unsigned k = a * b / NUM_WORDS, i; /* Zipf-like: small k are frequent */
            size_t start = n;
            for (i = 0; i < v->len[k] && n < room; i++)
                dst[n++] = (uint8_t)v->word[k][i];
            if (w == 0 && n > start && dst[start] >= 'a')
                dst[start] -= 32; /* capitalize the first word */
        }
        if (n < room)
            dst[n++] = (w + 1 == words) ? ".!?."[RNG_NEXT(r) % 4] : (RNG_NEXT(r) % 9 ? ' ' : ',');
    }
    if (n < room)
        dst[n++] = (RNG_NEXT(r) % 6) ? ' ' : '\n';
    return n;
}

static void fill_block(const struct vocab *v, struct rng *r, uint8_t *buf, size_t n)
{
    size_t pos = 0;
    while (pos < n)
        pos += gen_sentence(v, r, buf + pos, n - pos);
}

/* ------------------------------------------------------------------ */
/* LZ77 with hash chains and lazy matching                              */

struct seq {
    uint32_t lit_start; /* literals: data[lit_start .. lit_start+lit_len) */
    uint32_t lit_len;
    uint16_t match_len; /* 0 for the final, literal-only sequence */
    uint16_t dist;
};

struct lz {
    int32_t head[HASH_SIZE];
    int32_t prev[BLOCK_SIZE];
};

#define HASH3(p) ((((uint32_t)(p)[0] << 16 | (uint32_t)(p)[1] << 8 | (p)[2]) * 2654435761u) >> (32 - HASH_BITS))
#define INSERT(lz, data, pos)                                                                      \
    do {                                                                                           \
        uint32_t h_ = HASH3((data) + (pos));                                                       \
        (lz)->prev[pos] = (lz)->head[h_];                                                          \
        (lz)->head[h_] = (int32_t)(pos);                                                           \
    } while (0)

static void lz_reset(struct lz *lz)
{
    memset(lz->head, 0xff, sizeof lz->head);
}

/* Best match for data[pos..] among earlier positions; returns its length
 * (0 if none of at least MIN_MATCH) and stores the distance.  As in zlib,
 * the hot comparison loop is inline (the trace shows one call per search). */
static unsigned longest_match(const struct lz *lz, const uint8_t *data, uint32_t pos, uint32_t end,
                              unsigned prev_len, unsigned *dist)
{
    unsigned best = prev_len >= MIN_MATCH ? prev_len : MIN_MATCH - 1;
    unsigned max = end - pos < MAX_MATCH ? end - pos : MAX_MATCH;
    unsigned chain = prev_len >= LAZY_LIMIT / 2 ? MAX_CHAIN / 4 : MAX_CHAIN;
    int32_t cand = lz->head[HASH3(data + pos)];
    const uint8_t *scan = data + pos;
    unsigned found = 0;

    if (max < MIN_MATCH)
        return 0;
    while (cand >= 0 && pos - (uint32_t)cand <= WINDOW_SIZE && chain-- > 0) {
        const uint8_t *m = data + cand;
        if (m[best] == scan[best] && m[0] == scan[0] && m[1] == scan[1]) {
            unsigned len = 0;
            while (len + 8 <= max) { /* common prefix, 8 bytes at a time */
                uint64_t x, y;
                memcpy(&x, m + len, 8);
                memcpy(&y, scan + len, 8);
                if (x != y) {
                    len += (unsigned)(__builtin_ctzll(x ^ y) >> 3);
                    goto compared;
                }
                len += 8;
            }
            while (len < max && m[len] == scan[len])
                len++;
        compared:
            if (len > best) {
                best = len;
                found = len;
                *dist = pos - (uint32_t)cand;
                if (len >= NICE_MATCH || len == max)
                    break;
            }
        }
        cand = lz->prev[cand];
    }
    return found >= MIN_MATCH ? found : 0;
}

/* Parse data[0..n) into sequences; returns their number. */
static size_t lz77_parse(struct lz *lz, const uint8_t *data, uint32_t n, struct seq *seqs)
{
    size_t ns = 0;
    uint32_t pos = 0, lit_start = 0;
    unsigned cur_len = 0, cur_dist = 0;
    int have = 0; /* a match found at pos-1 is pending (lazy evaluation) */

    lz_reset(lz);
    while (pos + MIN_MATCH <= n) {
        unsigned len, dist = 0;
        len = longest_match(lz, data, pos, n, have ? cur_len : 0, &dist);
        INSERT(lz, data, pos);
        if (have && len <= cur_len) {
            /* emit the match that starts at pos-1 */
            uint32_t start = pos - 1, stop = start + cur_len, p;
            seqs[ns].lit_start = lit_start;
            seqs[ns].lit_len = start - lit_start;
            seqs[ns].match_len = (uint16_t)cur_len;
            seqs[ns].dist = (uint16_t)cur_dist;
            ns++;
            for (p = pos + 1; p < stop && p + MIN_MATCH <= n; p++)
                INSERT(lz, data, p);
            pos = stop;
            lit_start = stop;
            have = 0;
            continue;
        }
        if (len >= MIN_MATCH && len < LAZY_LIMIT) {
            have = 1; /* maybe the next position has a longer match */
            cur_len = len;
            cur_dist = dist;
        } else if (len >= LAZY_LIMIT) {
            uint32_t stop = pos + len, p;
            seqs[ns].lit_start = lit_start;
            seqs[ns].lit_len = pos - lit_start;
            seqs[ns].match_len = (uint16_t)len;
            seqs[ns].dist = (uint16_t)dist;
            ns++;
            for (p = pos + 1; p < stop && p + MIN_MATCH <= n; p++)
                INSERT(lz, data, p);
            pos = stop;
            lit_start = stop;
            have = 0;
            continue;
        } else {
            have = 0;
        }
        pos++;
    }
    if (have) { /* pending match at the very end */
        uint32_t start = pos - 1;
        seqs[ns].lit_start = lit_start;
        seqs[ns].lit_len = start - lit_start;
        seqs[ns].match_len = (uint16_t)cur_len;
        seqs[ns].dist = (uint16_t)cur_dist;
        ns++;
        lit_start = start + cur_len;
    }
    seqs[ns].lit_start = lit_start;
    seqs[ns].lit_len = n > lit_start ? n - lit_start : 0;
    seqs[ns].match_len = 0;
    seqs[ns].dist = 0;
    return ns + 1;
}

/* ------------------------------------------------------------------ */
/* Deflate length/distance codes                                        */

static const uint16_t len_base[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                      31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
static const uint8_t len_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                      2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const uint16_t dist_base[30] = {1,    2,    3,    4,    5,    7,     9,     13,    17,  25,
                                       33,   49,   65,   97,   129,  193,   257,   385,   513, 769,
                                       1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
static const uint8_t dist_extra[30] = {0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                                       6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

static uint8_t len_code_of[MAX_MATCH + 1]; /* length -> code index 0..28 */
static uint8_t dist_code_lo[513];           /* dist 1..512 -> code */
static uint8_t dist_code_hi[256];           /* (dist-1) >> 8 for dist > 512 */

static void init_code_tables(void)
{
    unsigned c, l, d;
    for (c = 0; c < 29; c++)
        for (l = len_base[c]; l < len_base[c] + (1u << len_extra[c]) && l <= MAX_MATCH; l++)
            len_code_of[l] = (uint8_t)c;
    len_code_of[MAX_MATCH] = 28;
    for (c = 0; c < 30; c++)
        for (d = dist_base[c]; d < dist_base[c] + (1u << dist_extra[c]) && d <= 32768; d++) {
            if (d <= 512)
                dist_code_lo[d] = (uint8_t)c;
            else
                dist_code_hi[(d - 1) >> 8] = (uint8_t)c;
        }
}

#define DIST_CODE(d) ((d) <= 512 ? dist_code_lo[d] : dist_code_hi[((d) - 1) >> 8])

/* ------------------------------------------------------------------ */
/* Huffman code construction                                            */

struct hnode {
    uint32_t freq;
    int16_t left, right; /* -1 for leaves */
};

struct heap {
    uint16_t item[2 * NUM_LITLEN];
    int n;
    const struct hnode *nodes;
};

#define NODE_LESS(nodes, a, b)                                                                     \
    ((nodes)[a].freq < (nodes)[b].freq || ((nodes)[a].freq == (nodes)[b].freq && (a) < (b)))

static void heap_push(struct heap *h, unsigned node)
{
    int i = h->n++;
    while (i > 0) {
        int parent = (i - 1) / 2;
        if (!NODE_LESS(h->nodes, node, h->item[parent]))
            break;
        h->item[i] = h->item[parent];
        i = parent;
    }
    h->item[i] = (uint16_t)node;
}

static unsigned heap_pop(struct heap *h)
{
    unsigned top = h->item[0], last = h->item[--h->n];
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && NODE_LESS(h->nodes, h->item[c + 1], h->item[c]))
            c++;
        if (!NODE_LESS(h->nodes, h->item[c], last))
            break;
        h->item[i] = h->item[c];
        i = c;
    }
    if (h->n > 0)
        h->item[i] = (uint16_t)last;
    return top;
}

static void assign_depths(const struct hnode *nodes, int node, unsigned depth, uint8_t *lens,
                          unsigned *maxlen)
{
    if (nodes[node].left < 0) {
        lens[node] = (uint8_t)(depth ? depth : 1);
        if (lens[node] > *maxlen)
            *maxlen = lens[node];
        return;
    }
    assign_depths(nodes, nodes[node].left, depth + 1, lens, maxlen);
    assign_depths(nodes, nodes[node].right, depth + 1, lens, maxlen);
}

/* Code lengths (at most MAX_BITS) for n symbols with the given counts. */
static void build_lengths(const uint32_t *freq_in, unsigned n, uint8_t *lens)
{
    struct hnode nodes[2 * NUM_LITLEN];
    struct heap h;
    uint32_t freq[NUM_LITLEN];
    unsigned i, maxlen;

    for (i = 0; i < n; i++)
        freq[i] = freq_in[i];
    for (;;) {
        unsigned next = n, used = 0;
        h.n = 0;
        h.nodes = nodes;
        memset(lens, 0, n);
        for (i = 0; i < n; i++) {
            nodes[i].freq = freq[i];
            nodes[i].left = nodes[i].right = -1;
            if (freq[i]) {
                heap_push(&h, i);
                used++;
            }
        }
        if (used == 0)
            return;
        while (h.n > 1) {
            unsigned a = heap_pop(&h), b = heap_pop(&h);
            nodes[next].freq = nodes[a].freq + nodes[b].freq;
            nodes[next].left = (int16_t)a;
            nodes[next].right = (int16_t)b;
            heap_push(&h, next++);
        }
        maxlen = 0;
        assign_depths(nodes, h.item[0], 0, lens, &maxlen);
        if (maxlen <= MAX_BITS)
            return;
        for (i = 0; i < n; i++) /* flatten the distribution and retry */
            if (freq[i])
                freq[i] = (freq[i] >> 2) | 1;
    }
}

static unsigned reverse_bits(unsigned code, unsigned len)
{
    unsigned r = 0;
    while (len--) {
        r = (r << 1) | (code & 1);
        code >>= 1;
    }
    return r;
}

/* Canonical codes, bit-reversed for an LSB-first bit stream. */
static void assign_codes(const uint8_t *lens, unsigned n, uint16_t *codes)
{
    unsigned count[MAX_BITS + 1] = {0}, next[MAX_BITS + 1];
    unsigned i, code = 0, b;
    for (i = 0; i < n; i++)
        count[lens[i]]++;
    count[0] = 0;
    for (b = 1; b <= MAX_BITS; b++) {
        code = (code + count[b - 1]) << 1;
        next[b] = code;
    }
    for (i = 0; i < n; i++)
        if (lens[i])
            codes[i] = (uint16_t)reverse_bits(next[lens[i]]++, lens[i]);
}

/* ------------------------------------------------------------------ */
/* Bit I/O (macros, as in zlib)                                         */

struct bitw {
    uint8_t *out;
    size_t pos;
    uint64_t acc;
    unsigned nbits;
};

#define PUT_BITS(w, v, n)                                                                          \
    do {                                                                                           \
        (w)->acc |= (uint64_t)(v) << (w)->nbits;                                                   \
        (w)->nbits += (n);                                                                         \
        if ((w)->nbits >= 32) {                                                                    \
            uint32_t lo_ = (uint32_t)(w)->acc;                                                     \
            memcpy((w)->out + (w)->pos, &lo_, 4);                                                  \
            (w)->pos += 4;                                                                         \
            (w)->acc >>= 32;                                                                       \
            (w)->nbits -= 32;                                                                      \
        }                                                                                          \
    } while (0)

static void flush_bits(struct bitw *w)
{
    while (w->nbits > 0) {
        w->out[w->pos++] = (uint8_t)w->acc;
        w->acc >>= 8;
        w->nbits = w->nbits > 8 ? w->nbits - 8 : 0;
    }
}

struct bitr {
    const uint8_t *in;
    size_t pos, size;
    uint64_t acc;
    unsigned nbits;
};

#define REFILL(r)                                                                                  \
    do {                                                                                           \
        while ((r)->nbits <= 56) {                                                                 \
            uint64_t b_ = (r)->pos < (r)->size ? (r)->in[(r)->pos] : 0;                            \
            (r)->pos++;                                                                            \
            (r)->acc |= b_ << (r)->nbits;                                                          \
            (r)->nbits += 8;                                                                       \
        }                                                                                          \
    } while (0)
#define PEEK(r, n) ((unsigned)((r)->acc & ((1ull << (n)) - 1)))
#define SKIP(r, n) ((r)->acc >>= (n), (r)->nbits -= (n))

/* ------------------------------------------------------------------ */
/* Block encoder                                                        */

struct huff {
    uint8_t litlen_len[NUM_LITLEN], dist_len[NUM_DIST];
    uint16_t litlen_code[NUM_LITLEN], dist_code[NUM_DIST];
};

static void count_symbols(const uint8_t *data, const struct seq *seqs, size_t ns,
                          uint32_t *litfreq, uint32_t *distfreq)
{
    size_t s;
    uint32_t i;
    memset(litfreq, 0, NUM_LITLEN * sizeof *litfreq);
    memset(distfreq, 0, NUM_DIST * sizeof *distfreq);
    for (s = 0; s < ns; s++) {
        for (i = 0; i < seqs[s].lit_len; i++)
            litfreq[data[seqs[s].lit_start + i]]++;
        if (seqs[s].match_len) {
            litfreq[257 + len_code_of[seqs[s].match_len]]++;
            distfreq[DIST_CODE(seqs[s].dist)]++;
        }
    }
    litfreq[END_BLOCK]++;
}

static void write_lengths(struct bitw *w, const struct huff *hf)
{
    unsigned i;
    for (i = 0; i < NUM_LITLEN; i++)
        PUT_BITS(w, hf->litlen_len[i], 4);
    for (i = 0; i < NUM_DIST; i++)
        PUT_BITS(w, hf->dist_len[i], 4);
}

static void encode_sequence(struct bitw *w, const struct huff *hf, const uint8_t *data,
                            const struct seq *s)
{
    uint32_t i;
    for (i = 0; i < s->lit_len; i++) {
        unsigned c = data[s->lit_start + i];
        PUT_BITS(w, hf->litlen_code[c], hf->litlen_len[c]);
    }
    if (s->match_len) {
        unsigned lc = len_code_of[s->match_len], dc = DIST_CODE(s->dist);
        PUT_BITS(w, hf->litlen_code[257 + lc], hf->litlen_len[257 + lc]);
        PUT_BITS(w, s->match_len - len_base[lc], len_extra[lc]);
        PUT_BITS(w, hf->dist_code[dc], hf->dist_len[dc]);
        PUT_BITS(w, s->dist - dist_base[dc], dist_extra[dc]);
    }
}

/* Compress one block: returns compressed size (out must hold 2*n+1024). */
static size_t compress_block(struct lz *lz, const uint8_t *data, uint32_t n, struct seq *seqs,
                             uint8_t *out)
{
    uint32_t litfreq[NUM_LITLEN], distfreq[NUM_DIST];
    struct huff hf;
    struct bitw w;
    size_t ns, s;

    ns = lz77_parse(lz, data, n, seqs);
    count_symbols(data, seqs, ns, litfreq, distfreq);
    build_lengths(litfreq, NUM_LITLEN, hf.litlen_len);
    build_lengths(distfreq, NUM_DIST, hf.dist_len);
    assign_codes(hf.litlen_len, NUM_LITLEN, hf.litlen_code);
    assign_codes(hf.dist_len, NUM_DIST, hf.dist_code);

    w.out = out;
    w.pos = 0;
    w.acc = 0;
    w.nbits = 0;
    PUT_BITS(&w, n, 17);
    write_lengths(&w, &hf);
    for (s = 0; s < ns; s++)
        encode_sequence(&w, &hf, data, &seqs[s]);
    PUT_BITS(&w, hf.litlen_code[END_BLOCK], hf.litlen_len[END_BLOCK]);
    flush_bits(&w);
    return w.pos;
}

/* ------------------------------------------------------------------ */
/* Block decoder                                                        */

struct decoder {
    uint16_t litlen[1 << MAX_BITS]; /* symbol << 4 | length */
    uint16_t dist[1 << MAX_BITS];
};

static void build_decode_table(const uint8_t *lens, unsigned n, uint16_t *table)
{
    uint16_t codes[NUM_LITLEN];
    unsigned i, step, j;
    memset(table, 0, sizeof(uint16_t) << MAX_BITS);
    assign_codes(lens, n, codes);
    for (i = 0; i < n; i++) {
        if (!lens[i])
            continue;
        step = 1u << lens[i];
        for (j = codes[i]; j < (1u << MAX_BITS); j += step)
            table[j] = (uint16_t)(i << 4 | lens[i]);
    }
}

static void read_lengths(struct bitr *r, uint8_t *litlen_len, uint8_t *dist_len)
{
    unsigned i;
    for (i = 0; i < NUM_LITLEN; i++) {
        REFILL(r);
        litlen_len[i] = (uint8_t)PEEK(r, 4);
        SKIP(r, 4);
    }
    for (i = 0; i < NUM_DIST; i++) {
        REFILL(r);
        dist_len[i] = (uint8_t)PEEK(r, 4);
        SKIP(r, 4);
    }
}

/* Decode literals into out until a length symbol or the end of the block;
 * returns that symbol. */
static unsigned decode_literals(struct bitr *r, const struct decoder *d, uint8_t *out,
                                uint32_t *pos, uint32_t cap)
{
    for (;;) {
        unsigned e, sym;
        REFILL(r);
        e = d->litlen[PEEK(r, MAX_BITS)];
        SKIP(r, e & 15);
        sym = e >> 4;
        if (sym >= END_BLOCK || *pos >= cap)
            return sym;
        out[(*pos)++] = (uint8_t)sym;
    }
}

/* Decode the length/distance pair of symbol sym and copy the match. */
static int decode_match(struct bitr *r, const struct decoder *d, unsigned sym, uint8_t *out,
                        uint32_t *pos, uint32_t cap)
{
    unsigned lc = sym - 257, len, e, dc, dist;
    if (lc >= 29)
        return -1;
    REFILL(r);
    len = len_base[lc] + PEEK(r, len_extra[lc]);
    SKIP(r, len_extra[lc]);
    e = d->dist[PEEK(r, MAX_BITS)];
    SKIP(r, e & 15);
    dc = e >> 4;
    if (dc >= NUM_DIST)
        return -1;
    dist = dist_base[dc] + PEEK(r, dist_extra[dc]);
    SKIP(r, dist_extra[dc]);
    if (dist > *pos || *pos + len > cap)
        return -1;
    {
        const uint8_t *src = out + *pos - dist;
        uint8_t *dst = out + *pos;
        unsigned i = 0;
        if (dist >= 8) { /* copy 8 bytes at a time; overlap is safe */
            for (; i + 8 <= len; i += 8) {
                uint64_t v;
                memcpy(&v, src + i, 8);
                memcpy(dst + i, &v, 8);
            }
        }
        for (; i < len; i++)
            dst[i] = src[i];
    }
    *pos += len;
    return 0;
}

/* Returns the decompressed size, or -1 on a corrupt block. */
static long decompress_block(struct decoder *d, const uint8_t *in, size_t size, uint8_t *out,
                             uint32_t cap)
{
    struct bitr r;
    uint8_t litlen_len[NUM_LITLEN], dist_len[NUM_DIST];
    uint32_t n, pos = 0;

    r.in = in;
    r.size = size;
    r.pos = 0;
    r.acc = 0;
    r.nbits = 0;
    REFILL(&r);
    n = PEEK(&r, 17);
    SKIP(&r, 17);
    if (n > cap)
        return -1;
    read_lengths(&r, litlen_len, dist_len);
    build_decode_table(litlen_len, NUM_LITLEN, d->litlen);
    build_decode_table(dist_len, NUM_DIST, d->dist);
    for (;;) {
        unsigned sym = decode_literals(&r, d, out, &pos, n);
        if (sym == END_BLOCK)
            break;
        if (pos >= n && sym < END_BLOCK)
            return -1;
        if (decode_match(&r, d, sym, out, &pos, n) < 0)
            return -1;
    }
    return pos == n ? (long)n : -1;
}

/* ------------------------------------------------------------------ */
/* Checksums                                                            */

static uint32_t adler32(uint32_t adler, const uint8_t *p, size_t n)
{
    uint32_t a = adler & 0xffff, b = adler >> 16;
    while (n > 0) {
        size_t k = n < 5552 ? n : 5552;
        n -= k;
        while (k--) {
            a += *p++;
            b += a;
        }
        a %= 65521;
        b %= 65521;
    }
    return b << 16 | a;
}

static uint32_t crc_table[256];

static void init_crc(void)
{
    uint32_t i, c;
    int k;
    for (i = 0; i < 256; i++) {
        for (c = i, k = 0; k < 8; k++)
            c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
        crc_table[i] = c;
    }
}

static uint32_t crc32_update(uint32_t crc, const uint8_t *p, size_t n)
{
    crc = ~crc;
    while (n--)
        crc = crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
    return ~crc;
}

/* ------------------------------------------------------------------ */

struct state {
    struct lz lz;
    struct decoder dec;
    struct vocab vocab;
    struct seq seqs[BLOCK_SIZE / MIN_MATCH + 2];
    uint8_t in[BLOCK_SIZE], out[2 * BLOCK_SIZE + 1024], back[BLOCK_SIZE];
};

static int process_block(struct state *st, struct rng *r, uint32_t n, uint64_t *csize,
                         uint32_t *adler, uint32_t *crc)
{
    size_t c;
    long d;
    fill_block(&st->vocab, r, st->in, n);
    c = compress_block(&st->lz, st->in, n, st->seqs, st->out);
    d = decompress_block(&st->dec, st->out, c, st->back, BLOCK_SIZE);
    if (d != (long)n || memcmp(st->in, st->back, n) != 0)
        return -1;
    *csize += c;
    *adler = adler32(*adler, st->back, n);
    *crc = crc32_update(*crc, st->out, c);
    return 0;
}

int main(int argc, char **argv)
{
    double mb = argc > 1 ? atof(argv[1]) : 4.0;
    uint64_t total = (uint64_t)(mb * 1048576.0), done = 0, csize = 0;
    uint32_t adler = 1, crc = 0;
    struct rng r;
    struct state *st;

    if (mb <= 0 || mb > 1e6) {
        fprintf(stderr, "usage: %s [MB of input, default 4]\n", argv[0]);
        return 2;
    }
    st = (struct state *)malloc(sizeof *st);
    if (!st)
        return 1;
    r.s = 0x9e3779b97f4a7c15ull;
    init_crc();
    init_code_tables();
    build_vocab(&st->vocab, &r);
    while (done < total) {
        uint32_t n = total - done < BLOCK_SIZE ? (uint32_t)(total - done) : BLOCK_SIZE;
        if (process_block(st, &r, n, &csize, &adler, &crc) < 0) {
            fprintf(stderr, "round trip failed at offset %llu\n", (unsigned long long)done);
            return 1;
        }
        done += n;
    }
    printf("input %llu bytes, compressed %llu bytes (%.1f%%), adler32 %08x crc32 %08x\n",
           (unsigned long long)done, (unsigned long long)csize,
           done ? 100.0 * (double)csize / (double)done : 0.0, adler, crc);
    free(st);
    return 0;
}

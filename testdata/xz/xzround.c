/* Drives liblzma (xz's library) the way a program does: decodes every file
 * of xz's own test suite (tests/files: good-*.xz must decode, bad-*.xz must
 * be rejected), then compresses and decompresses generated text with the
 * single-threaded encoder at two presets and with the two-thread encoder
 * (THREADS 1: the single-threaded one again, for a run whose calls do not
 * depend on how the threads were scheduled).  Prints what it found, so
 * that a traced run can be checked against a plain one.
 * Usage: xzround TESTFILES_DIR [THREADS] */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lzma.h>

static unsigned char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    long size;
    unsigned char *b;
    if (!f || fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
        perror(path);
        exit(2);
    }
    b = malloc(size ? (size_t)size : 1);
    if (!b || fread(b, 1, (size_t)size, f) != (size_t)size) {
        perror(path);
        exit(2);
    }
    fclose(f);
    *n = (size_t)size;
    return b;
}

/* Runs stream s over in[0..n) into out (capacity *on); *on becomes the
 * output size.  Returns the last lzma_code result. */
static lzma_ret code(lzma_stream *s, const unsigned char *in, size_t n, unsigned char *out,
                     size_t *on)
{
    lzma_ret r;
    s->next_in = in;
    s->avail_in = n;
    s->next_out = out;
    s->avail_out = *on;
    do
        r = lzma_code(s, LZMA_FINISH);
    while (r == LZMA_OK && s->avail_out);
    *on -= s->avail_out;
    lzma_end(s);
    return r;
}

/* Decodes the suite's .xz files in name order. */
static int compare(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int test_files(const char *dir)
{
    static unsigned char out[1 << 20];
    char *names[256];
    int count = 0, good = 0, bad = 0, wrong = 0, i;
    DIR *d = opendir(dir);
    struct dirent *e;
    if (!d) {
        perror(dir);
        exit(2);
    }
    while ((e = readdir(d)) && count < 256) {
        size_t l = strlen(e->d_name);
        if (l > 3 && !strcmp(e->d_name + l - 3, ".xz"))
            names[count++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)count, sizeof names[0], compare);
    for (i = 0; i < count; i++) {
        char path[4096];
        size_t n, on = sizeof out;
        unsigned char *in;
        lzma_stream s = LZMA_STREAM_INIT;
        lzma_ret r;
        int ok;
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        in = slurp(path, &n);
        r = lzma_stream_decoder(&s, UINT64_MAX, LZMA_CONCATENATED);
        if (r == LZMA_OK)
            r = code(&s, in, n, out, &on);
        ok = r == LZMA_STREAM_END;
        if (names[i][0] == 'g') {
            good += ok;
            wrong += !ok;
        } else if (names[i][0] == 'b') {
            bad += !ok;
            wrong += ok;
        }
        free(in);
        free(names[i]);
    }
    printf("test files: %d good decoded, %d bad rejected, %d wrong\n", good, bad, wrong);
    return wrong != 0;
}

/* Compresses n bytes of generated text and decompresses them again. */
static int round_trip(size_t n, uint32_t preset, uint32_t threads)
{
    static const char *words[] = {"call", "trace", "graph", "tree", "node", "edge",
                                  "thread", "time", "func", "main", "leaf", "root"};
    unsigned long long seed = 88172645463325252ull;
    unsigned char *in = malloc(n), *c, *d;
    size_t i = 0, cn = lzma_stream_buffer_bound(n), dn = n + 1;
    lzma_stream s = LZMA_STREAM_INIT, t = LZMA_STREAM_INIT;
    lzma_ret r;
    while (i < n) {
        const char *w;
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        for (w = words[seed % 12]; *w && i < n; w++)
            in[i++] = (unsigned char)*w;
        if (i < n)
            in[i++] = (seed >> 20) % 9 ? ' ' : '\n';
    }
    c = malloc(cn);
    d = malloc(dn);
    if (threads > 1) {
        lzma_mt mt;
        memset(&mt, 0, sizeof mt);
        mt.threads = threads;
        mt.preset = preset;
        mt.check = LZMA_CHECK_CRC64;
        mt.block_size = n / 2;
        r = lzma_stream_encoder_mt(&s, &mt);
    } else {
        r = lzma_easy_encoder(&s, preset, LZMA_CHECK_CRC32);
    }
    if (r != LZMA_OK || code(&s, in, n, c, &cn) != LZMA_STREAM_END)
        return 1;
    if (lzma_stream_decoder(&t, UINT64_MAX, 0) != LZMA_OK ||
        code(&t, c, cn, d, &dn) != LZMA_STREAM_END || dn != n || memcmp(in, d, n))
        return 1;
    printf("preset %u, %u thread(s): %zu -> %zu bytes\n", preset, threads, n, cn);
    free(in);
    free(c);
    free(d);
    return 0;
}

int main(int argc, char **argv)
{
    int bad;
    uint32_t threads = argc > 2 ? (uint32_t)atoi(argv[2]) : 2;
    if (argc < 2 || argc > 3 || threads < 1) {
        fprintf(stderr, "usage: xzround TESTFILES_DIR [THREADS]\n");
        return 2;
    }
    bad = test_files(argv[1]);
    bad |= round_trip(4 << 10, 0, 1);
    bad |= round_trip(4 << 10, 6, 1);
    bad |= round_trip(16 << 10, 1, threads);
    return bad;
}

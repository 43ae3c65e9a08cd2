/* ------------------------------------------------------------------ */
/* Encoding                                                             */

/* Checksum of a record (docs/binary-format.md): a multiply-xor hash over
 * little-endian 8-byte words, the last one zero-padded. */
static CT_NOINST uint32_t ct_checksum(const unsigned char *p, size_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ull ^ (uint64_t)n;
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, p, 8); /* x86-64 and the other little-endian targets */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        w = __builtin_bswap64(w);
#endif
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
        p += 8;
        n -= 8;
    }
    if (n) {
        uint64_t w = 0;
        size_t i;
        for (i = 0; i < n; i++)
            w |= (uint64_t)p[i] << (8 * i);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    return (uint32_t)(h ^ (h >> 29));
}

/* Bytes 9-11 of the block record about to be encoded at rec: with `from`
 * the thread's event count at its first event (a ring's), flag 1 and that
 * count's low 16 bits, so that a reader can tell whether a block whose
 * writing the process did not live to note holds events of the ring
 * (docs/binary-format.md); else 0.  Set before ct_encode (text ignores it). */
static CT_NOINST void ct_block_seq(unsigned char *rec, int ring, uint32_t from)
{
    rec[9] = ring ? 1 : 0;
    rec[10] = ring ? (unsigned char)from : 0;
    rec[11] = ring ? (unsigned char)(from >> 8) : 0;
}

/* Fill in the header of the binary record at rec whose payload (nbytes,
 * at rec + CT_REC_HDR) is already there. */
static CT_NOINST void ct_record_header(unsigned char *rec, unsigned tag, uint64_t tid,
                                       uint32_t nevents, uint32_t nbytes)
{
    rec[0] = 'C';
    rec[1] = 'T';
    rec[2] = 'R';
    rec[3] = 0x1a;
    rec[8] = (unsigned char)tag;
    if (tag != CT_TAG_BLOCK) /* a block's bytes 9-11: ct_block_seq */
        rec[9] = rec[10] = rec[11] = 0;
    ct_le(rec + 12, tid, 8);
    ct_le(rec + 20, nevents, 4);
    ct_le(rec + 24, nbytes, 4);
    ct_le(rec + 4, ct_checksum(rec + 8, (size_t)CT_REC_HDR - 8 + nbytes), 4);
}

/* The trace's note of `n` dropped events: `# dropped N` or record 'D'. */
static CT_NOINST size_t ct_dropped_marker(unsigned char *m, uint64_t n)
{
    unsigned char *p = m;
    size_t i;
    if (ct_binary) {
        ct_le(m + CT_REC_HDR, n, 8);
        ct_record_header(m, CT_TAG_DROPPED, 0, 0, 8);
        return CT_REC_HDR + 8;
    }
    for (i = 0; "# dropped "[i]; i++)
        *p++ = (unsigned char)"# dropped "[i];
    p = ct_dec(p, n);
    *p++ = '\n';
    return (size_t)(p - m);
}

/* Write `count` encoded events; under CALLTRACE_LOSSY=1 drop them (and
 * count them, reported in the trace before the next events written) when
 * the descriptor is not writable.  ct_lock held. */
static CT_NOINST void ct_write_events(const unsigned char *buf, size_t n, uint64_t count)
{
    if (ct_lossy && ct_lost_pending) {
        unsigned char m[64];
        if (ct_write_buf(m, ct_dropped_marker(m, ct_lost_pending), 1)) {
            ct_lost += count;
            ct_lost_pending += count;
            return;
        }
        ct_lost_pending = 0;
    }
    if (ct_write_buf(buf, n, ct_lossy)) {
        ct_lost += count;
        ct_lost_pending += count;
    }
}

/* An exit that is not of the innermost open frame (longjmp skipped some
 * exits): pop down to the nearest frame of its function, if any. */
static CT_NOINST __attribute__((noinline)) void ct_pop_slow(struct ct_thread *t, uint64_t addr)
{
    const uint64_t *stack = CT_STACKP(t);
    uint32_t d = t->depth, n = d < CT_STACK ? d : CT_STACK, k;
    for (k = 1; k <= n; k++) {
        if (stack[(d - k) & (CT_STACK - 1)] == addr) {
            t->depth = d - k;
            return;
        }
    }
}

/* Follow the open frames through one event being written (frames open
 * before it: d, the innermost in stack), for a forked child to start its
 * trace with them: an entry pushes, an exit pops its frame.  Done off the
 * traced thread's path, as the events are encoded; entries and exits
 * alternate unpredictably, so the usual case has no branch on the kind.
 * Returns the new depth.  ct_lock held. */
static inline CT_NOINST __attribute__((always_inline)) uint32_t
ct_frame(struct ct_thread *t, uint64_t *stack, uint32_t d, uint64_t addr, uint32_t exit)
{
    uint32_t slot = d & (CT_STACK - 1);
    if (CT_UNLIKELY(exit && (d == 0 || stack[(d - 1) & (CT_STACK - 1)] != addr))) {
        t->depth = d;
        ct_pop_slow(t, addr);
        return t->depth;
    }
    stack[slot] = exit ? stack[slot] : addr;
    return d + 1 - 2 * exit;
}

/* Encode events ev[0..n) into out (capacity cap), as many as fit.  Returns
 * the number of bytes produced and stores the number of events consumed in
 * *used.  Binary: one complete block.  Text: complete lines.  *last is the
 * thread's previous timestamp (times are clamped so they never decrease)
 * and is updated.  It also follows ft's open frames (ct_frame) in the same
 * pass, unless ft is NULL. */
static CT_NOINST size_t ct_encode(const void *events, uint32_t n, uint64_t tid,
                                  const char *tidtxt, uint32_t tidlen, uint64_t mult,
                                  uint64_t *last, unsigned char *out, size_t cap, uint32_t *used,
                                  struct ct_thread *ft)
{
    const struct ct_ev *ev = (const struct ct_ev *)events;
    const uint64_t *ev8 = (const uint64_t *)events; /* untimed: 8-byte slots */
    uint32_t i = 0;
    uint64_t prev_time = *last, none[1];
    uint64_t *stack = ft ? CT_STACKP(ft) : none;
    uint32_t depth = ft ? ft->depth : 0;
    unsigned char *p = out;

    if (ct_binary) {
        const unsigned char *lim = out + cap - CT_BIN_EVENT_MAX;
        uint64_t prev_addr = 0, block_time = 0;
        p += CT_REC_HDR;
        if (ct_untimed) { /* the same without times, in a loop of its own */
            for (; i < n && p <= lim; i++) {
                uint64_t addr = ev8[i] & CT_TIME_MASK, d = addr - prev_addr;
                uint64_t zz = (d << 1) ^ (uint64_t)((int64_t)d >> 63);
                uint32_t exit = (uint32_t)(ev8[i] >> 63);
                __builtin_prefetch(&ev8[i + 128]);
                p = ct_varint(p, (zz << 1) | exit);
                prev_addr = addr;
                if (ft)
                    depth = ct_frame(ft, stack, depth, addr, exit);
            }
        }
        for (; i < n && p <= lim; i++) {
            uint64_t tk = ev[i].tk, addr = ev[i].addr;
            /* The events are in the recording thread's cache: ask ahead */
            __builtin_prefetch(&ev[i + 64]);
            uint64_t tm = ct_to_ns(tk & CT_TIME_MASK, mult);
            uint64_t d = addr - prev_addr;
            uint64_t zz = (d << 1) ^ (uint64_t)((int64_t)d >> 63);
            if (tm < prev_time)
                tm = prev_time;
            p = ct_varint(p, (zz << 1) | (tk >> 63));
            if (!ct_untimed)
                p = ct_varint(p, tm - block_time);
            prev_addr = addr;
            prev_time = block_time = tm;
            if (ft)
                depth = ct_frame(ft, stack, depth, addr, (uint32_t)(tk >> 63));
        }
        if (i == 0) {
            *used = 0;
            return 0;
        }
        ct_record_header(out, CT_TAG_BLOCK, tid, i, (uint32_t)(p - out - CT_REC_HDR));
    } else {
        /* Text is most of the writer's work: an address's hex digits come
         * from a small cache; a timestamp is its digits above the last 4,
         * which change every 10 us and are kept, then the last 4 from a
         * table (ct_dig4).  (The last 8 split into digits in the lanes of a
         * word took 2 ns a line more: a chain of multiplications.) */
        const unsigned char *lim = out + cap - CT_TEXT_MAX;
        struct ct_hexc {
            uint64_t addr;
            uint32_t len;           /* of txt: "0x", the hex digits, a space */
            unsigned char txt[20];
        } hc[64];
        unsigned char tid[16] = {0}; /* tidtxt, here: no reload after each store */
        unsigned char hitxt[24];
        uint32_t hilen = 0;
        uint64_t hival = 0;
        memset(hc, 0, sizeof hc);
        memset(hitxt, 0, sizeof hitxt);
        memcpy(tid, tidtxt, tidlen < 16 ? tidlen : 16);
        for (; i < n && p <= lim; i++) {
            uint64_t tk = ev[i].tk, addr = ev[i].addr;
            uint64_t tm = ct_to_ns(tk & CT_TIME_MASK, mult), hi;
            uint32_t lo, k;
            struct ct_hexc *h = &hc[(addr ^ (addr >> 6)) & 63];
            __builtin_prefetch(&ev[i + 64]);
            if (tm < prev_time)
                tm = prev_time;
            prev_time = tm;
            if (CT_UNLIKELY(h->addr != addr || h->len == 0)) {
                unsigned char *e;
                h->addr = addr;
                h->txt[0] = '0';
                h->txt[1] = 'x';
                e = ct_hex(h->txt + 2, addr);
                *e++ = ' ';
                h->len = (uint32_t)(e - h->txt);
            }
            p[0] = (tk >> 63) ? 'X' : 'E';
            memcpy(p + 1, h->txt, 20); /* fixed size; len of them count */
            p += 1 + h->len;
            hi = tm / 10000u;
            lo = (uint32_t)(tm - hi * 10000u);
            if (CT_LIKELY(hi != 0)) {
                if (CT_UNLIKELY(hi != hival || hilen == 0)) {
                    hival = hi;
                    hilen = (uint32_t)(ct_dec(hitxt, hi) - hitxt);
                }
                memcpy(p, hitxt, 16); /* fixed size; at most 16 digits count */
                p += hilen;
                memcpy(p, &ct_dig4[lo], 4);
                p += 4;
            } else { /* below 10 us: no leading zeros */
                p = ct_dec(p, lo);
            }
            if (CT_LIKELY(tidlen <= 16)) {
                memcpy(p, tid, 16); /* fixed size */
            } else {
                for (k = 0; k < tidlen; k++)
                    p[k] = (unsigned char)tidtxt[k];
            }
            p += tidlen;
            if (ft)
                depth = ct_frame(ft, stack, depth, addr, (uint32_t)(tk >> 63));
        }
    }
    if (ft)
        ft->depth = depth;
    *last = prev_time;
    *used = i;
    return (size_t)(p - out);
}

/* The stage: ct_wout, ct_wout_len.  The writer thread used to write each block as it encoded it:
 * a write() per check-in, a few kilobytes each, and ext4 zeroes the rest of
 * every new page that a write starts or ends inside.  On zstd the traced
 * thread then waited for a writer that spent more time in write() than in
 * encoding.  So the writer encodes its blocks one after another into ct_wout
 * and writes them together, once they reach CT_STAGE_BYTES or hold
 * CT_STAGE_EVENTS events of one thread, and before it sleeps.  A thread's
 * `flushed` (the room in its ring, and where a reader of a killed process's
 * ring starts) only moves once its blocks are written; `wflushed` says how
 * far they are encoded.  Whoever writes anything else writes the stage
 * first, so that the file keeps the order in which blocks were encoded.
 * All of it under ct_lock.
 *
 * ct_stage_drain writes the staged blocks and gives their threads the room. */
static CT_NOINST void ct_stage_drain(void)
{
    struct ct_thread *t;
    if (!ct_wout_len)
        return;
    /* (a failed write stops tracing: the events are lost either way) */
    (void)ct_write_buf(ct_wout, ct_wout_len, 0);
    ct_wout_len = 0;
    for (t = ct_threads; t; t = t->next)
        if (t->flushed != t->wflushed)
            __atomic_store_n(&t->flushed, t->wflushed, __ATOMIC_SEQ_CST);
}

/* Write events [wflushed, to) of t, encoded in out (capacity cap), or into
 * the stage when out is ct_wout, and follow its open frames.  ct_lock held. */
static CT_NOINST void ct_flush_upto(struct ct_thread *t, uint32_t to, unsigned char *out,
                                    size_t cap)
{
    const unsigned char *ring = (const unsigned char *)CT_EVP(t);
    size_t slot = ct_slot();
    int stage = out == ct_wout && ct_staging;
    uint32_t from = t->wflushed;
    uint64_t mult = from != to ? ct_mult() : 0;
    if (mult)
        __atomic_store_n(&t->mult, mult, __ATOMIC_RELAXED);
    if (!stage)
        ct_stage_drain(); /* blocks staged before come first in the file */
    /* Lossy: a pipe writes up to PIPE_BUF bytes whole or not at all, so no
     * write is ever partial (a partial one must wait for its rest, and the
     * reader may not read until the program ends). */
    if (ct_lossy && ct_pipe_cap > 0 && cap > (size_t)PIPE_BUF)
        cap = (size_t)PIPE_BUF;
    while (from != to) {
        uint32_t at = from & (CT_EVENTS - 1), n = to - from, used;
        uint32_t most = CT_BLOCK_EVENTS;
        unsigned char *o = out;
        size_t nb, c = cap;
        if (n > CT_EVENTS - at)
            n = CT_EVENTS - at; /* up to the end of the ring, then on from its start */
        /* A block, and a thread's staged blocks, hold at most 2^15 events:
         * the events both in the file and in the ring of a process killed
         * before `flushed` moved must be fewer than 2^16 (a reader tells
         * them apart by the blocks' 16-bit seq). */
        if (stage) {
            /* (below CT_STAGE_EVENTS: the stage is written once they are) */
            most = CT_STAGE_EVENTS - (from - t->flushed);
            o = ct_wout + ct_wout_len;
            c = sizeof ct_wout - ct_wout_len;
        }
        if (n > most)
            n = most;
        ct_block_seq(o, 1, from);
        nb = ct_encode(ring + at * slot, n, t->tid, t->tidtxt, t->tidlen, mult, &t->last_time, o, c,
                       &used, t);
        if (used == 0) /* cannot happen: the buffer holds many events */
            break;
        from += used;
        if (stage) {
            ct_wout_len += nb;
            __atomic_store_n(&t->wflushed, from, __ATOMIC_RELEASE);
            if (ct_wout_len >= CT_STAGE_BYTES || from - t->flushed >= CT_STAGE_EVENTS)
                ct_stage_drain();
        } else {
            ct_write_events(o, nb, used);
            __atomic_store_n(&t->flushed, from, __ATOMIC_SEQ_CST);
            __atomic_store_n(&t->wflushed, from, __ATOMIC_RELEASE);
        }
    }
}

static CT_NOINST void ct_flush_into(struct ct_thread *t, unsigned char *out, size_t cap)
{
    ct_flush_upto(t, __atomic_load_n(&t->len, __ATOMIC_ACQUIRE), out, cap);
}

/* Write events [flushed, len) of t using the shared buffer.  ct_lock held. */
static CT_NOINST void ct_flush_locked(struct ct_thread *t)
{
    ct_flush_into(t, ct_gout, sizeof ct_gout);
}


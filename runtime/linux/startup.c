/* ------------------------------------------------------------------ */
/* Start-up                                                             */

static CT_NOINST int ct_phdr_cb(struct dl_phdr_info *info, size_t size, void *data)
{
    uint64_t lo = UINT64_MAX;
    int i;
    (void)size;
    for (i = 0; i < (int)info->dlpi_phnum; i++) {
        if (info->dlpi_phdr[i].p_type == PT_LOAD && (uint64_t)info->dlpi_phdr[i].p_vaddr < lo)
            lo = (uint64_t)info->dlpi_phdr[i].p_vaddr;
    }
    if (lo != UINT64_MAX)
        *(uint64_t *)data = (uint64_t)info->dlpi_addr + lo;
    return 1; /* the first object is the main program: stop */
}

/* The GNU build-id of a loaded object (from its PT_NOTE segments), or 0. */
static CT_NOINST uint32_t ct_build_id(const struct dl_phdr_info *info, const unsigned char **id)
{
    int i;
    for (i = 0; i < (int)info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        const unsigned char *p, *end;
        if (ph->p_type != PT_NOTE)
            continue;
        p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
        end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)(const void *)p;
            size_t name = (nh->n_namesz + 3u) & ~3u, desc = (nh->n_descsz + 3u) & ~3u;
            const unsigned char *d = p + sizeof(ElfW(Nhdr)) + name;
            if (d + nh->n_descsz > end)
                break;
            if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
                memcmp(p + sizeof(ElfW(Nhdr)), "GNU", 4) == 0 && nh->n_descsz <= 255) {
                *id = d;
                return nh->n_descsz;
            }
            p = d + desc;
        }
    }
    return 0;
}

/* A path in a text line at p (`# base`, `# map`): `\` as `\\`, newline as
 * `\n`, carriage return as `\r`, so that the line stays one line and the
 * reader gets the path back whole.  Returns the new end (at most 2 * len
 * bytes).  Binary records carry the bytes as they are. */
static CT_NOINST unsigned char *ct_text_path(unsigned char *p, const char *path, size_t len)
{
    size_t i;
    for (i = 0; i < len; i++) {
        char c = path[i];
        if (c == '\\' || c == '\n' || c == '\r') {
            *p++ = '\\';
            c = c == '\n' ? 'n' : c == '\r' ? 'r' : c;
        }
        *p++ = (unsigned char)c;
    }
    return p;
}

/* One mapping as a trace record in ct_gout at p; returns the new end.
 * Text: `# map 0xSTART 0xEND 0xOFFSET BUILD_ID|- PATH`.  Binary: record 'M'
 * (docs/binary-format.md). */
static CT_NOINST unsigned char *ct_map_record(unsigned char *p, uint64_t start, uint64_t end,
                                              uint64_t off, const unsigned char *id,
                                              uint32_t idlen, const char *path, size_t plen)
{
    size_t i;
    if (ct_binary) {
        unsigned char *rec = p;
        p += CT_REC_HDR;
        ct_le(p, start, 8);
        ct_le(p + 8, end, 8);
        ct_le(p + 16, off, 8);
        p[24] = (unsigned char)idlen;
        p += 25;
        for (i = 0; i < idlen; i++)
            *p++ = id[i];
        for (i = 0; i < plen; i++)
            *p++ = (unsigned char)path[i];
        ct_record_header(rec, CT_TAG_MAP, 0, 0, (uint32_t)(p - rec - CT_REC_HDR));
    } else {
        static const char l1[] = "# map 0x";
        for (i = 0; l1[i]; i++)
            *p++ = (unsigned char)l1[i];
        p = ct_hex(p, start);
        *p++ = ' ';
        *p++ = '0';
        *p++ = 'x';
        p = ct_hex(p, end);
        *p++ = ' ';
        *p++ = '0';
        *p++ = 'x';
        p = ct_hex(p, off);
        *p++ = ' ';
        if (idlen == 0)
            *p++ = '-';
        for (i = 0; i < idlen; i++) {
            *p++ = (unsigned char)ct_hexdig[id[i] >> 4];
            *p++ = (unsigned char)ct_hexdig[id[i] & 15];
        }
        *p++ = ' ';
        p = ct_text_path(p, path, plen);
        *p++ = '\n';
    }
    return p;
}

/* dl_iterate_phdr callback: write the executable mappings not yet known.
 * The first object is the main program (its empty name becomes the
 * /proc/self/exe target); other nameless objects are skipped. */
static CT_NOINST int ct_maps_cb(struct dl_phdr_info *info, size_t size, void *data)
{
    int *first = (int *)data;
    const char *path = info->dlpi_name;
    static char real[CT_PATH_MAX]; /* ct_lock held */
    const unsigned char *id = NULL;
    uint32_t idlen = 0;
    int i, have_id = 0;
    (void)size;
    if (*first) {
        *first = 0;
        if (!path || !path[0])
            path = ct_exe;
    }
    if (!path || !path[0])
        return 0;
    if (path[0] != '/' && strchr(path, '/') && realpath(path, real))
        path = real; /* dlopen("./lib.so"): make it absolute */
    for (i = 0; i < (int)info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uint64_t start, end;
        uint32_t k, n = ct_nmaps;
        size_t plen = strlen(path);
        unsigned char *p;
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
            continue;
        start = (uint64_t)info->dlpi_addr + ph->p_vaddr;
        end = start + ph->p_memsz;
        for (k = 0; k < n && (ct_maps[k].start != start || ct_maps[k].end != end); k++)
            ;
        if (k < n || n >= CT_MAPS_MAX)
            continue;
        if (!have_id) {
            idlen = ct_build_id(info, &id);
            have_id = 1;
        }
        if (plen > CT_GOUT_BYTES / 2 - 600) /* (escaped, twice as long at most) */
            plen = CT_GOUT_BYTES / 2 - 600;
        p = ct_map_record(ct_gout, start, end, ph->p_offset, id, idlen, path, plen);
        ct_write_all(ct_gout, (size_t)(p - ct_gout));
        ct_maps[n].start = start;
        ct_maps[n].end = end;
        __atomic_store_n(&ct_nmaps, n + 1, __ATOMIC_RELEASE);
    }
    return 0;
}

/* Write the mappings of objects loaded since the last scan.  ct_lock held. */
static CT_NOINST void ct_scan_maps(void)
{
    int first = 1;
    sigset_t old;
    ct_own_begin(&old); /* (realpath()) */
    dl_iterate_phdr(ct_maps_cb, &first);
    ct_own_end(&old);
}

/* The known mapping holding addr, as [*lo, *lo + *span); 0 if none. */
static CT_NOINST int ct_map_find(uint64_t addr, uint64_t *lo, uint64_t *span)
{
    uint32_t n = __atomic_load_n(&ct_nmaps, __ATOMIC_ACQUIRE), k;
    for (k = 0; k < n; k++) {
        if (addr - ct_maps[k].start < ct_maps[k].end - ct_maps[k].start) {
            *lo = ct_maps[k].start;
            *span = ct_maps[k].end - ct_maps[k].start;
            return 1;
        }
    }
    return 0;
}

/* An entry outside the thread's last code range (inside the runtime): find its
 * mapping; if none is known, an object was loaded since the last scan
 * (dlopen): scan again, which writes the new mappings.  An address that no
 * object holds (generated code) becomes its own one-byte range, so that it
 * costs one scan only while it keeps being called. */
static CT_NOINST __attribute__((noinline)) void ct_map_miss(uint64_t addr)
{
    struct ct_nocancel nc;
    if (ct_map_find(addr, &ct_t.lo, &ct_t.span))
        return;
    ct_lock_take(&nc);
    ct_scan_maps();
    ct_lock_give(&nc);
    if (!ct_map_find(addr, &ct_t.lo, &ct_t.span)) {
        ct_t.lo = addr;
        ct_t.span = 1;
    }
}

/* getenv() that also works before libc has set up the environment (the
 * first event may come from .preinit_array, which runs before libc's own
 * initialisation in a dynamically linked program): then the variables are
 * read from /proc/self/environ.  Called under ct_lock. */
static CT_NOINST const char *ct_getenv(const char *name)
{
    static char *env;
    static size_t env_len;
    size_t k, len = strlen(name);
    if (environ)
        return getenv(name);
    if (!env) {
        size_t cap = (size_t)1 << 24; /* touched pages only */
        int fd = open("/proc/self/environ", O_RDONLY | O_CLOEXEC);
        void *m = fd < 0 ? MAP_FAILED
                         : mmap(NULL, cap, PROT_READ | PROT_WRITE,
                                MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m != MAP_FAILED) {
            ssize_t n;
            env = (char *)m;
            while (env_len < cap - 1 && (n = read(fd, env + env_len, cap - 1 - env_len)) > 0)
                env_len += (size_t)n;
            env[env_len] = 0;
        }
        if (fd >= 0)
            close(fd);
        if (!env)
            return NULL;
    }
    for (k = 0; k < env_len; k += strlen(env + k) + 1)
        if (strncmp(env + k, name, len) == 0 && env[k + len] == '=')
            return env + k + len + 1;
    return NULL;
}

/* Build the output file name from the template, expanding %p and %%.
 * Returns -1 when the name does not fit in cap bytes with its NUL (never a
 * shorter name: that could be another, existing file). */
static CT_NOINST int ct_out_name(char *dst, size_t cap)
{
    const char *s = ct_path_tmpl;
    unsigned char num[24];
    size_t n = 0, plen = (size_t)(ct_dec(num + 1, (uint64_t)getpid()) - num) - 1;
    num[0] = '.';
    if (ct_name_long)
        return -1;
    while (*s) {
        if (s[0] == '%' && s[1] == 'p') {
            if (n + plen >= cap)
                return -1;
            memcpy(dst + n, num + 1, plen);
            n += plen;
            s += 2;
            continue;
        }
        if (n + 1 >= cap)
            return -1;
        if (s[0] == '%' && s[1] == '%')
            s++;
        dst[n++] = *s++;
    }
    dst[n] = 0;
    if (ct_own_name && !ct_path_has_pid) {
        /* NAME.EXT -> NAME.<pid>.EXT (NAME -> NAME.<pid>) */
        size_t len = plen + 1, dot = n, i;
        if (n + len >= cap)
            return -1;
        for (i = n; i > 0 && dst[i - 1] != '/'; i--)
            if (dst[i - 1] == '.' && dot == n)
                dot = i - 1;
        if (dot == i) /* a leading dot (".trace") is not an extension */
            dot = n;
        memmove(dst + dot + len, dst + dot, n - dot + 1);
        memcpy(dst + dot, num, len);
    }
    return 0;
}

/* The absolute form of the output name, for CALLTRACE_OUT_TAKEN; empty
 * when it does not fit. */
static CT_NOINST void ct_abs_name(char *dst, size_t cap)
{
    char name[CT_PATH_MAX];
    size_t n = 0, len;
    dst[0] = 0;
    if (ct_out_name(name, sizeof name) != 0)
        return;
    if (name[0] != '/') {
        if (!getcwd(dst, cap - 1)) {
            dst[0] = 0;
            return;
        }
        n = strlen(dst);
        dst[n++] = '/';
    }
    len = strlen(name);
    if (n + len >= cap) {
        dst[0] = 0;
        return;
    }
    memcpy(dst + n, name, len + 1);
}

/* Whether line l (n bytes) of /proc/self/maps maps the file (maj:min, ino):
 * `START-END PERMS OFFSET MAJ:MIN INODE PATH`. */
static CT_NOINST int ct_maps_line_is(const char *l, size_t n, unsigned long maj,
                                     unsigned long min, uint64_t ino)
{
    unsigned long ma = 0, mi = 0;
    uint64_t in = 0;
    size_t i = 0;
    int f;
    for (f = 0; f < 3; f++) {
        while (i < n && l[i] != ' ')
            i++;
        while (i < n && l[i] == ' ')
            i++;
    }
    for (; i < n && l[i] != ':'; i++)
        ma = ma * 16 + (unsigned long)(l[i] <= '9' ? l[i] - '0' : (l[i] | 32) - 'a' + 10);
    for (i++; i < n && l[i] != ' '; i++)
        mi = mi * 16 + (unsigned long)(l[i] <= '9' ? l[i] - '0' : (l[i] | 32) - 'a' + 10);
    for (i++; i < n && l[i] >= '0' && l[i] <= '9'; i++)
        in = in * 10 + (uint64_t)(l[i] - '0');
    return in != 0 && in == ino && ma == maj && mi == min;
}

/* major(dev) and minor(dev), Linux's encoding (glibc's and musl's), without
 * the inline functions of <sys/sysmacros.h> (see the includes). */
static CT_NOINST unsigned long ct_major(dev_t dev)
{
    uint64_t d = (uint64_t)dev;
    return (unsigned long)(((d >> 32) & 0xfffff000u) | ((d >> 8) & 0xfffu));
}

static CT_NOINST unsigned long ct_minor(dev_t dev)
{
    uint64_t d = (uint64_t)dev;
    return (unsigned long)(((d >> 12) & 0xffffff00u) | (d & 0xffu));
}

/* Whether the file (dev, ino) is mapped into this process: the program, a
 * library, a file it mmap()ed.  Emptying such a file kills the process
 * (SIGBUS); writing into it corrupts it.  0 when /proc cannot tell. */
static CT_NOINST int ct_mapped(dev_t dev, ino_t ino)
{
    static char buf[8192]; /* ct_lock held */
    unsigned long maj = ct_major(dev), min = ct_minor(dev);
    size_t len = 0, start;
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC), found = 0, skip = 0;
    char *nl;
    if (fd < 0)
        return 0;
    while (!found) {
        ssize_t r = read(fd, buf + len, sizeof buf - len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r > 0)
            len += (size_t)r;
        for (start = 0; (nl = (char *)memchr(buf + start, '\n', len - start)) != NULL;
             start = (size_t)(nl - buf) + 1, skip = 0)
            if (!skip && ct_maps_line_is(buf + start, (size_t)(nl - buf) - start, maj, min, ino))
                found = 1;
        if (r <= 0) {
            found |= !skip && start < len && ct_maps_line_is(buf + start, len - start, maj, min, ino);
            break;
        }
        memmove(buf, buf + start, len - start);
        len -= start;
        if (len == sizeof buf) { /* a line longer than buf: its fields came first */
            found |= !skip && ct_maps_line_is(buf, len, maj, min, ino);
            skip = 1;
            len = 0;
        }
    }
    close(fd);
    return found;
}

/* "# process PID PPID": which process wrote a text trace, and its parent
 * (see ct_sibling). */
static CT_NOINST unsigned char *ct_process_line(unsigned char *p)
{
    static const char l[] = "# process ";
    size_t i;
    for (i = 0; l[i]; i++)
        *p++ = (unsigned char)l[i];
    p = ct_dec(p, (uint64_t)getpid());
    *p++ = ' ';
    p = ct_dec(p, (uint64_t)getppid());
    *p++ = '\n';
    return p;
}

/* Whether process pid is traced: a calltrace trace is open among the
 * descriptors the runtime moves its own to (ct_open_output).  Only regular
 * files are opened (opening a pipe's /proc link would make a reader). */
static CT_NOINST int ct_traced(uint64_t pid)
{
    static const int fds[] = {1000, 1001, 1002, 1003, 100, 101, 102, 103};
    size_t k;
    for (k = 0; k < sizeof fds / sizeof fds[0]; k++) {
        char path[64], head[18];
        unsigned char *p = (unsigned char *)path;
        struct stat st;
        ssize_t n;
        int fd;
        memcpy(p, "/proc/", 6);
        p = ct_dec(p + 6, pid);
        memcpy(p, "/fd/", 4);
        p = ct_dec(p + 4, (uint64_t)fds[k]);
        *p = 0;
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
        if (fd < 0)
            continue;
        n = pread(fd, head, sizeof head, 0);
        close(fd);
        if ((n == (ssize_t)sizeof head && memcmp(head, "# calltrace 1 text", sizeof head) == 0) ||
            (n >= 8 && memcmp(head, "CALLTRC", 8) == 0))
            return 1;
    }
    return 0;
}

/* Whether the text trace in fd (whose flock this process holds: its writer
 * has ended) belongs to a process tree that still runs: its writer's parent
 * is alive and traced itself.  That writer was started by a traced process
 * that does not write this file, with an environment of its own
 * (posix_spawn() with its own envp, without CALLTRACE_OUT_TAKEN), and a
 * sibling started after it must not destroy its trace.  A run from a shell
 * (not traced) is overwritten by the next run as always.  Sets *writer. */
static CT_NOINST int ct_sibling(int fd, uint64_t *writer)
{
    char buf[CT_PATH_MAX + 256];
    const char *at;
    uint64_t parent = 0;
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    if (n <= 0)
        return 0;
    buf[n] = 0;
    at = strstr(buf, "\n# process ");
    if (!at)
        return 0;
    at += 11;
    for (*writer = 0; *at >= '0' && *at <= '9'; at++)
        *writer = *writer * 10 + (uint64_t)(*at - '0');
    if (*at++ != ' ')
        return 0;
    for (; *at >= '0' && *at <= '9'; at++)
        parent = parent * 10 + (uint64_t)(*at - '0');
    if (parent <= 1 || parent == (uint64_t)getpid() || (kill((pid_t)parent, 0) != 0 && errno == ESRCH))
        return 0;
    return ct_traced(parent);
}

/* Take a regular trace file for this process: an exclusive flock() on its
 * open file, then empty it.  Another traced process that writes the file
 * (started at the same time with the same name: ./a | ./b) holds the lock,
 * and must not lose its trace.  The kernel drops the lock with the last
 * descriptor of the open file, so at the latest when the process dies: a
 * killed run leaves no stale lock, and its file is reused.  (A forked child
 * closing its inherited copy does not drop the parent's lock.)  Where
 * flock() is not supported (ENOLCK, EOPNOTSUPP on some network filesystems)
 * the file is taken as before.  Returns 0 when the file is ours, 1 when
 * another process holds it, 2 when it is the trace of a process whose
 * traced parent still runs (ct_sibling, *writer), -1 when it cannot be
 * emptied. */
static CT_NOINST int ct_claim(int fd, uint64_t *writer)
{
    struct stat st;
    int r;
    do
        r = flock(fd, LOCK_EX | LOCK_NB);
    while (r != 0 && errno == EINTR);
    if (r != 0 && errno == EWOULDBLOCK)
        return 1;
    if (!ct_own_name && !ct_path_has_pid && ct_sibling(fd, writer))
        return 2;
    /* Only a file with something in it is emptied: ext4 writes back on
     * close every page of a file that was truncated to 0 (auto_da_alloc),
     * which made a 2.3 GB text trace's run 60% slower. */
    if (fstat(fd, &st) == 0 && st.st_size == 0)
        return 0;
    return ftruncate(fd, 0) == 0 ? 0 : -1;
}

/* Say that `taken`, the trace of a sibling (ct_sibling), is left alone. */
static CT_NOINST void ct_said_sibling(const char *taken, uint64_t writer)
{
    char mine[CT_PATH_MAX], msg[CT_PATH_MAX + 128];
    unsigned char *p = (unsigned char *)msg;
    size_t i;
    static const char a[] = " holds the trace of process ";
    static const char b[] = ", whose parent still runs; this process writes ";
    ct_out_name(mine, sizeof mine);
    for (i = 0; taken[i] && i < CT_PATH_MAX / 2; i++)
        *p++ = (unsigned char)taken[i];
    memcpy(p, a, sizeof a - 1);
    p = ct_dec(p + sizeof a - 1, writer);
    memcpy(p, b, sizeof b - 1);
    p += sizeof b - 1;
    *p = 0;
    ct_msg(msg, mine);
}


/* test_fatbin.c: unit tests of the fatbin parser and the finder on byte buffers built here, one
 * per malformed case, plus payload decompression, PTX facts and --verify checks. Prints "N
 * passed, M failed". */
#include "../src/lib/bytes/bytes.h"
#include "../src/lib/rules/rules.h"

#include <lz4.h>
#include <stdio.h>

#include "check.h"
#include <stdlib.h>
#include <zstd.h>

/* A buffer to assemble containers in. */
typedef struct buf {
    uint8_t b[8192];
    size_t n;
} buf;

static void put(buf *b, size_t at, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        b->b[at + (size_t)i] = (uint8_t)(v >> (8 * i));
}

/* Starts a container at the end of b; returns its offset. */
static size_t container(buf *b)
{
    size_t at = b->n;
    put(b, at, SMC_FATBIN_MAGIC, 4);
    put(b, at + 4, 1, 2);
    put(b, at + 6, 16, 2);
    put(b, at + 8, 0, 8);
    b->n += 16;
    return at;
}

/* Appends an entry with a payload of len bytes (copied from data, or zeros) to the container at c
 * and fixes its fatSize. Returns the entry's offset. */
static size_t entry(buf *b, size_t c, unsigned kind, unsigned arch, uint64_t flags,
                    const void *data, size_t len, size_t csize, size_t usize)
{
    size_t at = b->n, padded = (len + 7) & ~(size_t)7;
    memset(b->b + at, 0, 64 + padded);
    put(b, at, kind, 2);
    put(b, at + 2, 0x0101, 2);
    put(b, at + 4, 64, 4);
    put(b, at + 8, padded, 8);
    put(b, at + 0x10, csize, 4);
    put(b, at + 0x18, kind == 1 ? 0 : 8, 2); /* minor: PTX 9.0, cubin 1.8 */
    put(b, at + 0x1a, kind == 1 ? 9 : 1, 2);
    put(b, at + 0x1c, arch, 4);
    put(b, at + 0x28, flags | 0x11, 8);
    put(b, at + 0x38, usize, 8);
    if (data) memcpy(b->b + at + 64, data, len);
    b->n += 64 + padded;
    put(b, c + 8, b->n - c - 16, 8);
    return at;
}

/* Scans b as a file through the finder: a raw fat binary (its containers back to back, as in a
 * fatbin section) or, with elf, an ELF header without sections in front (the whole-file search
 * outside sections). The library found, or NULL; *in holds it. */
static smc_library *scan(const buf *b, bool elf, const smc_options *opt, smc_input **in)
{
    static uint8_t file[sizeof b->b + 64];
    size_t n = 0;
    if (elf) { /* ELF64 LSB, no section table, no program headers */
        memset(file, 0, 64);
        memcpy(file, "\177ELF\2\1\1", 7);
        file[18] = 62;
        n = 64;
    }
    memcpy(file + n, b->b, b->n);
    *in = smc_input_new("test", SMC_INPUT_FILE);
    if (!*in || smc_scan_memory(*in, "test", file, n + b->n, opt) != SMC_OK) return NULL;
    return (*in)->library_count ? &(*in)->libraries[0] : NULL;
}

static void test_valid_container(void)
{
    buf b = {0};
    size_t c = container(&b);
    entry(&b, c, 2, 90, 0x100000, NULL, 100, 0, 0);
    entry(&b, c, 1, 120, 0x200000, NULL, 33, 0, 0);
    entry(&b, c, 8, 100, 0x110000, NULL, 16, 0, 0);
    smc_input *in;
    smc_library *lib = scan(&b, false, NULL, &in);
    CHECK(lib && lib->container_count == 1 && lib->image_count == 3 && lib->finding_count == 0);
    if (lib && lib->image_count == 3) {
        char tok[SMC_TOKEN_MAX];
        CHECK(strcmp(smc_image_token(&lib->images[0], tok), "sm_90a") == 0);
        CHECK(strcmp(smc_image_token(&lib->images[1], tok), "compute_120f") == 0);
        CHECK(strcmp(smc_image_token(&lib->images[2], tok), "lto_100a") == 0);
        CHECK(lib->images[0].version_major == 1 && lib->images[0].version_minor == 8);
        CHECK(lib->images[1].version_major == 9 && lib->images[1].version_minor == 0);
        CHECK(lib->images[0].stored_size == 104 && lib->images[0].offset == 16);
        CHECK(lib->containers[0].size == b.n && lib->containers[0].image_count == 3);
        CHECK(!lib->containers[0].section);
    }
    smc_input_free(in);
}

/* Issue 47: an entry of a kind smcheck does not know keeps its container, and the entries beside
 * it, readable, and is never taken for code a GPU loads; Tile IR (kind 128) is read with its
 * bytecode's version (bytes 0x1b, 0x1a) and compiled by the driver (jit) where it can be. */
static void test_unknown_kinds(void)
{
    buf b = {0};
    size_t c = container(&b);
    entry(&b, c, 2, 80, 0, NULL, 40, 0, 0);
    size_t t = entry(&b, c, 128, 80, 0, "\177TileIR\0\15\1\0\0", 12, 0, 0);
    put(&b, t + 0x18, 0x0d010000u, 4); /* tag 0, minor 1, major 13: bytecode 13.1 */
    entry(&b, c, 64, 90, 0, NULL, 8, 0, 0);
    entry(&b, c, 128, 100, 0, NULL, 16, 0, 0); /* only Tile IR for sm_100 */
    smc_input *in;
    smc_library *lib = scan(&b, false, NULL, &in);
    CHECK(lib && lib->container_count == 1 && lib->image_count == 4 && lib->finding_count == 0);
    if (lib && lib->image_count == 4) {
        char tok[SMC_TOKEN_MAX];
        CHECK(strcmp(smc_image_token(&lib->images[0], tok), "sm_80") == 0);
        CHECK(strcmp(smc_image_token(&lib->images[1], tok), "tileir_80") == 0);
        CHECK(strcmp(smc_image_token(&lib->images[2], tok), "kind64_90") == 0);
        CHECK(lib->images[1].version_major == 13 && lib->images[1].version_minor == 1);
        CHECK(strcmp(smc_image_kind_str(lib->images[1].kind), "tile-ir") == 0 &&
              strcmp(smc_image_kind_str(lib->images[2].kind), "other") == 0);
        CHECK(smc_image_opaque(lib->images[1].kind) && smc_image_opaque(lib->images[2].kind) &&
              !smc_image_opaque(lib->images[0].kind));
        int why; /* Tile IR: the driver's to compile, from 13.1 and its bytecode's CUDA; the rest
                  * opaque */
        CHECK(smc_image_verdict(&lib->images[1], 80, 13010, &why) == SMC_VERDICT_JIT &&
              smc_image_verdict(&lib->images[1], 120, 0, &why) == SMC_VERDICT_JIT &&
              smc_image_verdict(&lib->images[1], 80, 13000, &why) == SMC_VERDICT_JIT_BLOCKED &&
              smc_image_verdict(&lib->images[1], 75, 13040, &why) == SMC_VERDICT_NONE &&
              smc_image_verdict(&lib->images[3], 90, 13040, &why) == SMC_VERDICT_NONE &&
              smc_image_verdict(&lib->images[2], 90, 13040, &why) == SMC_VERDICT_NONE &&
              smc_image_verdict(&lib->images[0], 80, 13010, &why) == SMC_VERDICT_NATIVE);
    }
    smc_input_free(in);
}

static void test_empty_container(void)
{
    buf b = {0};
    container(&b);
    smc_input *in;
    smc_library *lib = scan(&b, false, NULL, &in);
    CHECK(lib && lib->container_count == 1 && lib->containers[0].image_count == 0);
    smc_input_free(in);
    /* Outside a fatbin section, an empty container is no evidence of anything. */
    lib = scan(&b, true, NULL, &in);
    CHECK(!lib);
    smc_input_free(in);
}

/* Scans a raw fat binary with a malformed container: nothing is counted, and one finding names
 * the problem. */
static void expect_refused(const buf *b, const char *words, int line)
{
    smc_input *in;
    smc_library *lib = scan(b, false, NULL, &in);
    bool ok = lib && lib->container_count == 0 && lib->image_count == 0 &&
              lib->finding_count == 1 && strstr(lib->findings[0].message, words) != NULL;
    if (!ok)
        fprintf(stderr, "line %d: %zu findings, first '%s', wanted '%s'\n", line,
                lib ? lib->finding_count : 0,
                lib && lib->finding_count ? lib->findings[0].message : "", words);
    CHECK(ok);
    smc_input_free(in);
}
#define REFUSED(b, words) expect_refused(b, words, __LINE__)

/* Bytes that do not start with a container header are no raw fat binary at all. */
static void expect_ignored(const buf *b, int line)
{
    smc_input *in;
    smc_library *lib = scan(b, false, NULL, &in);
    if (lib) fprintf(stderr, "line %d: read as a fat binary\n", line);
    CHECK(!lib && in && in->files == 1);
    smc_input_free(in);
}

static void test_container_header_defects(void)
{
    buf b = {0};
    container(&b);
    b.n = 15;
    REFUSED(&b, "runs past the end of the file (15 bytes)");

    b.n = 16;
    put(&b, 0, 0x1EE55A01, 4); /* the pre-CUDA-4 magic */
    expect_ignored(&b, __LINE__);

    b = (buf){0};
    container(&b);
    put(&b, 4, 2, 2); /* version 2 */
    expect_ignored(&b, __LINE__);

    put(&b, 4, 1, 2);
    put(&b, 6, 8, 2); /* header size 8 */
    expect_ignored(&b, __LINE__);

    put(&b, 6, 16, 2);
    put(&b, 8, 8, 8);
    REFUSED(&b, "container of 8 bytes runs past the end (0 bytes left)");

    put(&b, 8, UINT64_MAX, 8); /* must not wrap around */
    REFUSED(&b, "runs past the end of any file");
}

static void test_entry_defects(void)
{
    buf b = {0};
    size_t c = container(&b);
    size_t e = entry(&b, c, 2, 80, 0, NULL, 64, 0, 0);
    buf good = b;

    b.n = c + 16 + 40; /* an entry header cut short */
    put(&b, c + 8, 40, 8);
    REFUSED(&b, "entry header truncated");

    b = good;
    put(&b, e + 4, 8, 4);
    REFUSED(&b, "entry header size 8 cannot be right");
    put(&b, e + 4, 68, 4);
    REFUSED(&b, "entry header size 68 cannot be right");
    put(&b, e + 4, 4096, 4);
    REFUSED(&b, "entry header of 4096 bytes runs past");

    b = good;
    put(&b, e + 8, 72, 8);
    REFUSED(&b, "entry payload of 72 bytes runs past the end of its container");
    put(&b, e + 8, UINT64_MAX - 32, 8);
    REFUSED(&b, "runs past the end of its container");

    b = good;
    put(&b, e, 0, 2);
    REFUSED(&b, "entry kind 0 is no kind");

    b = good;
    put(&b, e + 0x28, 0x2000 | 0x8000 | 0x11, 8);
    put(&b, e + 0x10, 10, 4);
    REFUSED(&b, "both LZ4 and Zstandard");

    b = good;
    put(&b, e + 0x28, 0x100000 | 0x200000 | 0x11, 8);
    REFUSED(&b, "both the arch-specific and the family");

    b = good;
    put(&b, e + 0x28, 0x8000 | 0x11, 8);
    put(&b, e + 0x38, 300, 8);
    REFUSED(&b, "compressed size 0 does not fit");
    put(&b, e + 0x10, 65, 4);
    REFUSED(&b, "compressed size 65 does not fit");
    put(&b, e + 0x10, 40, 4);
    put(&b, e + 0x38, 0, 8);
    REFUSED(&b, "no uncompressed size");

    /* Only containers outside fatbin sections must show the entry version seen everywhere. */
    b = good;
    put(&b, e + 2, 0x0202, 2);
    smc_input *in;
    smc_library *lib = scan(&b, true, NULL, &in);
    CHECK(!lib);
    smc_input_free(in);
    lib = scan(&b, false, NULL, &in);
    CHECK(lib && lib->container_count == 1 && lib->finding_count == 0);
    smc_input_free(in);
    lib = scan(&good, true, NULL, &in);
    CHECK(lib && lib->container_count == 1 && lib->containers[0].offset == 64);
    smc_input_free(in);
}

static void test_find(void)
{
    buf b = {0};
    b.n = 40;
    size_t c = container(&b); /* at 40 */
    entry(&b, c, 2, 75, 0, NULL, 8, 0, 0);
    CHECK(smc_fatbin_find(b.b, 0, b.n) == 40);
    CHECK(smc_fatbin_find(b.b, 48, b.n) == b.n);
    /* Only offsets from + 8k are looked at. */
    CHECK(smc_fatbin_find(b.b, 4, b.n) == b.n);
    /* The 8-byte prefix must lie wholly inside [from, to). */
    CHECK(smc_fatbin_find(b.b, 0, 48) == 40);
    CHECK(smc_fatbin_find(b.b, 0, 47) == 47);
    CHECK(smc_fatbin_at(b.b, b.n, 40) && !smc_fatbin_at(b.b, 44, 40));
}

static bool count_at(void *ctx, size_t at, int which)
{
    size_t *n = ctx;
    /* only where the headers are, and the needle at 60 */
    *n += (which < 0 && (at == 3 || at == 41)) || (which == 0 && at == 60) ? 1 : 100;
    return true;
}

static const smc_needle cudart = {(const uint8_t *)"libcudart.so.", 13};

static void test_scan_any_offset(void)
{
    buf b = {0};
    b.n = 3;
    container(&b); /* at 3: no alignment */
    b.n = 41;
    container(&b);
    memcpy(b.b + 60, "libcudart.so.12", 16);
    b.n = 80;
    size_t n = 0;
    smc_fatbin_scan(b.b, b.n, NULL, 0, count_at, &n);
    CHECK(n == 2);
    n = 0;
    smc_fatbin_scan(b.b, b.n, &cudart, 1, count_at, &n);
    CHECK(n == 3);
    n = 0;
    smc_fatbin_scan(b.b, 10, NULL, 0, count_at, &n); /* a header must lie whole in the bytes */
    CHECK(n == 0);
    n = 0;
    smc_fatbin_scan(b.b + 60, 12, &cudart, 1, count_at, &n);
    CHECK(n == 0); /* and the needle too */
}

/* The search against the plainest one (every offset asked in turn), on bytes where headers,
 * needles and their first two bytes are common: lengths 0 to 400 (every path: 32, 16 and one
 * position a round, and where one hands over to the next), needles that share their first two
 * bytes, and found stopping the search after its n-th call. */
typedef struct calls {
    size_t at[4096];
    int which[4096];
    size_t n, stop_after;
} calls;

static bool record(void *ctx, size_t at, int which)
{
    calls *c = ctx;
    if (c->n < 4096) {
        c->at[c->n] = at;
        c->which[c->n] = which;
    }
    c->n++;
    return c->n != c->stop_after;
}

static void plain_scan(const uint8_t *p, size_t len, const smc_needle *also, size_t nalso, calls *c)
{
    for (size_t i = 0; i < len; i++)
        if (!smc_fatbin_scan_at(p, len, i, also, nalso, record, c)) return;
}

static void test_scan_against_plain(void)
{
    static const smc_needle needles[] = {{(const uint8_t *)"libc", 4},
                                         {(const uint8_t *)".shstrtab", 10},
                                         {(const uint8_t *)"cudart64_", 9},
                                         {(const uint8_t *)"libn", 4}};
    static const uint8_t magic[8] = {0x50, 0xED, 0x55, 0xBA, 0x01, 0x00, 0x10, 0x00};
    static const char *const words[] = {"libc", "libn", ".shstrtab", "cudart64_", "li", "P"};
    static calls a, b;
    uint8_t p[400];
    uint32_t seed = 12345;
    int bad = 0;
    for (int round = 0; round < 20000 && bad < 5; round++) {
        size_t len = (size_t)(round % 401);
        for (size_t i = 0; i < len; i++) {
            seed = seed * 1103515245u + 12345u;
            unsigned r = seed >> 16;
            p[i] = r % 4 == 0 ? (uint8_t) "P\xED\x55li.cu"[r / 4 % 9] : (uint8_t)(r / 4);
        }
        for (size_t k = 0; len && k < 1 + len / 40; k++) { /* whole ones, at any offset */
            seed = seed * 1103515245u + 12345u;
            size_t at = (seed >> 8) % len, w = (seed >> 4) % 7;
            const uint8_t *src = w == 6 ? magic : (const uint8_t *)words[w];
            size_t n = w == 6 ? 8 : strlen(words[w]);
            memcpy(p + at, src, at + n <= len ? n : len - at);
        }
        size_t nalso = (size_t)(round % 5);
        a = (calls){.stop_after = round % 3 == 0 ? (size_t)(round / 3 % 7) + 1 : 0};
        b = (calls){.stop_after = a.stop_after};
        smc_fatbin_scan(p, len, needles, nalso, record, &a);
        plain_scan(p, len, needles, nalso, &b);
        bool same = a.n == b.n && a.n <= 4096 && memcmp(a.at, b.at, a.n * sizeof a.at[0]) == 0 &&
                    memcmp(a.which, b.which, a.n * sizeof a.which[0]) == 0;
        if (!same) {
            fprintf(stderr, "  scan and plain differ: length %zu, %zu needles, %zu and %zu calls\n",
                    len, nalso, a.n, b.n);
            bad++;
        }
    }
    /* Each of them alone at every offset of every length up to 200, over zeros and over bytes
     * that are all one of them (a match at every lane). */
    for (size_t len = 0; len <= 200 && bad < 5; len++)
        for (size_t at = 0; at < len; at++)
            for (size_t w = 0; w < 7; w++) {
                memset(p, w == 5 ? 'P' : 0, len);
                const uint8_t *src = w == 6 ? magic : (const uint8_t *)words[w];
                size_t n = w == 6 ? 8 : strlen(words[w]);
                memcpy(p + at, src, at + n <= len ? n : len - at);
                a = (calls){0};
                b = (calls){0};
                smc_fatbin_scan(p, len, needles, 4, record, &a);
                plain_scan(p, len, needles, 4, &b);
                if (a.n != b.n || memcmp(a.at, b.at, a.n * sizeof a.at[0]) != 0 ||
                    memcmp(a.which, b.which, a.n * sizeof a.which[0]) != 0) {
                    fprintf(stderr, "  scan and plain differ: %zu at %zu of %zu\n", w, at, len);
                    bad++;
                }
            }
    CHECK(bad == 0);
}

static void test_walk(void)
{
    buf b = {0};
    size_t c1 = container(&b);
    entry(&b, c1, 2, 75, 0, NULL, 8, 0, 0);
    b.n += 16; /* zero padding: skipped quietly */
    memcpy(b.b + b.n, "GARBAGE!garbage!", 16);
    b.n += 16;
    size_t c2 = container(&b);
    size_t e2 = entry(&b, c2, 2, 80, 0, NULL, 8, 0, 0);
    put(&b, e2 + 4, 8, 4); /* a bad entry: its container is dropped, the walk goes on */
    size_t c3 = container(&b);
    entry(&b, c3, 1, 86, 0, NULL, 8, 0, 0);
    size_t c4 = container(&b);
    put(&b, c4 + 8, 1u << 20, 8); /* runs past the end: reported, nothing after it */

    smc_input *in;
    smc_library *lib = scan(&b, false, NULL, &in);
    CHECK(lib && lib->container_count == 2 && lib->image_count == 2);
    CHECK(lib && lib->container_count == 2 && lib->containers[1].offset == c3);
    CHECK(lib && lib->finding_count == 3);
    if (lib && lib->finding_count == 3) {
        /* From where the first container ends: its padding and the garbage. */
        CHECK(lib->findings[0].offset == c1 + 16 + 72);
        CHECK(strstr(lib->findings[0].message, "32 bytes in the fat binary at +0x58") != NULL);
        CHECK(lib->findings[1].offset == e2);
        CHECK(lib->findings[2].offset == c4);
    }
    smc_input_free(in);
}

/* The image of the only container of b, as the finder read it. */
static smc_image image_at(const buf *b, const smc_options *opt)
{
    smc_input *in;
    smc_library *lib = scan(b, false, opt, &in);
    smc_image img = {0};
    if (lib && lib->image_count == 1) img = lib->images[0];
    smc_input_free(in);
    return img;
}

static smc_status decode(const buf *b, const smc_image *img, uint8_t **out, smc_fatbin_error *err)
{
    void *z = smc_zstd_new();
    smc_status st = smc_payload_decode(b->b + img->offset + img->header_size, img, z, out, err);
    smc_zstd_free(z);
    return st;
}

static const char ptx[] = "//\n// Generated\n//\n\n.version 9.0\n.target sm_90a\n"
                          ".address_size 64\n\n.visible .entry k()\n{\n\tret;\n}\n";

static size_t findings_verified(const buf *b, const char *words)
{
    smc_options opt = {.read.verify = true};
    smc_input *in;
    smc_library *lib = scan(b, false, &opt, &in);
    size_t n = lib ? lib->finding_count : 0;
    if (words && !(n == 1 && strstr(lib->findings[0].message, words))) n = 99;
    smc_input_free(in);
    return n;
}

static void test_payloads(void)
{
    char packed[512];
    /* LZ4: a raw block (§5). */
    int n = LZ4_compress_default(ptx, packed, (int)sizeof ptx, (int)sizeof packed);
    buf b = {0};
    size_t c = container(&b);
    entry(&b, c, 1, 90, 0x2000 | 0x100000, packed, (size_t)n, (size_t)n, sizeof ptx);
    smc_image img = image_at(&b, NULL);
    CHECK(img.compression == SMC_COMPRESS_LZ4 && img.size == sizeof ptx);
    uint8_t *out = NULL;
    smc_fatbin_error err;
    CHECK(decode(&b, &img, &out, &err) == SMC_OK && out && memcmp(out, ptx, sizeof ptx) == 0);
    free(out);
    CHECK(findings_verified(&b, NULL) == 0);

    /* What the text says is read with inspect, from a prefix of the payload. */
    smc_options inspect = {.read.inspect = true};
    img = image_at(&b, &inspect);
    CHECK(img.text_arch == 90 && img.text_variant == SMC_VARIANT_A && img.text_isa == 90);
    img = image_at(&b, NULL);
    CHECK(img.text_arch == 0 && img.text_isa == 0);

    /* The same bytes claiming compute_80: --verify says the .target disagrees. */
    put(&b, c + 16 + 0x1c, 80, 4);
    CHECK(findings_verified(&b, "PTX says .target sm_90a") == 1);

    /* A corrupt LZ4 block. */
    b.b[c + 16 + 64] = 0xff;
    b.b[c + 16 + 65] = 0xff;
    img = image_at(&b, NULL);
    CHECK(decode(&b, &img, &out, &err) == SMC_ERR_FORMAT && !out &&
          strstr(err.message, "LZ4") != NULL);
    CHECK(findings_verified(&b, "LZ4") == 1);

    /* Zstandard: one frame whose content size must agree with the header. */
    size_t z = ZSTD_compress(packed, sizeof packed, ptx, sizeof ptx, 3);
    b = (buf){0};
    c = container(&b);
    entry(&b, c, 1, 90, 0x8000, packed, z, z, sizeof ptx);
    img = image_at(&b, NULL);
    CHECK(decode(&b, &img, &out, &err) == SMC_OK && out && memcmp(out, ptx, sizeof ptx) == 0);
    free(out);
    img = image_at(&b, &inspect);
    CHECK(img.text_arch == 90 && img.text_variant == SMC_VARIANT_A);
    put(&b, c + 16 + 0x38, sizeof ptx + 1, 8);
    img = image_at(&b, NULL);
    CHECK(decode(&b, &img, &out, &err) == SMC_ERR_FORMAT && strstr(err.message, "Zstandard"));

    /* A hostile uncompressed size is refused before any allocation. */
    put(&b, c + 16 + 0x38, (uint64_t)1 << 40, 8);
    img = image_at(&b, NULL);
    CHECK(decode(&b, &img, &out, &err) == SMC_ERR_FORMAT && strstr(err.message, "limit"));

    /* LTO IR is opaque: never decoded. */
    b = (buf){0};
    c = container(&b);
    entry(&b, c, 8, 90, 0x18000, packed, 16, 16, 64);
    img = image_at(&b, NULL);
    CHECK(decode(&b, &img, &out, &err) == SMC_ERR_ARG);
}

static void test_summary(void)
{
    buf b = {0};
    for (int i = 0; i < 3; i++) {
        size_t c = container(&b);
        entry(&b, c, 1, 86, 0, NULL, 8, 0, 0);
        entry(&b, c, 2, 86, 0, NULL, 8, 0, 0);
        entry(&b, c, 2, 80, 0, NULL, 8, 0, 0);
        if (i == 2) entry(&b, c, 2, 80, 0, NULL, 8, 0, 0); /* a duplicate inside one container */
    }
    size_t c = container(&b);
    entry(&b, c, 2, 80, 0, NULL, 8, 0, 0);
    smc_input *in;
    smc_library *lib = scan(&b, false, NULL, &in);
    smc_summary sum = {0};
    CHECK(lib && smc_library_summarize(lib, &sum) == SMC_OK);
    CHECK(sum.token_count == 3);
    if (sum.token_count == 3) {
        CHECK(strcmp(sum.tokens[0].token, "sm_80") == 0 && sum.tokens[0].count == 5);
        CHECK(strcmp(sum.tokens[1].token, "sm_86") == 0 && sum.tokens[1].count == 3);
        CHECK(strcmp(sum.tokens[2].token, "compute_86") == 0 && sum.tokens[2].count == 3);
    }
    CHECK(sum.set_count == 2);
    if (sum.set_count == 2) {
        CHECK(sum.sets[0].containers == 3 &&
              strcmp(sum.sets[0].tokens, "sm_80 sm_86 compute_86") == 0);
        CHECK(sum.sets[1].containers == 1 && strcmp(sum.sets[1].tokens, "sm_80") == 0);
    }
    smc_summary_free(&sum);
    smc_input_free(in);
}

int main(void)
{
    test_valid_container();
    test_unknown_kinds();
    test_empty_container();
    test_container_header_defects();
    test_entry_defects();
    test_find();
    test_scan_any_offset();
    test_scan_against_plain();
    test_walk();
    test_payloads();
    test_summary();
    return check_report();
}

/* test_redact.c: credentials never leave. The user information of every URL written through the
 * output streams, or passed through smc_redact, goes out as "***": whatever stands around it,
 * however the writes split it (byte by byte too), the last '@' of the authority ending it, an
 * authority too long to hold hidden whole; nothing else changes, and the text stream still
 * escapes what is not UTF-8. Prints "N passed, M failed". */
#include "../src/lib/base/base.h"

#include <stdlib.h>
#include <string.h>

#include "check.h"

typedef struct {
    const char *in, *out;
} example;

static const example examples[] = {
    {"https://user:pass@host/x.whl", "https://***@host/x.whl"},
    {"https://__token__:pypi-AgE@upload.pypi.org/simple/", "https://***@upload.pypi.org/simple/"},
    {"see http://a:b@h:8080/p?q=1 and https://c@d#f.", "see http://***@h:8080/p?q=1 and https://***@d#f."},
    {"https://u%3Ax:p%40ss@host", "https://***@host"},         /* percent-encoded, at the end */
    {"https://u:p@ss@host/a", "https://***@host/a"},           /* the last '@' ends it */
    {"https://host/path@x/y", "https://host/path@x/y"},        /* an '@' in the path */
    {"https://host:443", "https://host:443"},                  /* no user information */
    {"\"url\": \"https://u:p@h/x\",", "\"url\": \"https://***@h/x\","}, /* JSON */
    {"<https://u:p@h>", "<https://***@h>"},
    {"(from https://u:p@h)", "(from https://***@h)"},
    {"a://@h", "a://***@h"},
    {"file:///etc/passwd", "file:///etc/passwd"},
    {"no URL: a:b@c, ::// @", "no URL: a:b@c, ::// @"},
    {"https:/u:p@h https//u:p@h", "https:/u:p@h https//u:p@h"},
    {"x://u:p@h\ny://v:q@i", "x://***@h\ny://***@i"},
    {"ftp://u:p@h\r\033[K", "ftp://***@h\r\033[K"},
    {"", ""},
};

/* Writes s through a stream of the kind given, in pieces of `piece` bytes; what came out. */
static char *through(const char *s, size_t piece, bool text)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    FILE *f = text ? smc_text_stream(mem, true) : smc_redact_stream(mem, true);
    size_t n = strlen(s);
    for (size_t at = 0; at < n; at += piece) {
        size_t k = n - at < piece ? n - at : piece;
        fwrite(s + at, 1, k, f);
        fflush(f);
    }
    fclose(f);
    return buf;
}

int main(void)
{
    static const size_t pieces[] = {1, 2, 3, 5, 64, 1u << 20};
    for (size_t i = 0; i < sizeof examples / sizeof *examples; i++) {
        const example *e = &examples[i];
        char *r = smc_redact(smc_strdup(e->in));
        CHECK(r && strcmp(r, e->out) == 0);
        if (r && strcmp(r, e->out) != 0) fprintf(stderr, "  %s -> %s\n", e->in, r);
        free(r);
        CHECK(smc_has_credentials(e->in) == (strcmp(e->in, e->out) != 0));
        for (size_t p = 0; p < sizeof pieces / sizeof *pieces; p++)
            for (int text = 0; text < 2; text++) {
                char *got = through(e->in, pieces[p], text);
                /* the text stream writes ESC as it is (the library's own strings have none) */
                CHECK(got && strcmp(got, e->out) == 0);
                if (got && strcmp(got, e->out) != 0)
                    fprintf(stderr, "  piece %zu text %d: %s -> %s\n", pieces[p], text, e->in, got);
                free(got);
            }
    }

    /* An authority longer than any held: hidden whole, whatever the writes; the rest follows. */
    size_t n = 10000;
    char *long_one = malloc(n + 32);
    memcpy(long_one, "https://", 8);
    memset(long_one + 8, 'k', n);
    strcpy(long_one + 8 + n, "@host/x tail");
    for (size_t p = 0; p < sizeof pieces / sizeof *pieces; p++) {
        char *got = through(long_one, pieces[p], false);
        CHECK(got && strcmp(got, "https://***/x tail") == 0);
        free(got);
    }
    char *r = smc_redact(long_one);
    CHECK(r && strcmp(r, "https://***/x tail") == 0);
    free(r);

    /* The text stream still escapes what is not UTF-8, inside a URL too. */
    char *got = through("https://u:p@h\xff/\xc2\x85", 1, true);
    CHECK(got && strcmp(got, "https://***@h\\xFF/??") == 0);
    free(got);
    CHECK(smc_redact(NULL) == NULL);
    return check_report();
}

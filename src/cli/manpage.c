/* manpage.c: writes smcheck.1, the man page, from the command line's table (options.h), so that
 * --help and the man page say the same. Usage: smcheck-manpage > smcheck.1 */
#include "options.h"
#include "smcheck/model.h"

#include <stdio.h>
#include <string.h>

/* Text for roff: a backslash and a minus escaped, a line that would start a request guarded. */
static void roff(const char *s, size_t n, FILE *f)
{
    for (size_t i = 0; i < n && s[i]; i++) {
        bool line_start = i == 0 || s[i - 1] == '\n';
        if (line_start && (s[i] == '.' || s[i] == '\'')) fputs("\\&", f);
        if (s[i] == '\\') fputs("\\e", f);
        else if (s[i] == '-') fputs("\\-", f);
        else fputc(s[i], f);
    }
}

static void roff_all(const char *s, FILE *f)
{
    roff(s, strlen(s), f);
}

/* The lines of a text joined into one paragraph (the man reader fills it). */
static void paragraph(const char *s, FILE *f)
{
    for (const char *line = s; *line;) {
        size_t n = strcspn(line, "\n");
        roff(line, n, f);
        fputc('\n', f);
        line += n + (line[n] == '\n');
    }
}

int main(void)
{
    FILE *f = stdout;
    printf(".TH SMCHECK 1 \"\" \"smcheck %s\" \"User Commands\"\n", SMC_VERSION);
    puts(".SH NAME\nsmcheck \\- will the CUDA code in a wheel, environment or library run on a GPU?");
    puts(".SH SYNOPSIS\n.nf");
    for (const char *line = usage_synopsis; *line;) {
        size_t n = strcspn(line, "\n");
        const char *form = line + strspn(line, " ");
        if (strncmp(form, "usage: ", 7) == 0) form += 7;
        /* The gloss after two spaces ("list it only") stays out. */
        const char *gloss = strstr(form, "  ");
        size_t len = gloss && gloss < line + n ? (size_t)(gloss - form) : (size_t)(line + n - form);
        fputs(".B ", f);
        roff(form, len, f);
        fputc('\n', f);
        line += n + (line[n] == '\n');
    }
    puts(".fi\n.SH DESCRIPTION");
    paragraph(usage_description, f);
    puts(".SH OPTIONS");
    for (size_t i = 0; i < N_OPTIONS; i++) {
        const option_row *r = &option_rows[i];
        puts(".TP");
        if (r->id < 256) printf("\\fB\\-%c\\fR, ", r->id);
        fputs("\\fB\\-\\-", f);
        roff_all(r->name, f);
        fputs("\\fR", f);
        if (r->arg) {
            fputs(" \\fI", f);
            roff_all(r->arg, f);
            fputs("\\fR", f);
        }
        fputc('\n', f);
        roff_all(r->help, f);
        fputc('\n', f);
    }
    puts(".SH EXIT STATUS");
    for (const char *line = usage_exit_status; *line;) {
        size_t n = strcspn(line, "\n");
        const char *text = line + strspn(line, " ");
        size_t num = strspn(text, "0123456789");
        if (num) {
            printf(".TP\n%.*s\n", (int)num, text);
            text += num + strspn(text + num, " ");
        }
        roff(text, (size_t)(line + n - text), f);
        fputc('\n', f);
        line += n + (line[n] == '\n');
    }
    puts(".SH FILES\n"
         "The compatibility rules and the fat binary layout it reads are described in\n"
         "docs/compatibility.md and docs/fatbin-format.md of its source; the JSON report's\n"
         "schema is docs/report.schema.json.");
    puts(".SH NOTES\nAs a Python wheel, smcheck is the distribution \\fBsmcheck\\-cuda\\fR "
         "(pip install smcheck\\-cuda, once published; the name smcheck on PyPI belongs to another "
         "project, which also installs a command named smcheck: install one of the two). It "
         "installs this executable; python \\-m smcheck_cuda runs it too.");
    puts(".SH SEE ALSO\n.BR cuobjdump (1),\n.BR nvidia\\-smi (1)");
    return ferror(f) ? 1 : 0;
}

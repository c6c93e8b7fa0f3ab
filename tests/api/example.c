/* example.c: a program that uses libsmcheck as an installed library would be used, through
 * <smcheck.h> and `pkg-config --cflags --libs smcheck` only (tests/installed.sh builds it against
 * a fresh install). Usage: example GPUS DRIVER PATH... (DRIVER "" for none)
 * Prints, per library and GPU, "PATH<TAB>GPU<TAB>STATUS<TAB>CAUSE", then each error as
 * "error<TAB>PATH<TAB>MESSAGE"; exits 1 when some GPU is none, 2 when an input was unreadable. */
#include <smcheck.h>

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc < 4) {
        fputs("usage: example GPUS DRIVER PATH...\n", stderr);
        return 64;
    }
    if (strcmp(smcheck_version(), SMCHECK_VERSION_STRING) != 0) {
        fprintf(stderr, "example: header %s, library %s\n", SMCHECK_VERSION_STRING,
                smcheck_version());
        return 3;
    }
    smcheck_session *s;
    smcheck_error e = smcheck_session_new(&s);
    if (e != SMCHECK_OK) {
        fprintf(stderr, "example: %s\n", smcheck_strerror(e));
        return 3;
    }
    if ((e = smcheck_session_set_gpus(s, argv[1])) != SMCHECK_OK ||
        (e = smcheck_session_set_driver(s, argv[2][0] ? argv[2] : NULL)) != SMCHECK_OK) {
        fprintf(stderr, "example: %s: %s\n", smcheck_strerror(e), smcheck_session_message(s));
        smcheck_session_free(s);
        return 64;
    }
    smcheck_report *r;
    e = smcheck_check(s, (const char *const *)argv + 3, (size_t)(argc - 3), &r);
    if (e != SMCHECK_OK) {
        fprintf(stderr, "example: %s: %s\n", smcheck_strerror(e), smcheck_session_message(s));
        smcheck_session_free(s);
        return 3;
    }
    int status = 0;
    for (size_t l = 0; l < smcheck_report_library_count(r); l++)
        for (size_t t = 0; t < smcheck_report_target_count(r); t++)
            printf("%s\tsm_%u\t%s\t%s\n", smcheck_library_path(r, l),
                   smcheck_report_target_capability(r, t),
                   smcheck_status_str(smcheck_library_status(r, l, t)),
                   smcheck_library_cause(r, l, t));
    for (size_t t = 0; t < smcheck_report_target_count(r); t++)
        if (smcheck_report_status(r, t) == SMCHECK_STATUS_NONE) status = 1;
    for (size_t i = 0; i < smcheck_report_error_count(r); i++, status = 2)
        printf("error\t%s\t%s\n", smcheck_report_error_path(r, i),
               smcheck_report_error_message(r, i));
    smcheck_report_free(r);
    smcheck_session_free(s);
    return status;
}

/* api_report.c: a report written through the library API (<smcheck.h>), as a program of a user
 * would: a session with GPUs and a driver, one check, the report in a format. The tests hold it
 * against the command's (tests/agree.py) and the JSON schema (tests/schema.py).
 * Usage: api_report FORMAT GPUS DRIVER PATH... (DRIVER "" for none; GPUS "auto" for the local;
 * the environment variable API_ALLOW, when set, is what smcheck_session_allow is given) */
#include <smcheck.h>

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc < 5) {
        fputs("usage: api_report FORMAT GPUS DRIVER PATH...\n", stderr);
        return 64;
    }
    smcheck_session *s = NULL;
    smcheck_report *r = NULL;
    smcheck_error e = smcheck_session_new(&s);
    if (e == SMCHECK_OK) e = smcheck_session_set_gpus(s, argv[2]);
    if (e == SMCHECK_OK) e = smcheck_session_set_driver(s, argv[3][0] ? argv[3] : NULL);
    const char *allow = getenv("API_ALLOW");
    if (e == SMCHECK_OK && allow) e = smcheck_session_allow(s, (unsigned)strtoul(allow, NULL, 0));
    if (e == SMCHECK_OK) e = smcheck_check(s, (const char *const *)argv + 4, (size_t)(argc - 4), &r);
    if (e == SMCHECK_OK) e = smcheck_report_write(r, argv[1], stdout);
    if (e != SMCHECK_OK)
        fprintf(stderr, "api_report: %s: %s\n", smcheck_strerror(e), smcheck_session_message(s));
    smcheck_report_free(r);
    smcheck_session_free(s);
    return e == SMCHECK_OK ? 0 : 3;
}

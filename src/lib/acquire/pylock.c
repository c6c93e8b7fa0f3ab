/* pylock.c: pylock.toml (PEP 751): markers on packages, every platform's wheels listed; the wheel
 * chosen for the environment as pip would choose it. */
#include "lock_read.h"

#include <string.h>

bool lock_read_pylock(reader *r, const cJSON *root, char *why, size_t n)
{
    /* PEP 751: an installer refuses a lock-version whose major version it does not know */
    const char *lv = lock_str(root, "lock-version");
    if (!lv || !(strcmp(lv, "1") == 0 || strncmp(lv, "1.", 2) == 0)) {
        smc_say(why, n, "its lock-version %.40s is not 1.x, the one this reads",
                lv ? lv : "(not a string)");
        return false;
    }
    const cJSON *envs = lock_get(root, "environments");
    if (cJSON_IsArray(envs) && cJSON_GetArraySize(envs) > 0) {
        bool any = false;
        for (const cJSON *m = lock_items(envs); m && !any; m = m->next)
            any = lock_marker_holds(r, "environments", m);
        if (!any) {
            const cJSON *first = lock_items(envs);
            smc_say(why, n, "none of its environments ('%.100s'%s) is %s",
                    cJSON_IsString(first) ? first->valuestring : "?", first->next ? ", ..." : "",
                    r->env);
            return false;
        }
    }
    const char *rp = lock_str(root, "requires-python");
    if (rp && smc_pep440_match(rp, r->e->python_full_version) == 0) {
        smc_say(why, n, "it requires Python %.100s, not %s", rp, r->e->python_full_version);
        return false;
    }
    const cJSON *pkgs = lock_get(root, "packages");
    if (pkgs && !cJSON_IsArray(pkgs)) {
        smc_say(why, n, "its packages are not an array of tables");
        return false;
    }
    for (const cJSON *pkg = lock_items(pkgs); pkg; pkg = pkg->next) {
        const char *name = lock_str(pkg, "name"), *version = lock_str(pkg, "version");
        if (!name) {
            if (!lock_problem(r, "a package without a name")) return false;
            continue;
        }
        char what[256];
        lock_package_words(name, version, what, sizeof what);
        if (!lock_marker_holds(r, what, lock_get(pkg, "marker"))) continue;
        const cJSON *w = lock_best_wheel(lock_get(pkg, "wheels"), r->e);
        /* packages.archive: a file by url or path, which may be a wheel */
        const cJSON *archive = lock_get(pkg, "archive");
        if (!w && cJSON_IsObject(archive)) {
            char file[1024];
            lock_wheel_file(archive, file, sizeof file);
            if (file[0] && smc_wheel_rank(r->e, file) >= 0) w = archive;
        }
        bool ok;
        if (w)
            ok = lock_pin_wheel(r, what, name, version, w, lock_str(pkg, "index"), NULL);
        else if (lock_local_directory(pkg))
            ok = lock_note(r, "%s: %s", what, LOCAL_DIRECTORY);
        else
            ok = lock_problem(r, "%s: no wheel for %s%s", what, r->env, lock_instead(pkg));
        if (!ok) return false;
    }
    return true;
}

/* image_oci.c: a container image's OCI index.json (or docker save's manifest.json), nested
 * indexes followed to the manifest of the platform asked for, and its config. */
#include "../rules/rules.h"
#include "image_private.h"

#include <smcheck/builds.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *str_of(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}
/* The platform asked for, as OCI writes it: "linux/amd64". */
static void wanted_platform(const image *im, char *buf, size_t n)
{
    const char *p = im->opt && im->opt->walk.image_platform ? im->opt->walk.image_platform : NULL;
    const char *name = p ? smc_platform_name(p) : NULL;
    if (p && !name) {
        snprintf(buf, n, "%s", p); /* as given: "linux/arm/v7" */
        return;
    }
    if (!name) name = smc_platform_here();
    snprintf(buf, n, "%s",
             strcmp(name, "linux-aarch64") == 0   ? "linux/arm64"
             : strcmp(name, "windows-amd64") == 0 ? "windows/amd64"
             : strcmp(name, "windows-arm64") == 0 ? "windows/arm64"
                                                  : "linux/amd64");
}

/* An index found in another (todo[parent], or index.json: SMC_NONE), to be read. */
typedef struct pending {
    char *name;
    int depth;
    size_t parent;
} pending;

/* Where an index is already to be read (each is read once, however often it is listed), or
 * SMC_NONE. */
static size_t queued(const pending *todo, size_t nt, const char *name)
{
    for (size_t i = 0; i < nt; i++)
        if (strcmp(todo[i].name, name) == 0) return i;
    return SMC_NONE;
}

/* Whether todo[at] is self or one of the indexes that led to it: listing it again is a cycle. */
static bool leads_to(const pending *todo, size_t self, size_t at)
{
    for (size_t i = self; i != SMC_NONE; i = todo[i].parent)
        if (i == at) return true;
    return false;
}

/* The image manifests one index (iname: todo[self], or index.json) lists, into found, and the
 * indexes it nests, into todo; at most ENTRIES_MAX of its entries are read. A cycle of indexes
 * and one nested too deep are errors that name them (*said), not an index that lists nothing. */
static smc_status collect_one(image *im, const cJSON *index, const char *iname, size_t self,
                              int depth, cJSON *found, pending **todo, size_t *nt, bool *said)
{
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(index, "manifests"), *m;
    if (!cJSON_IsArray(list)) list = NULL;
    int count = 0;
    cJSON_ArrayForEach(m, list)
    {
        if (++count > ENTRIES_MAX)
            return smc_input_add_error(im->part, im->path,
                                       "%s: an index of more than %d manifests: the rest are not "
                                       "read",
                                       iname, ENTRIES_MAX);
        const char *mt = str_of(m, "mediaType"), *digest = str_of(m, "digest");
        if (!digest) continue;
        bool nested = mt && (strstr(mt, "image.index") || strstr(mt, "manifest.list"));
        if (nested) {
            char *name = img_blob_name(digest);
            size_t there = name ? queued(*todo, *nt, name) : SMC_NONE;
            smc_status st = SMC_OK;
            if (!name) {
                st = smc_input_add_error(im->part, im->path,
                                         "%s: a digest that names no blob: %.80s", iname, digest);
            } else if (there != SMC_NONE && leads_to(*todo, self, there)) {
                *said = true;
                st = smc_input_add_error(
                    im->part, im->path,
                    there == self ? "%s lists itself as an index: a cycle, not read again"
                                  : "%s lists %s, an index that leads to it: a cycle, "
                                    "not read again",
                    iname, name);
            } else if (depth >= DEPTH_MAX) {
                *said = true;
                st = smc_input_add_error(im->part, im->path,
                                         "%s: indexes nested deeper than %d: not read", iname,
                                         DEPTH_MAX);
            } else if (*nt <= BLOBS_MAX && there == SMC_NONE) { /* one past the cap, for
                                                                 * read_json to say it */
                pending *slot = smc_push(todo, *nt, sizeof *slot);
                if (!slot) {
                    free(name);
                    return SMC_ERR_NOMEM;
                }
                *slot = (pending){name, depth + 1, self};
                (*nt)++;
                name = NULL;
            }
            free(name);
            if (st != SMC_OK) return st;
            continue;
        }
        const cJSON *pl = cJSON_GetObjectItemCaseSensitive(m, "platform");
        const char *os = str_of(pl, "os"), *arch = str_of(pl, "architecture");
        char platform[96];
        snprintf(platform, sizeof platform, "%s/%s", os ? os : "", arch ? arch : "");
        if (os && strcmp(os, "unknown") == 0) continue; /* buildx's attestations */
        cJSON *one = cJSON_CreateObject();
        if (!one) return SMC_ERR_NOMEM;
        cJSON_AddStringToObject(one, "digest", digest);
        cJSON_AddStringToObject(one, "platform", pl ? platform : "");
        cJSON_AddItemToArray(found, one);
    }
    return SMC_OK;
}

/* Gathers the image manifests an index lists, through nested indexes, breadth first and one
 * index at a time, within the caps on depth, on each index's entries and on the documents read
 * (issue 26: 16 nested indexes a level, 4 levels deep, read 423 MiB from 48 KB). */
static smc_status collect(image *im, const cJSON *index, cJSON *found, bool *said)
{
    pending *todo = NULL;
    size_t nt = 0;
    smc_status st = collect_one(im, index, "index.json", SMC_NONE, 0, found, &todo, &nt, said);
    for (size_t i = 0; st == SMC_OK && i < nt; i++) {
        cJSON *inner = img_read_json(im, todo[i].name, false);
        if (inner)
            st = collect_one(im, inner, todo[i].name, i, todo[i].depth, found, &todo, &nt, said);
        cJSON_Delete(inner);
    }
    for (size_t i = 0; i < nt; i++)
        free(todo[i].name);
    free(todo);
    return st;
}

/* The layers (blob names, bottom first) and config of the image to read; 0 when none. */
smc_status img_choose(image *im, char ***layers, size_t *nl, char **config)
{
    *layers = NULL;
    *nl = 0;
    *config = NULL;
    cJSON *index = img_read_json(im, "index.json", true);
    cJSON *manifest = NULL;
    smc_status st = SMC_OK;
    if (index) {
        cJSON *found = cJSON_CreateArray();
        if (!found) st = SMC_ERR_NOMEM;
        bool said = false; /* a cycle or a depth past the cap, named already */
        if (st == SMC_OK) st = collect(im, index, found, &said);
        char want[64];
        wanted_platform(im, want, sizeof want);
        const cJSON *pick = NULL, *c;
        size_t count = (size_t)cJSON_GetArraySize(found);
        cJSON_ArrayForEach(c, found)
        {
            const char *p = str_of(c, "platform");
            if ((p && strcmp(p, want) == 0) || (count == 1 && (!p || !*p))) {
                pick = c;
                break;
            }
        }
        if (!pick && count == 1) pick = found->child;
        if (st == SMC_OK && !pick && count) {
            char list[512] = "";
            cJSON_ArrayForEach(c, found)
            {
                size_t k = strlen(list);
                snprintf(list + k, sizeof list - k, "%s%s", k ? ", " : "", str_of(c, "platform"));
            }
            st = smc_input_add_error(im->part, im->path,
                                     "no image for %s in its index (it has %s): --platform "
                                     "chooses one",
                                     want, list);
        } else if (st == SMC_OK && pick) {
            char *name = img_blob_name(str_of(pick, "digest"));
            if (name)
                manifest = img_read_json(im, name, false);
            else
                st = smc_input_add_error(im->part, im->path, "a digest that names no blob");
            free(name);
        } else if (st == SMC_OK && !said) {
            st = smc_input_add_error(im->part, im->path, "index.json lists no image manifest");
        }
        cJSON_Delete(found);
        cJSON_Delete(index);
        if (st != SMC_OK || !manifest) return st;
        const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(manifest, "config"), *l;
        *config = img_blob_name(str_of(cfg, "digest"));
        const cJSON *ls = cJSON_GetObjectItemCaseSensitive(manifest, "layers");
        if (!cJSON_IsArray(ls)) ls = NULL;
        cJSON_ArrayForEach(l, ls)
        {
            char *name = img_blob_name(str_of(l, "digest"));
            char **slot = name ? smc_push(layers, *nl, sizeof *slot) : NULL;
            if (!slot) {
                free(name);
                st = name ? SMC_ERR_NOMEM
                          : smc_input_add_error(im->part, im->path,
                                                "a layer whose digest names no blob");
                if (st != SMC_OK) break;
                continue;
            }
            *slot = name;
            (*nl)++;
        }
        cJSON_Delete(manifest);
        return st;
    }
    /* docker save before 25: manifest.json, [{Config, RepoTags, Layers}] */
    cJSON *legacy = img_read_json(im, "manifest.json", true);
    const cJSON *first = cJSON_IsArray(legacy) ? legacy->child : NULL, *l;
    if (!first) {
        cJSON_Delete(legacy);
        return smc_input_add_error(im->part, im->path,
                                   "neither an OCI layout (index.json) nor a docker save "
                                   "(manifest.json): not an image");
    }
    if (cJSON_GetArraySize(legacy) > 1)
        st = smc_input_add_note(im->part, "%s: holds %d images: the first is read", im->path,
                                cJSON_GetArraySize(legacy));
    /* Its names are free text: only a relative path beneath the image, of a sane length. */
    const char *cfg = str_of(first, "Config");
    if (cfg && !img_legacy_name(cfg))
        st = smc_input_add_error(im->part, im->path,
                                 "manifest.json names a config outside the image (%.80s%s): not "
                                 "read",
                                 cfg, strlen(cfg) > 80 ? "..." : "");
    else if (cfg && !(*config = smc_strdup(cfg)))
        st = SMC_ERR_NOMEM;
    const cJSON *ls = cJSON_GetObjectItemCaseSensitive(first, "Layers");
    if (!cJSON_IsArray(ls)) ls = NULL;
    cJSON_ArrayForEach(l, ls)
    {
        if (!cJSON_IsString(l) || st != SMC_OK) continue;
        if (!img_legacy_name(l->valuestring)) {
            st = smc_input_add_error(im->part, im->path,
                                     "manifest.json names a layer outside the image (%.80s%s): "
                                     "not read",
                                     l->valuestring, strlen(l->valuestring) > 80 ? "..." : "");
            continue;
        }
        char **slot = smc_push(layers, *nl, sizeof *slot);
        if (!slot || !(*slot = smc_strdup(l->valuestring))) {
            st = SMC_ERR_NOMEM;
            break;
        }
        (*nl)++;
    }
    cJSON_Delete(legacy);
    return st;
}

/* What the config says about CUDA (NVIDIA_REQUIRE_CUDA, CUDA_VERSION), as notes. */
smc_status img_read_config(image *im, const char *name)
{
    cJSON *cfg = name ? img_read_json(im, name, false) : NULL;
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(cfg, "config");
    const cJSON *env = cJSON_GetObjectItemCaseSensitive(c, "Env"), *v;
    smc_status st = SMC_OK;
    if (!cJSON_IsArray(env)) env = NULL;
    cJSON_ArrayForEach(v, env)
    {
        if (!cJSON_IsString(v) || st != SMC_OK) continue;
        const char *s = v->valuestring;
        if (strncmp(s, "NVIDIA_REQUIRE_CUDA=", 20) == 0 && !im->part->require_cuda) {
            /* "cuda>=12.8 brand=tesla,driver>=535 ...": the first cuda>= is what is asked */
            const char *at = strstr(s + 20, "cuda>=");
            int asked = 0;
            if (at && smc_driver_parse_prefix(at + 6, &asked))
                im->part->require_cuda_version = asked;
            if (!(im->part->require_cuda = smc_strdup_clean(s))) st = SMC_ERR_NOMEM;
        }
        if (strncmp(s, "NVIDIA_REQUIRE_CUDA=", 20) == 0 || strncmp(s, "CUDA_VERSION=", 13) == 0) {
            char *clean = smc_strdup_clean(s);
            st = clean ? smc_input_add_note(im->part, "%s: the image's config says %.300s",
                                            im->path, clean)
                       : SMC_ERR_NOMEM;
            free(clean);
        }
    }
    cJSON_Delete(cfg);
    return st;
}

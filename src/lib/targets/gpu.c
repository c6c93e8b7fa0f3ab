/* gpu.c: the local GPUs and driver as the CUDA Driver API reports them. libcuda.so.1 is loaded
 * at run time (never linked, no CUDA headers needed), so smcheck runs where there is no driver;
 * each way the driver can be absent or unusable gets its own message. SMCHECK_LIBCUDA names
 * another library to load (the tests' stub). */
#include "../base/base.h"

#include <smcheck/builds.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

/* The few Driver API values used here, from the CUDA Driver API reference (cuda.h). */
enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_NOT_INITIALIZED = 3,
    CUDA_ERROR_STUB_LIBRARY = 34,
    CUDA_ERROR_INSUFFICIENT_DRIVER = 35,
    CUDA_ERROR_NO_DEVICE = 100,
    CUDA_ERROR_SYSTEM_DRIVER_MISMATCH = 803,
    CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE = 804,
    ATTR_INTEGRATED = 18,
    ATTR_CC_MAJOR = 75,
    ATTR_CC_MINOR = 76,
};

typedef int (*cu_init_fn)(unsigned);
typedef int (*cu_int_fn)(int *);
typedef int (*cu_device_get_fn)(int *, int);
typedef int (*cu_device_name_fn)(char *, int, int);
typedef int (*cu_device_attr_fn)(int *, int, int);
typedef int (*cu_error_name_fn)(int, const char **);

typedef struct api {
    cu_init_fn init;
    cu_int_fn driver_version, device_count;
    cu_device_get_fn device_get;
    cu_device_name_fn device_name;
    cu_device_attr_fn device_attr;
    cu_error_name_fn error_name; /* optional */
} api;

static void say(smc_driver *d, int error, const char *fmt, ...) SMC_PRINTF(3, 4);

static void say(smc_driver *d, int error, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->message, sizeof d->message, fmt, ap);
    va_end(ap);
    d->error = error;
}

/* Explains a failed cuInit or device query in the user's terms (docs/compatibility.md §2.3 and
 * §2.9). */
static void explain(smc_driver *d, const api *a, int rc, const char *call)
{
    const char *visible = getenv("CUDA_VISIBLE_DEVICES");
    const char *name = NULL;
    if (a->error_name && a->error_name(rc, &name) != CUDA_SUCCESS) name = NULL;
    switch (rc) {
    case CUDA_ERROR_STUB_LIBRARY:
        say(d, rc, "libcuda.so.1 is the CUDA toolkit's stub library, not a driver");
        break;
    case CUDA_ERROR_NO_DEVICE:
        if (visible)
            say(d, rc, "CUDA_VISIBLE_DEVICES=\"%s\" hides every device", visible);
        else
            say(d, rc, "the driver is installed but sees no CUDA device");
        break;
    case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
        say(d, rc,
            "libcuda.so.1 does not match the loaded NVIDIA kernel module (a driver update "
            "without a reboot, or a cuda-compat library for another branch)");
        break;
    case CUDA_ERROR_INSUFFICIENT_DRIVER:
        say(d, rc, "the NVIDIA kernel module is older than libcuda.so.1 (insufficient driver)");
        break;
    case CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE:
        say(d, rc, "this GPU does not support the forward-compatibility libcuda that is loaded");
        break;
    default:
        say(d, rc, "%s failed with CUDA error %d%s%s%s", call, rc, name ? " (" : "",
            name ? name : "", name ? ")" : "");
    }
}

static void *symbol(void *lib, const char *name, smc_driver *d)
{
    void *p = dlsym(lib, name);
    if (!p && !d->message[0]) say(d, -1, "libcuda.so.1 lacks %s", name);
    return p;
}

smc_status smc_driver_probe(smc_driver *d)
{
    *d = (smc_driver){0};
    const char *path = getenv("SMCHECK_LIBCUDA");
    if (!path || !*path) path = "libcuda.so.1";
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        say(d, -1, "no NVIDIA driver: cannot load %s (%s)", path, dlerror());
        return SMC_OK;
    }
    d->loaded = true;
    api a = {
        .init = (cu_init_fn)symbol(lib, "cuInit", d),
        .driver_version = (cu_int_fn)symbol(lib, "cuDriverGetVersion", d),
        .device_count = (cu_int_fn)symbol(lib, "cuDeviceGetCount", d),
        .device_get = (cu_device_get_fn)symbol(lib, "cuDeviceGet", d),
        .device_name = (cu_device_name_fn)symbol(lib, "cuDeviceGetName", d),
        .device_attr = (cu_device_attr_fn)symbol(lib, "cuDeviceGetAttribute", d),
        .error_name = (cu_error_name_fn)dlsym(lib, "cuGetErrorName"),
    };
    smc_status st = SMC_OK;
    int rc, count = 0;
    if (d->message[0]) goto done;
    /* The driver's CUDA version needs no initialisation and survives a failed cuInit. */
    if (a.driver_version(&d->cuda_version) != CUDA_SUCCESS) d->cuda_version = 0;
    unsigned isa_major, isa_minor;
    if (smc_ptx_isa_for_cuda(d->cuda_version, &isa_major, &isa_minor))
        d->max_ptx_isa = isa_major * 10 + isa_minor;
    if ((rc = a.init(0)) != CUDA_SUCCESS) {
        explain(d, &a, rc, "cuInit");
        goto done;
    }
    if ((rc = a.device_count(&count)) != CUDA_SUCCESS) {
        explain(d, &a, rc, "cuDeviceGetCount");
        goto done;
    }
    if (count <= 0) {
        explain(d, &a, CUDA_ERROR_NO_DEVICE, "cuDeviceGetCount");
        goto done;
    }
    d->gpus = calloc((size_t)count, sizeof *d->gpus);
    if (!d->gpus) {
        st = SMC_ERR_NOMEM;
        goto done;
    }
    for (int i = 0; i < count; i++) {
        smc_gpu *g = &d->gpus[d->gpu_count];
        int dev, major = 0, minor = 0, integrated = 0;
        if ((rc = a.device_get(&dev, i)) != CUDA_SUCCESS ||
            (rc = a.device_attr(&major, ATTR_CC_MAJOR, dev)) != CUDA_SUCCESS ||
            (rc = a.device_attr(&minor, ATTR_CC_MINOR, dev)) != CUDA_SUCCESS) {
            explain(d, &a, rc, "a device query");
            continue;
        }
        if (a.device_name(g->name, (int)sizeof g->name, dev) != CUDA_SUCCESS)
            snprintf(g->name, sizeof g->name, "CUDA device %d", i);
        g->name[sizeof g->name - 1] = '\0';
        a.device_attr(&integrated, ATTR_INTEGRATED, dev);
        g->index = i;
        g->cc_major = major > 0 ? (unsigned)major : 0;
        g->cc_minor = minor > 0 ? (unsigned)minor : 0;
        g->integrated = integrated != 0;
        d->gpu_count++;
    }
done:
    dlclose(lib);
    return st;
}

void smc_driver_free(smc_driver *d)
{
    free(d->gpus);
    *d = (smc_driver){0};
}

/* Targets ------------------------------------------------------------------------------------- */

/* Appends a target unless the same GPU is there already (eight H100s judge once). */
static bool push_target(smc_target **v, size_t *n, const smc_target *t)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp((*v)[i].name, t->name) == 0 && (*v)[i].cc_major == t->cc_major &&
            (*v)[i].cc_minor == t->cc_minor)
            return true;
    smc_target *grown = realloc(*v, (*n + 1) * sizeof *grown);
    if (!grown) return false;
    *v = grown;
    grown[(*n)++] = *t;
    return true;
}

static int by_capability(const void *a, const void *b)
{
    const smc_target *x = a, *y = b;
    unsigned cx = x->cc_major * 10 + x->cc_minor, cy = y->cc_major * 10 + y->cc_minor;
    return cx < cy ? -1 : cx > cy;
}

smc_status smc_targets_representative(const smc_gpu_table *table, smc_target **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    for (size_t i = 0; i < table->count; i++) {
        const smc_gpu_model *m = &table->models[i];
        smc_target t = {.cc_major = m->cc_major, .cc_minor = m->cc_minor};
        snprintf(t.name, sizeof t.name, "%.*s", (int)sizeof t.name - 1, m->name);
        if (m->representative && !push_target(out, n, &t)) {
            free(*out);
            *out = NULL;
            *n = 0;
            return SMC_ERR_NOMEM;
        }
    }
    if (*n) qsort(*out, *n, sizeof **out, by_capability);
    return SMC_OK;
}

smc_status smc_targets_local(const smc_gpu_table *table, const smc_driver *d, smc_target **out,
                             size_t *n)
{
    *out = NULL;
    *n = 0;
    for (size_t i = 0; i < d->gpu_count; i++) {
        smc_target t = {.cc_major = d->gpus[i].cc_major, .cc_minor = d->gpus[i].cc_minor}, m;
        snprintf(t.name, sizeof t.name, "%.*s", (int)sizeof t.name - 1, d->gpus[i].name);
        char unused[8]; /* the table's word on it, when its name is there ("NVIDIA H100 ...") */
        if (smc_target_parse(table, d->gpus[i].name, &m, unused, sizeof unused) == 1 &&
            m.cc_major == t.cc_major && m.cc_minor == t.cc_minor)
            t.compat = m.compat;
        if (!push_target(out, n, &t)) {
            free(*out);
            *out = NULL;
            *n = 0;
            return SMC_ERR_NOMEM;
        }
    }
    return SMC_OK;
}

bool smc_targets_for_platform(smc_input *const *inputs, size_t n, smc_target *targets, size_t *nt)
{
    bool x86 = false, arm = false;
    for (size_t i = 0; i < n; i++) {
        const smc_input *in = inputs[i];
        for (size_t l = 0; l < in->library_count; l++) {
            const smc_library *lib = &in->libraries[l];
            const char *tag = lib->distribution < in->distribution_count
                                  ? in->distributions[lib->distribution].platform
                                  : NULL;
            const char *p = smc_platform_name(tag);
            x86 |= lib->machine == 62 || (p && strcmp(p, "linux-x86_64") == 0);
            arm |= lib->machine == 183 || (p && strcmp(p, "linux-aarch64") == 0) ||
                   (lib->machine != 62 && !p); /* a raw fatbin or cubin: anywhere */
        }
    }
    if (!x86 || arm) return false;
    size_t kept = 0;
    for (size_t t = 0; t < *nt; t++)
        if (!smc_gpu_arm_only(&targets[t])) targets[kept++] = targets[t];
    bool dropped = kept < *nt;
    *nt = kept;
    return dropped;
}

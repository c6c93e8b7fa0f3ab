/* stub_libcuda.c: a stand-in for libcuda.so.1 that the tests load through SMCHECK_LIBCUDA. Its
 * behaviour comes from the environment, so every failure mode of a real driver can be played:
 *   STUB_INIT_ERROR      CUresult cuInit returns (default 0)
 *   STUB_DRIVER_VERSION  what cuDriverGetVersion reports (default 13000)
 *   STUB_DEVICES         "name|major.minor|integrated;..." (default: none, so cuInit succeeds
 *                        and cuDeviceGetCount reports 0) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct device {
    char name[128];
    int major, minor, integrated;
} device;

static device devices[16];
static int device_count;

static int env_int(const char *name, int fallback)
{
    const char *v = getenv(name);
    return v && *v ? atoi(v) : fallback;
}

static void load_devices(void)
{
    const char *spec = getenv("STUB_DEVICES");
    device_count = 0;
    if (!spec) return;
    char copy[2048];
    snprintf(copy, sizeof copy, "%s", spec);
    for (char *save = NULL, *d = strtok_r(copy, ";", &save); d && device_count < 16;
         d = strtok_r(NULL, ";", &save)) {
        device *dev = &devices[device_count];
        char *bar = strchr(d, '|');
        if (!bar) continue;
        *bar = '\0';
        snprintf(dev->name, sizeof dev->name, "%s", d);
        if (sscanf(bar + 1, "%d.%d|%d", &dev->major, &dev->minor, &dev->integrated) < 2) continue;
        device_count++;
    }
}

int cuInit(unsigned flags)
{
    (void)flags;
    load_devices();
    return env_int("STUB_INIT_ERROR", 0);
}

int cuDriverGetVersion(int *v)
{
    *v = env_int("STUB_DRIVER_VERSION", 13000);
    return 0;
}

int cuDeviceGetCount(int *n)
{
    *n = device_count;
    return 0;
}

int cuDeviceGet(int *dev, int ordinal)
{
    if (ordinal < 0 || ordinal >= device_count) return 101; /* CUDA_ERROR_INVALID_DEVICE */
    *dev = ordinal;
    return 0;
}

int cuDeviceGetName(char *name, int len, int dev)
{
    if (dev < 0 || dev >= device_count || len <= 0) return 101;
    snprintf(name, (size_t)len, "%s", devices[dev].name);
    return 0;
}

int cuDeviceGetAttribute(int *value, int attr, int dev)
{
    if (dev < 0 || dev >= device_count) return 101;
    switch (attr) {
    case 75:
        *value = devices[dev].major;
        return 0;
    case 76:
        *value = devices[dev].minor;
        return 0;
    case 18:
        *value = devices[dev].integrated;
        return 0;
    default:
        return 1; /* CUDA_ERROR_INVALID_VALUE */
    }
}

int cuGetErrorName(int error, const char **name)
{
    *name = error == 999 ? "CUDA_ERROR_UNKNOWN" : NULL;
    return *name ? 0 : 1;
}

/* nvvm-targets.c: which targets a libNVVM accepts, by asking it (tools/nvvm-targets.sh runs it on
 * the NVVM of each nvidia-cuda-nvcc-cu12 and nvidia-nvvm wheel). numba-cuda compiles its kernels
 * with libNVVM for compute_XX: a target NVVM does not know fails there with
 * NVVM_ERROR_INVALID_OPTION.
 *
 * usage: nvvm-targets LIBNVVM ARCH...   (ARCH as nvcc writes it: 75, 90a, 100f)
 * prints "NVVM MAJOR.MINOR: ARCH..." with the targets it compiled a small module for. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

typedef int (*create_fn)(void **);
typedef int (*add_fn)(void *, const char *, size_t, const char *);
typedef int (*compile_fn)(void *, int, const char **);
typedef int (*destroy_fn)(void **);
typedef int (*version_fn)(int *, int *);

/* One empty function: enough for NVVM to check the target option and emit PTX for it. The data
 * layout is written out in full: NVVM 12.x refuses a module with the short one, and 13.4 for
 * Blackwell's targets ("Target-incompatible DataLayout"); every release takes this one. */
static const char module[] = "target datalayout = \"e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-"
                             "i64:64:64-i128:128:128-f32:32:32-f64:64:64-v16:16:16-v32:32:32-"
                             "v64:64:64-v128:128:128-n16:32:64\"\n"
                             "target triple = \"nvptx64-nvidia-cuda\"\n"
                             "define void @k() {\n  ret void\n}\n"
                             "!nvvmir.version = !{!0}\n!0 = !{i32 2, i32 0}\n";

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s LIBNVVM ARCH...\n", argv[0]);
        return 2;
    }
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "%s\n", dlerror());
        return 2;
    }
    create_fn create = (create_fn)dlsym(h, "nvvmCreateProgram");
    add_fn add = (add_fn)dlsym(h, "nvvmAddModuleToProgram");
    compile_fn compile = (compile_fn)dlsym(h, "nvvmCompileProgram");
    destroy_fn destroy = (destroy_fn)dlsym(h, "nvvmDestroyProgram");
    version_fn version = (version_fn)dlsym(h, "nvvmVersion");
    if (!create || !add || !compile || !destroy || !version) {
        fprintf(stderr, "%s: not a libNVVM\n", argv[1]);
        return 2;
    }
    int major = 0, minor = 0;
    version(&major, &minor);
    printf("NVVM %d.%d:", major, minor);
    for (int i = 2; i < argc; i++) {
        void *p = NULL;
        if (create(&p) != 0) return 2;
        char option[64];
        snprintf(option, sizeof option, "-arch=compute_%s", argv[i]);
        const char *options[] = {option};
        if (add(p, module, sizeof module - 1, "probe") == 0 && compile(p, 1, options) == 0)
            printf(" %s", argv[i]);
        destroy(&p);
    }
    printf("\n");
    return 0;
}

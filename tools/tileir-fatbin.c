/* tileir-fatbin.c: writes a fat binary through NVIDIA's nvFatbin (libnvfatbin, from the PyPI
 * wheel nvidia-nvfatbin): a Tile IR entry from a bytecode file, and with --ptx a small PTX entry
 * for sm_80 beside it. Used by tools/tileir-fixtures.sh to make fixtures/nvfatbin; not built by
 * the project. Usage: tileir-fatbin OUT.fatbin BYTECODE [--ptx] */
#include <nvFatbin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failed(const char *what, nvFatbinResult r)
{
    if (r == NVFATBIN_SUCCESS) return 0;
    fprintf(stderr, "tileir-fatbin: %s: %s\n", what, nvFatbinGetErrorString(r));
    return 1;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: tileir-fatbin OUT.fatbin BYTECODE [--ptx]\n");
        return 2;
    }
    FILE *in = fopen(argv[2], "rb");
    static unsigned char code[1 << 20];
    size_t n = in ? fread(code, 1, sizeof code, in) : 0;
    if (!in || n == 0) {
        perror(argv[2]);
        return 1;
    }
    fclose(in);
    static const char ptx[] = ".version 8.0\n.target sm_80\n.address_size 64\n\n"
                              ".visible .entry k()\n{\n\tret;\n}\n";
    const char *options[] = {"-64"};
    nvFatbinHandle h = NULL;
    if (failed("create", nvFatbinCreate(&h, options, 1))) return 1;
    int bad = argc > 3 && strcmp(argv[3], "--ptx") == 0 &&
              failed("add PTX", nvFatbinAddPTX(h, ptx, sizeof ptx, "80", "k.ptx", ""));
    bad |= failed("add Tile IR", nvFatbinAddTileIR(h, code, n, "vadd.tileirbc", ""));
    size_t size = 0;
    bad |= failed("size", nvFatbinSize(h, &size));
    void *out = bad ? NULL : malloc(size);
    bad |= !out || failed("get", nvFatbinGet(h, out));
    FILE *f = bad ? NULL : fopen(argv[1], "wb");
    bad |= !f || fwrite(out, 1, size, f) != size;
    if (f) bad |= fclose(f) != 0;
    free(out);
    nvFatbinDestroy(&h);
    return bad;
}

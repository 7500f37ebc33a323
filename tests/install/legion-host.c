/* tests/install/legion-host.c: the runtime side of check-legion-build.sh.
 * Like Realm with its GASNet-EX network module, it is built without GASNet
 * and loads the module (tests/install/legion-wrapper.c, a shared library
 * holding libgasnet-ibv-par.a) with dlopen at run time.
 *   legion-host LIBRARY [args...]
 * Exits 2 when the library cannot be loaded; otherwise the module's
 * legion_wrapper_run() ends the job (gasnet_exit). */
#include <dlfcn.h>
#include <stdio.h>

typedef int (*run_fn)(int *argc, char ***argv);

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s LIBRARY [args...]\n", argv[0]);
        return 2;
    }
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "legion-host: dlopen %s: %s\n", argv[1], dlerror());
        return 2;
    }
    run_fn run;
    *(void **)&run = dlsym(lib, "legion_wrapper_run");
    if (!run) {
        fprintf(stderr, "legion-host: %s has no legion_wrapper_run: %s\n", argv[1], dlerror());
        return 2;
    }
    return run(&argc, &argv);
}

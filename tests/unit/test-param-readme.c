/* tests/unit/test-param-readme.c: runs tests/unit/check-readme-params.sh on
 * the source tree's README.md with the built generator, so the unit-test
 * list (programs only) fails when the README variable reference is stale.
 * TOP_SRCDIR and TOP_BUILDDIR come from the build (other/local.mk). */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef TOP_SRCDIR
#error TOP_SRCDIR must be defined by the build
#endif
#ifndef TOP_BUILDDIR
#error TOP_BUILDDIR must be defined by the build
#endif

int main(void)
{
    const char *script = TOP_SRCDIR "/tests/unit/check-readme-params.sh";
    const char *readme = TOP_SRCDIR "/README.md";
    const char *gen = TOP_BUILDDIR "/other/param/gasnet-param-doc";
    pid_t pid;
    int status;

    fflush(stdout);
    pid = fork();
    if (pid < 0) {
        perror("test-param-readme: fork");
        return 1;
    }
    if (pid == 0) {
        execl("/bin/sh", "sh", script, readme, gen, (char *)NULL);
        perror("test-param-readme: exec /bin/sh");
        _exit(127);
    }
    if (waitpid(pid, &status, 0) < 0) {
        perror("test-param-readme: waitpid");
        return 1;
    }
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    printf("FAIL: check-readme-params.sh killed by signal %d\n", WTERMSIG(status));
    return 1;
}

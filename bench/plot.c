#include "plot.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "results.h"

int plot_run(const char *dir, const char *name, const char *script,
             const char *vars, int *made, char *why, size_t whylen,
             rb_err *e)
{
    *made = 0;
    int rc = results_write_file(dir, name, script, strlen(script), e);
    if (rc)
        return rc;
    const pid_t pid = fork();
    if (pid < 0)
        return rb_fail(e, RB_EINPUT, "cannot start gnuplot: %s",
                       strerror(errno));
    if (pid == 0) {
        if (chdir(dir) != 0)
            _exit(126);
        /* gnuplot's warnings (a curve of one point, say) go to a log in
         * the folder, not over the summary. */
        const int log = open("plot.log", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (log >= 0) {
            dup2(log, 1);
            dup2(log, 2);
        }
        execlp("gnuplot", "gnuplot", "-e", vars, name, (char *)NULL);
        _exit(127);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    if (WIFEXITED(st) && WEXITSTATUS(st) == 127) {
        snprintf(why, whylen,
                 "gnuplot not found: install it (apt-get install -y "
                 "gnuplot-nox) and run gnuplot -e \"%s\" %s in %s",
                 vars, name, dir);
        return RB_OK;
    }
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        return rb_fail(e, RB_EMEASURE,
                       "gnuplot failed on %s/%s (status %d; see plot.log)",
                       dir, name, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    *made = 1;
    return RB_OK;
}

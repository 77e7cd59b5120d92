#include "plot.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Removes the files of dir that match one of patterns. */
static void remove_outputs(const char *dir, const char *const *patterns)
{
    DIR *d = opendir(dir);
    for (struct dirent *de; d && (de = readdir(d));)
        for (size_t i = 0; patterns[i]; i++)
            if (fnmatch(patterns[i], de->d_name, 0) == 0) {
                char p[2700];
                snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
                unlink(p);
                break;
            }
    if (d)
        closedir(d);
}

int plot_run(runfolder *f, const char *name, const char *script,
             const char *const *outputs, int *made, char *why, size_t whylen,
             rb_err *e)
{
    *made = 0;
    int rc = runfolder_write(f, name, script, strlen(script), e);
    if (rc)
        return rc;
    const pid_t pid = fork();
    if (pid < 0)
        return rb_fail(e, RB_EINPUT, "cannot start gnuplot: %s",
                       strerror(errno));
    if (pid == 0) {
        if (chdir(f->tmp) != 0)
            _exit(126);
        /* gnuplot's warnings (a curve of one point, say) go to a log in
         * the folder, not over the summary. */
        const int log = open("plot.log", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (log >= 0) {
            dup2(log, 1);
            dup2(log, 2);
        }
        execlp("gnuplot", "gnuplot", name, (char *)NULL);
        _exit(127);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (WIFEXITED(st) && WEXITSTATUS(st) == 127) {
        snprintf(why, whylen,
                 "gnuplot not found: install it (sudo apt-get install -y "
                 "gnuplot-nox) and run gnuplot %s in %s",
                 name, f->final);
        return RB_OK;
    }
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        remove_outputs(f->tmp, outputs);
        return rb_fail(e, RB_EMEASURE,
                       "gnuplot failed on %s (status %d; see plot.log in %s)",
                       name, WIFEXITED(st) ? WEXITSTATUS(st) : -1, f->final);
    }
    *made = 1;
    return RB_OK;
}

#include "plot.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "interrupt.h"

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

/* Whether the file ends as a whole PNG (its IEND chunk) or SVG does. A
 * full disk cuts gnuplot's output short without an error from gnuplot. */
static int whole(const char *path)
{
    static const unsigned char iend[] = {'I',  'E', 'N',  'D',
                                         0xae, 'B', 0x60, 0x82};
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return 0;
    unsigned char tail[64] = {0};
    size_t n = 0;
    if (fseek(fp, -(long)sizeof(tail), SEEK_END) != 0)
        rewind(fp);
    n = fread(tail, 1, sizeof(tail), fp);
    fclose(fp);
    const size_t len = strlen(path);
    if (len > 4 && strcmp(path + len - 4, ".png") == 0)
        return n >= sizeof(iend) &&
               memcmp(tail + n - sizeof(iend), iend, sizeof(iend)) == 0;
    if (len > 4 && strcmp(path + len - 4, ".svg") == 0) {
        for (size_t i = 0; i + 6 <= n; i++)
            if (memcmp(tail + i, "</svg>", 6) == 0)
                return 1;
        return 0;
    }
    return n > 0;
}

/* 1 when every output in dir is whole; else 0 with the first cut-off one's
 * name in bad. */
static int outputs_whole(const char *dir, const char *const *patterns,
                         char *bad, size_t badlen)
{
    DIR *d = opendir(dir);
    int ok = d != NULL;
    for (struct dirent *de; ok && (de = readdir(d));)
        for (size_t i = 0; patterns[i]; i++)
            if (fnmatch(patterns[i], de->d_name, 0) == 0) {
                char p[2700];
                snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
                if (!whole(p)) {
                    snprintf(bad, badlen, "%s", de->d_name);
                    ok = 0;
                }
                break;
            }
    if (d)
        closedir(d);
    else
        snprintf(bad, badlen, "chart");
    return ok;
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
    /* A chart is the last step; Ctrl-C during it stops gnuplot and keeps
     * the documents, with the chart noted as not drawn. */
    int st = 0;
    for (;;) {
        const pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid || (w < 0 && errno != EINTR))
            break;
        if (interrupt_requested()) {
            kill(pid, SIGKILL);
            while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
                ;
            break;
        }
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    }
    /* Ctrl-C reaches gnuplot too (one process group): its failure then is
     * the interrupt's */
    if (interrupt_requested() && !(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
        remove_outputs(f->tmp, outputs);
        snprintf(why, whylen,
                 "interrupted while gnuplot drew it: run gnuplot %s in %s",
                 name, f->shown);
        return RB_OK;
    }
    if (WIFEXITED(st) && WEXITSTATUS(st) == 127) {
        snprintf(why, whylen,
                 "gnuplot not found: install it (sudo apt-get install -y "
                 "gnuplot-nox) and run gnuplot %s in %s",
                 name, f->shown);
        return RB_OK;
    }
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        remove_outputs(f->tmp, outputs);
        return rb_fail(e, RB_EMEASURE,
                       "gnuplot failed on %s (status %d; see plot.log in %s)",
                       name, WIFEXITED(st) ? WEXITSTATUS(st) : -1, f->shown);
    }
    char bad[256];
    if (!outputs_whole(f->tmp, outputs, bad, sizeof(bad))) {
        remove_outputs(f->tmp, outputs);
        return rb_fail(e, RB_EMEASURE,
                       "gnuplot wrote a cut-off %s (is the disk full?); run "
                       "gnuplot %s in %s",
                       bad, name, f->shown);
    }
    *made = 1;
    return RB_OK;
}

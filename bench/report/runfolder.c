#include "runfolder.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "text.h"

const char *const runfolder_names[] = {
    /* run */
    "results.json", "results.csv",
    /* ceilings, and the roofline run and orders measure for themselves */
    "ceilings.json", "bandwidth.csv", "levels.csv", "plot-bandwidth.gp",
    "bandwidth.png", "bandwidth.svg",
    /* orders */
    "orders.json", "orders.csv", "orders-roofline.csv", "plot-orders.gp",
    "orders-*.png", "orders-*.svg",
    /* gnuplot's log, cachegrind's output while a form is simulated */
    "plot.log", "cachegrind.*", NULL};

int runfolder_is_ours(const char *name)
{
    for (size_t i = 0; runfolder_names[i]; i++)
        if (fnmatch(runfolder_names[i], name, 0) == 0)
            return 1;
    return 0;
}

void runfolder_utc(char *iso, size_t isolen, char *stamp, size_t stamplen)
{
    const time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    if (iso)
        strftime(iso, isolen, "%Y-%m-%dT%H:%M:%SZ", &tm);
    if (stamp)
        strftime(stamp, stamplen, "%Y%m%dT%H%M%SZ", &tm);
}

/* ---- checks ----------------------------------------------------------------
 */

/* What dir holds: 0 nothing, 1 other files, 2 results (*which names one). */
static int holds(const char *dir, char *which, size_t len)
{
    DIR *d = opendir(dir);
    int found = 0;
    for (struct dirent *de; d && (de = readdir(d));) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        if (runfolder_is_ours(de->d_name)) {
            snprintf(which, len, "%s", de->d_name);
            found = 2;
            break;
        }
        found = 1;
    }
    if (d)
        closedir(d);
    return found;
}

/* The deepest existing ancestor of path must be a writable folder. */
static int check_creatable(const char *flag, const char *path,
                           const char *shown, rb_err *e)
{
    char buf[2048];
    if (strlen(path) >= sizeof(buf))
        return rb_fail(e, RB_EINPUT, "%s '%s': path too long", flag, shown);
    strcpy(buf, path);
    for (;;) {
        struct stat st;
        if (stat(buf, &st) == 0) {
            if (!S_ISDIR(st.st_mode))
                return rb_fail(e, RB_EINPUT,
                               "%s '%s': a part of it exists and is not a "
                               "folder",
                               flag, shown);
            if (access(buf, W_OK | X_OK) != 0)
                return rb_fail(e, RB_EINPUT,
                               "%s '%s': a folder on the way is not writable: "
                               "%s",
                               flag, shown, strerror(errno));
            return RB_OK;
        }
        if (errno != ENOENT)
            return rb_fail(e, RB_EINPUT, "%s '%s': %s", flag, shown,
                           strerror(errno));
        char *slash = strrchr(buf, '/');
        if (!slash)
            strcpy(buf, ".");
        else if (slash == buf)
            buf[1] = '\0';
        else
            *slash = '\0';
    }
}

int runfolder_check(const char *root, const char *out, rb_err *e)
{
    if (!out)
        return check_creatable("results folder", root, root, e);
    char shown[512], which[256];
    text_escape(out, shown, sizeof(shown));
    if (*out == '\0')
        return rb_fail(e, RB_EINPUT, "--out '': an empty folder name");
    struct stat st;
    if (stat(out, &st) == 0) {
        if (!S_ISDIR(st.st_mode))
            return rb_fail(e, RB_EINPUT,
                           "--out '%s': exists and is not a folder", shown);
        const int h = holds(out, which, sizeof(which));
        if (h == 2)
            return rb_fail(e, RB_EINPUT,
                           "--out '%s': the folder already holds results "
                           "(%s); results are never overwritten, choose a new "
                           "folder",
                           shown, which);
        if (h == 1)
            return rb_fail(e, RB_EINPUT,
                           "--out '%s': the folder is not empty; results go "
                           "to a new or empty folder",
                           shown);
        if (access(out, W_OK | X_OK) != 0)
            return rb_fail(e, RB_EINPUT, "--out '%s': not writable: %s", shown,
                           strerror(errno));
        return RB_OK;
    }
    return check_creatable("--out", out, shown, e);
}

/* ---- building
 * ---------------------------------------------------------------- */

/* mkdir -p, recording each folder it creates. */
static int make_parents(runfolder *f, const char *path)
{
    char buf[2048];
    if (strlen(path) >= sizeof(buf)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    strcpy(buf, path);
    for (char *p = buf + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        const char c = *p;
        *p = '\0';
        if (mkdir(buf, 0777) == 0) {
            if (f->nmade < RUNFOLDER_MAX_MADE)
                snprintf(f->made[f->nmade++], sizeof(f->made[0]), "%s", buf);
        } else if (errno != EEXIST) {
            return -1;
        }
        *p = c;
        if (c == '\0')
            break;
    }
    return 0;
}

int runfolder_open(runfolder *f, const char *root, const char *out,
                   const char *host, const char *stamp, rb_err *e)
{
    memset(f, 0, sizeof(*f));
    int rc = runfolder_check(root, out, e);
    if (rc)
        return rc;
    if (out) {
        snprintf(f->final, sizeof(f->final), "%s", out);
    } else {
        snprintf(f->root, sizeof(f->root), "%s", root);
        snprintf(f->base, sizeof(f->base), "%s/%s-%s", root, host, stamp);
        snprintf(f->final, sizeof(f->final), "%s", f->base);
    }
    /* the parent of the final folder, and the temporary folder in it */
    char parent[2400];
    snprintf(parent, sizeof(parent), "%s", f->final);
    char *slash = strrchr(parent, '/');
    while (slash && slash > parent && slash[1] == '\0') {
        *slash = '\0';
        slash = strrchr(parent, '/');
    }
    const char *name = slash ? slash + 1 : parent;
    char leaf[256];
    snprintf(leaf, sizeof(leaf), "%.200s", name);
    if (slash == parent)
        parent[1] = '\0';
    else if (slash)
        *slash = '\0';
    else
        strcpy(parent, ".");
    if (make_parents(f, parent) != 0) {
        char shown[512];
        text_escape(f->final, shown, sizeof(shown));
        rc = rb_fail(e, RB_EINPUT, "cannot create the folders of '%s': %s",
                     shown, strerror(errno));
        runfolder_abandon(f);
        return rc;
    }
    snprintf(f->tmp, sizeof(f->tmp), "%s/.%s.part-XXXXXX", parent, leaf);
    if (!mkdtemp(f->tmp)) {
        rc = rb_fail(e, RB_EINPUT, "cannot create a folder beside '%s': %s",
                     f->final, strerror(errno));
        f->tmp[0] = '\0';
        runfolder_abandon(f);
        return rc;
    }
    /* mkdtemp makes it private; a run folder is as mkdir would make it */
    const mode_t mask = umask(0);
    umask(mask);
    chmod(f->tmp, 0777 & ~mask);
    return RB_OK;
}

void runfolder_choose(runfolder *f)
{
    if (!f->root[0])
        return;
    struct stat st;
    snprintf(f->final, sizeof(f->final), "%s", f->base);
    for (int i = 2; i < 1000 && stat(f->final, &st) == 0; i++)
        snprintf(f->final, sizeof(f->final), "%s-%d", f->base, i);
}

static int write_all(int fd, const char *data, size_t len)
{
    size_t done = 0;
    while (done < len) {
        const ssize_t w = write(fd, data + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        done += (size_t)w;
    }
    return 0;
}

int runfolder_write(runfolder *f, const char *name, const char *data,
                    size_t len, rb_err *e)
{
    if (!runfolder_is_ours(name))
        return rb_fail(e, RB_EINPUT,
                       "internal: '%s' is not a run folder file (runfolder.c "
                       "lists them)",
                       name);
    char tmp[2600], final[2600];
    snprintf(tmp, sizeof(tmp), "%s/.%s.XXXXXX", f->tmp, name);
    snprintf(final, sizeof(final), "%s/%s", f->tmp, name);
    const int fd = mkstemp(tmp);
    if (fd < 0)
        return rb_fail(e, RB_EINPUT, "%s: %s", name, strerror(errno));
    int err = 0;
    if (write_all(fd, data, len) != 0 || fchmod(fd, 0644) != 0 ||
        fsync(fd) != 0)
        err = errno ? errno : EIO;
    if (close(fd) != 0 && !err)
        err = errno;
    /* link() refuses to replace an existing name, unlike rename(). */
    if (!err && link(tmp, final) != 0)
        err = errno;
    unlink(tmp);
    if (err)
        return rb_fail(e, RB_EINPUT, "%s: %s", name,
                       err == EEXIST ? "already written: not overwritten"
                                     : strerror(err));
    return RB_OK;
}

static int sync_dir(const char *dir)
{
    const int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd < 0)
        return -1;
    const int rc = fsync(fd);
    close(fd);
    return rc;
}

int runfolder_commit(runfolder *f, rb_err *e)
{
    if (sync_dir(f->tmp) != 0)
        return rb_fail(e, RB_EINPUT, "syncing '%s': %s", f->tmp,
                       strerror(errno));
    if (f->root[0]) {
        /* a default name never replaces anything, even an empty folder */
        for (int i = 0; i < 1000; i++) {
            if (renameat2(AT_FDCWD, f->tmp, AT_FDCWD, f->final,
                          RENAME_NOREPLACE) == 0) {
                f->committed = 1;
                break;
            }
            if (errno != EEXIST)
                break;
            snprintf(f->final, sizeof(f->final), "%s-%d", f->base, i + 2);
        }
    } else if (rename(f->tmp, f->final) == 0) {
        /* --out was checked new or empty; rename replaces an empty one */
        f->committed = 1;
    }
    if (!f->committed)
        return rb_fail(e, RB_EINPUT, "cannot rename '%s' to '%s': %s", f->tmp,
                       f->final, strerror(errno));
    char parent[2600];
    snprintf(parent, sizeof(parent), "%s", f->final);
    char *slash = strrchr(parent, '/');
    if (slash && slash != parent) {
        *slash = '\0';
        sync_dir(parent);
    }
    return RB_OK;
}

void runfolder_abandon(runfolder *f)
{
    if (f->committed)
        return;
    if (f->tmp[0]) {
        DIR *d = opendir(f->tmp);
        for (struct dirent *de; d && (de = readdir(d));) {
            if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                continue;
            char p[2700];
            snprintf(p, sizeof(p), "%s/%s", f->tmp, de->d_name);
            unlink(p);
        }
        if (d)
            closedir(d);
        rmdir(f->tmp);
        f->tmp[0] = '\0';
    }
    for (int i = f->nmade - 1; i >= 0; i--)
        rmdir(f->made[i]);
    f->nmade = 0;
}

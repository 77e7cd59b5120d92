#include "runfolder.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
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
    "orders-*.png", "orders-*.svg", "orders-traffic.csv", "plot-traffic.gp",
    "traffic-*.png", "traffic-*.svg",
    /* sweep */
    "sweep.json", "sweep.csv", "sweep-samples.csv", "sweep-roofs.csv",
    "sweep-knees.csv", "plot-sweep.gp", "sweep.png", "sweep.svg",
    /* network */
    "network.json", "network-*.csv", "plot-network.gp", "network.png",
    "network.svg",
    /* check */
    "check.json",
    /* all: the steps, the documents of the steps that print one, each
     * step's output */
    "steps.json", "info.json", "model.json", "ceilings.txt", "run.txt",
    "orders.txt", "sweep.txt", "network.txt", "info.log", "ceilings.log",
    "run.log", "orders.log", "sweep.log", "network.log", "model.log",
    "roofline-roofs.dat", "roofline-labels.csv", "roofline-points.csv",
    "roofline-levels.csv",
    "plot-roofline.gp", "roofline.png", "roofline.svg", "roofline.json",
    "reference-roofs.csv",
    "reference-ridges.csv", "plot-reference.gp", "reference.png",
    "reference.svg", "report.md",
    "report.html",
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

/* An existing --out: an empty folder that is not the current folder, a
 * mount point or the root, whose parent can take the temporary folder. */
static int check_existing(const char *out, const char *shown, rb_err *e)
{
    char real[PATH_MAX], cwd[PATH_MAX], parent[PATH_MAX + 4], which[256];
    struct stat st, up;
    if (!realpath(out, real) || stat(real, &st) != 0)
        return rb_fail(e, RB_EINPUT, "--out '%s': %s", shown, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return rb_fail(e, RB_EINPUT, "--out '%s': exists and is not a folder",
                       shown);
    const int h = holds(real, which, sizeof(which));
    if (h == 2)
        return rb_fail(e, RB_EINPUT,
                       "--out '%s': the folder already holds results (%s); "
                       "results are never overwritten, choose a new folder",
                       shown, which);
    if (h == 1)
        return rb_fail(e, RB_EINPUT,
                       "--out '%s': the folder is not empty; results go to a "
                       "new or empty folder",
                       shown);
    snprintf(parent, sizeof(parent), "%s/..", real);
    if (strcmp(real, "/") == 0 || stat(parent, &up) != 0 ||
        up.st_dev != st.st_dev)
        return rb_fail(e, RB_EINPUT,
                       "--out '%s': a mount point; results go to a folder "
                       "inside it",
                       shown);
    if (getcwd(cwd, sizeof(cwd)) && strcmp(cwd, real) == 0)
        return rb_fail(e, RB_EINPUT,
                       "--out '%s': the current folder; results go to a new "
                       "folder",
                       shown);
    if (access(real, W_OK | X_OK) != 0 || access(parent, W_OK | X_OK) != 0)
        return rb_fail(e, RB_EINPUT,
                       "--out '%s': it or the folder above it is not "
                       "writable: %s",
                       shown, strerror(errno));
    return RB_OK;
}

int runfolder_check(const char *root, const char *out, rb_err *e)
{
    if (!out)
        return check_creatable("results folder", root, root, e);
    char shown[512];
    text_escape(out, shown, sizeof(shown));
    if (*out == '\0')
        return rb_fail(e, RB_EINPUT, "--out '': an empty folder name");
    if (strlen(out) >= 2048)
        return rb_fail(e, RB_EINPUT, "--out '%.60s...': path too long", shown);
    struct stat st;
    if (stat(out, &st) == 0)
        return check_existing(out, shown, e);
    if (lstat(out, &st) == 0)
        return rb_fail(e, RB_EINPUT,
                       "--out '%s': a symbolic link to nothing; results go "
                       "to a new folder or an existing empty one",
                       shown);
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

/* The folder above path (without trailing slashes) and the last part. */
static void split_path(const char *path, char *parent, size_t plen, char *leaf,
                       size_t llen)
{
    snprintf(parent, plen, "%s", path);
    char *slash = strrchr(parent, '/');
    while (slash && slash > parent && slash[1] == '\0') {
        *slash = '\0';
        slash = strrchr(parent, '/');
    }
    snprintf(leaf, llen, "%.200s", slash ? slash + 1 : parent);
    if (slash == parent)
        parent[1] = '\0';
    else if (slash)
        *slash = '\0';
    else
        snprintf(parent, plen, ".");
}

/* As mkdir would make it (mkdtemp makes it private), or as the empty
 * folder it will replace was. */
static void set_mode(const char *dir, const struct stat *like)
{
    if (like) {
        chmod(dir, like->st_mode & 07777);
        if (chown(dir, like->st_uid, like->st_gid) != 0)
            chmod(dir, like->st_mode & 0777);
        return;
    }
    const mode_t mask = umask(0);
    umask(mask);
    chmod(dir, 0777 & ~mask);
}

/* A default folder: the first of base, base-2, ... that is free, reserved
 * by making its temporary folder, ".<name>.part", which another run
 * choosing at the same moment cannot make too. */
static int reserve(runfolder *f, rb_err *e)
{
    for (int k = 1; k < 1000; k++) {
        char name[2300];
        if (k == 1)
            snprintf(name, sizeof(name), "%s", f->base);
        else
            snprintf(name, sizeof(name), "%s-%d", f->base, k);
        struct stat st;
        if (stat(name, &st) == 0)
            continue;
        char parent[2300], leaf[256];
        split_path(name, parent, sizeof(parent), leaf, sizeof(leaf));
        snprintf(f->tmp, sizeof(f->tmp), "%.2100s/.%.200s.part", parent, leaf);
        if (mkdir(f->tmp, 0777) == 0) {
            snprintf(f->final, sizeof(f->final), "%s", name);
            return RB_OK;
        }
        if (errno != EEXIST)
            break;
    }
    const int err = errno;
    f->tmp[0] = '\0';
    return rb_fail(e, RB_EINPUT, "cannot make a run folder under '%s': %s",
                   f->root, strerror(err));
}

/* --out: beside it, ".<name>.part-XXXXXX"; an existing (empty) folder is
 * replaced by its resolved path, with its permissions. */
static int beside(runfolder *f, const char *out, rb_err *e)
{
    struct stat st;
    const int existing = stat(out, &st) == 0;
    if (existing && !realpath(out, f->final))
        return rb_fail(e, RB_EINPUT, "--out '%s': %s", out, strerror(errno));
    if (!existing)
        snprintf(f->final, sizeof(f->final), "%s", out);
    char parent[2300], leaf[256];
    split_path(f->final, parent, sizeof(parent), leaf, sizeof(leaf));
    if (make_parents(f, parent) != 0)
        return rb_fail(e, RB_EINPUT, "cannot create the folders of '%s': %s",
                       out, strerror(errno));
    snprintf(f->tmp, sizeof(f->tmp), "%.2100s/.%.200s.part-XXXXXX", parent,
             leaf);
    if (!mkdtemp(f->tmp)) {
        f->tmp[0] = '\0';
        return rb_fail(e, RB_EINPUT, "cannot create a folder beside '%s': %s",
                       out, strerror(errno));
    }
    f->replace = existing;
    set_mode(f->tmp, existing ? &st : NULL);
    return RB_OK;
}

int runfolder_open(runfolder *f, const char *root, const char *out,
                   const char *host, const char *stamp, rb_err *e)
{
    memset(f, 0, sizeof(*f));
    int rc = runfolder_check(root, out, e);
    if (rc)
        return rc;
    if (out) {
        rc = beside(f, out, e);
    } else {
        snprintf(f->root, sizeof(f->root), "%s", root);
        snprintf(f->base, sizeof(f->base), "%s/%s-%s", root, host, stamp);
        rc = make_parents(f, root) == 0
                 ? reserve(f, e)
                 : rb_fail(e, RB_EINPUT, "cannot create '%s': %s", root,
                           strerror(errno));
        if (!rc)
            set_mode(f->tmp, NULL);
    }
    if (rc)
        runfolder_abandon(f);
    else
        text_escape(f->final, f->shown, sizeof(f->shown));
    return rc;
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

/* Renames tmp to final without replacing anything, also where the
 * filesystem has no RENAME_NOREPLACE (NFS): there the name is claimed by
 * mkdir first, and the empty folder replaced. */
static int rename_new(const char *tmp, const char *final)
{
    if (renameat2(AT_FDCWD, tmp, AT_FDCWD, final, RENAME_NOREPLACE) == 0)
        return 0;
    if (errno != EINVAL && errno != ENOSYS)
        return -1;
    if (mkdir(final, 0700) != 0)
        return -1;
    if (rename(tmp, final) == 0)
        return 0;
    const int err = errno;
    rmdir(final);
    errno = err;
    return -1;
}

int runfolder_commit(runfolder *f, rb_err *e)
{
    if (sync_dir(f->tmp) != 0)
        return rb_fail(e, RB_EINPUT, "syncing '%s': %s", f->tmp,
                       strerror(errno));
    /* --out on an existing folder was checked empty: rename replaces it */
    const int rc =
        f->replace ? rename(f->tmp, f->final) : rename_new(f->tmp, f->final);
    if (rc != 0) {
        /* the documents are whole: keep them where they are */
        f->kept = 1;
        return rb_fail(e, RB_EINPUT,
                       "cannot rename the finished folder to '%s': %s; the "
                       "complete results are kept in '%s'",
                       f->final, strerror(errno), f->tmp);
    }
    f->committed = 1;
    char parent[2300], leaf[256];
    split_path(f->final, parent, sizeof(parent), leaf, sizeof(leaf));
    sync_dir(parent);
    return RB_OK;
}

int runfolder_publish(runfolder *f, rb_err *e)
{
    const int rc = runfolder_commit(f, e);
    if (!rc)
        snprintf(f->tmp, sizeof(f->tmp), "%s", f->final);
    return rc;
}

/* Removes what a run put in dir, and dir: its files and, depth levels
 * down, its folders (a subfolder per step, for report); a link is
 * removed, never followed. */
static void remove_ours(const char *dir, int depth)
{
    DIR *d = opendir(dir);
    for (struct dirent *de; d && (de = readdir(d));) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        char p[2700];
        snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
        struct stat st;
        if (depth > 0 && lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
            remove_ours(p, depth - 1);
        else
            unlink(p);
    }
    if (d)
        closedir(d);
    rmdir(dir);
}

void runfolder_abandon(runfolder *f)
{
    if (f->committed || f->kept)
        return;
    if (f->tmp[0]) {
        remove_ours(f->tmp, 1);
        f->tmp[0] = '\0';
    }
    for (int i = f->nmade - 1; i >= 0; i--)
        rmdir(f->made[i]);
    f->nmade = 0;
}

int runfolder_write_text(runfolder *f, const char *name, char *text, rb_err *e)
{
    const int rc = text ? runfolder_write(f, name, text, strlen(text), e)
                        : rb_fail(e, RB_EINPUT, "out of memory for %s", name);
    free(text);
    return rc;
}

/* fabric_load.c — libfabric loaded on first use, not at program start.
 *
 * Debian's libfabric.so.1 links the PSM providers' libraries
 * (libpsm_infinipath -> libinfinipath), whose constructor calibrates a
 * cycle counter with ~160 sleeps at load time: 0.3-1 s added to the start
 * of every process that links libfabric, whether it opens an endpoint or
 * not (docs/libfabric.md "Startup cost"). So nothing links it: these are
 * the only five libfabric functions the tree calls (everything else in
 * <rdma/fi_*.h> is an inline call through the fid's ops), defined here
 * with libfabric's own prototypes; the first call dlopen()s
 * libfabric.so.1 and binds each to the symbol version the headers
 * describe, exactly what linking it would have bound. A server without a
 * --libfabric target, goblin-cli and goblin-bench on other transports
 * never load it.
 *
 * Without a loadable libfabric, fi_getinfo() and fi_fabric() fail with
 * -FI_ENOSYS and fi_strerror() names dlopen's error, so the caller's
 * message ("provider 'efa' offers no FI_EP_RDM endpoint ...") says why. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <rdma/fabric.h>
#include <rdma/fi_errno.h>
#include <stdio.h>

#define FABRIC_SONAME "libfabric.so.1"

static struct {
    int (*getinfo)(uint32_t, const char *, const char *, uint64_t, const struct fi_info *,
                   struct fi_info **);
    void (*freeinfo)(struct fi_info *);
    struct fi_info *(*dupinfo)(const struct fi_info *);
    int (*fabric)(struct fi_fabric_attr *, struct fid_fabric **, void *);
    const char *(*strerror_fn)(int);
    char error[256]; /* why it could not be loaded; "" when loaded */
} lib;

static pthread_once_t lib_once = PTHREAD_ONCE_INIT;

/* Binds name at the version the linker would have chosen for these headers. */
static void *lib_bind(void *handle, const char *name, const char *version)
{
    void *f = dlvsym(handle, name, version);
    if (!f && !lib.error[0])
        snprintf(lib.error, sizeof lib.error, "%s: no %s@%s", FABRIC_SONAME, name, version);
    return f;
}

static void lib_load(void)
{
    void *h = dlopen(FABRIC_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(lib.error, sizeof lib.error, "cannot load libfabric: %s", dlerror());
        return;
    }
    *(void **)&lib.getinfo = lib_bind(h, "fi_getinfo", "FABRIC_1.3");
    *(void **)&lib.freeinfo = lib_bind(h, "fi_freeinfo", "FABRIC_1.3");
    *(void **)&lib.dupinfo = lib_bind(h, "fi_dupinfo", "FABRIC_1.3");
    *(void **)&lib.fabric = lib_bind(h, "fi_fabric", "FABRIC_1.1");
    *(void **)&lib.strerror_fn = lib_bind(h, "fi_strerror", "FABRIC_1.0");
    if (lib.error[0]) lib.getinfo = NULL, lib.fabric = NULL; /* refuse a partial library */
}

static bool lib_ready(void)
{
    pthread_once(&lib_once, lib_load);
    return lib.getinfo != NULL;
}

int fi_getinfo(uint32_t version, const char *node, const char *service, uint64_t flags,
               const struct fi_info *hints, struct fi_info **info)
{
    if (!lib_ready()) return -FI_ENOSYS;
    return lib.getinfo(version, node, service, flags, hints, info);
}

void fi_freeinfo(struct fi_info *info)
{
    /* An fi_info comes only from a loaded library (fi_getinfo, fi_dupinfo). */
    if (info && lib_ready()) lib.freeinfo(info);
}

struct fi_info *fi_dupinfo(const struct fi_info *info)
{
    return lib_ready() ? lib.dupinfo(info) : NULL;
}

int fi_fabric(struct fi_fabric_attr *attr, struct fid_fabric **fabric, void *context)
{
    if (!lib_ready()) return -FI_ENOSYS;
    return lib.fabric(attr, fabric, context);
}

const char *fi_strerror(int errnum)
{
    if (!lib_ready()) return lib.error;
    return lib.strerror_fn(errnum);
}

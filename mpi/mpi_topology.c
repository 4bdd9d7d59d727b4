/*
 * mpi_topology.c -- /topology: which ranks share a node and which GPU.
 *
 * Per rank: host name, node-local rank and size (MPI_Comm_split_type
 * shared), a node id equal on every rank of the node (its lowest world
 * rank), and the CUDA device the rank's current context uses (ordinal,
 * UUID, PCI bus id), measured at finalize.  The CUDA query lives in
 * cudaQuery() alone: it only asks a driver the process has already loaded
 * (dlopen RTLD_NOLOAD), never initialises CUDA or makes a context, and
 * says "unknown" otherwise.
 */
#include "mpiInt.h"

#if GPUINST_WITH_MPI

#include <dlfcn.h>
#include <stddef.h>

typedef struct TopoRec {
    uint32_t rank;
    int32_t node_rank, node_size;
    int32_t node_id;          /* lowest world rank on the node */
    int32_t cuda_device;      /* ordinal of the current context's device, -1 unknown */
    uint32_t pad_;
    char hostname[64];
    char gpu_uuid[48];        /* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" or "unknown" */
    char pci_bus_id[32];      /* "0000:3b:00.0" or "unknown" */
    char cuda_visible_devices[64];
} TopoRec;

static TopoRec topo;
static int topoDone;

/* The driver API entry points used here, declared without cuda.h so that
 * this builds with or without the CUDA headers. */
typedef int (*CuCtxGetCurrentFn)(void **ctx);
typedef int (*CuCtxGetDeviceFn)(int *dev);
typedef int (*CuDeviceGetUuidFn)(unsigned char uuid[16], int dev);
typedef int (*CuDeviceGetPCIBusIdFn)(char *id, int len, int dev);

static void *symbol(void *lib, const char *name, void *fnptr, size_t size)
{
    void *s = dlsym(lib, name);
    memcpy(fnptr, &s, size); /* object -> function pointer without a cast ISO C forbids */
    return s;
}

static void cudaQuery(TopoRec *r)
{
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    CuCtxGetCurrentFn getCurrent = NULL;
    CuCtxGetDeviceFn getDevice = NULL;
    CuDeviceGetUuidFn getUuid = NULL;
    CuDeviceGetPCIBusIdFn getBus = NULL;
    void *ctx = NULL;
    int dev = -1;
    unsigned char u[16];
    r->cuda_device = -1;
    snprintf(r->gpu_uuid, sizeof r->gpu_uuid, "unknown");
    snprintf(r->pci_bus_id, sizeof r->pci_bus_id, "unknown");
    if (lib == NULL) return; /* the program does not use CUDA (or not through the driver yet) */
    symbol(lib, "cuCtxGetCurrent", &getCurrent, sizeof getCurrent);
    symbol(lib, "cuCtxGetDevice", &getDevice, sizeof getDevice);
    if (symbol(lib, "cuDeviceGetUuid_v2", &getUuid, sizeof getUuid) == NULL)
        symbol(lib, "cuDeviceGetUuid", &getUuid, sizeof getUuid);
    symbol(lib, "cuDeviceGetPCIBusId", &getBus, sizeof getBus);
    if (getCurrent && getDevice && getCurrent(&ctx) == 0 && ctx != NULL && getDevice(&dev) == 0) {
        r->cuda_device = dev;
        if (getUuid && getUuid(u, dev) == 0)
            snprintf(r->gpu_uuid, sizeof r->gpu_uuid,
                     "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2],
                     u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
        if (getBus) getBus(r->pci_bus_id, (int)sizeof r->pci_bus_id, dev);
    }
    dlclose(lib);
}

GPUINST_PRIVATE void gpuinstMpiTopologyMeasure(MPI_Comm comm)
{
    MPI_Comm node;
    int nr = -1, ns = -1, nid = -1, me = gpuinstG.rank;
    const char *cvd = getenv("CUDA_VISIBLE_DEVICES");
    memset(&topo, 0, sizeof topo);
    if (PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
        if (PMPI_Comm_rank(node, &nr) != MPI_SUCCESS || PMPI_Comm_size(node, &ns) != MPI_SUCCESS) nr = ns = -1;
        if (PMPI_Allreduce(&me, &nid, 1, MPI_INT, MPI_MIN, node) != MPI_SUCCESS) nid = -1;
        PMPI_Comm_free(&node);
    }
    gpuinstG.node_rank = nr;
    gpuinstG.node_size = ns;
    topo.node_rank = nr;
    topo.node_size = ns;
    topo.node_id = nid;
    snprintf(topo.hostname, sizeof topo.hostname, "%.63s", gpuinstG.hostname);
    snprintf(topo.cuda_visible_devices, sizeof topo.cuda_visible_devices, "%.63s", cvd ? cvd : "");
    cudaQuery(&topo);
    topoDone = 1;
}

#define F(rec, member, type, flags, unit, doc) \
    { #member, type, (uint32_t)offsetof(rec, member), 0, flags, unit, doc }
#define FS(rec, member, doc) \
    { #member, GPUINST_FT_STR, (uint32_t)offsetof(rec, member), \
      (uint32_t)sizeof(((rec *)0)->member), 0, "", doc }

static const gpuinstField topoFields[] = {
    F(TopoRec, rank, GPUINST_FT_U32, GPUINST_FIELD_RANK, "", "rank in MPI_COMM_WORLD"),
    F(TopoRec, node_rank, GPUINST_FT_I32, 0, "", "rank among the ranks of its node (MPI_COMM_TYPE_SHARED); -1 unknown"),
    F(TopoRec, node_size, GPUINST_FT_I32, 0, "count", "ranks on its node; -1 unknown"),
    F(TopoRec, node_id, GPUINST_FT_I32, 0, "", "node id: the lowest world rank on the node (equal for ranks sharing it)"),
    F(TopoRec, cuda_device, GPUINST_FT_I32, 0, "",
      "CUDA device ordinal of the rank's current context at finalize; -1 none or unknown"),
    FS(TopoRec, hostname, "host name (gethostname)"),
    FS(TopoRec, gpu_uuid, "UUID of that device (GPU-...), \"unknown\" without a CUDA context"),
    FS(TopoRec, pci_bus_id, "PCI bus id of that device (domain:bus:device.function), \"unknown\" without one"),
    FS(TopoRec, cuda_visible_devices, "CUDA_VISIBLE_DEVICES of the rank (empty: unset)"),
};

static int collectTopo(const gpuinstTable *tb, void **out, uint64_t *count)
{
    TopoRec *r = (TopoRec *)calloc(1, sizeof *r);
    (void)tb;
    if (r == NULL) return GPUINST_ERROR_OUT_OF_MEMORY;
    if (!topoDone) { /* at exit or abort: what this rank knows alone */
        topo.node_rank = topo.node_size = topo.node_id = -1;
        snprintf(topo.hostname, sizeof topo.hostname, "%.63s", gpuinstG.hostname);
        cudaQuery(&topo);
    }
    *r = topo;
    *out = r;
    *count = 1;
    return GPUINST_SUCCESS;
}

static const gpuinstTable topoTable = {
    "/topology", "per rank: host, node-local rank, node id, CUDA device (ordinal, UUID, PCI bus id)",
    sizeof(TopoRec), (uint32_t)(sizeof topoFields / sizeof topoFields[0]), topoFields, collectTopo, NULL, NULL};

GPUINST_PRIVATE void gpuinstMpiTopologyTableRegister(void)
{
    gpuinstTableRegister(&topoTable);
}

#endif /* GPUINST_WITH_MPI */

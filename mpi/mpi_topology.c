/*
 * mpi_topology.c -- /topology: which ranks share a node and which GPU.
 *
 * Per rank: host name, node-local rank and size (MPI_Comm_split_type
 * shared), a node id equal on every rank of the node (its lowest world
 * rank), and the CUDA device the rank's current context uses (ordinal,
 * UUID, PCI bus id), measured at finalize.  The CUDA query lives in
 * cudaQuery() alone: the device identity of the GPU foundation
 * (src/cuda.c), asked only of a driver the process has already loaded;
 * it never initialises CUDA or makes a context, and says "unknown"
 * otherwise.
 */
#include "mpiInt.h"
#include "cudaInt.h"

#if GPUINST_WITH_MPI

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

static void cudaQuery(TopoRec *r)
{
    gpuinstCudaDevice d;
    int dev = gpuinstCudaCurrentDevice();
    r->cuda_device = dev;
    snprintf(r->gpu_uuid, sizeof r->gpu_uuid, "unknown");
    snprintf(r->pci_bus_id, sizeof r->pci_bus_id, "unknown");
    if (dev < 0 || gpuinstCudaDeviceGet(dev, &d) != GPUINST_SUCCESS) return;
    if (d.uuid[0] != '\0') snprintf(r->gpu_uuid, sizeof r->gpu_uuid, "%s", d.uuid);
    if (d.pci_bus_id[0] != '\0') snprintf(r->pci_bus_id, sizeof r->pci_bus_id, "%s", d.pci_bus_id);
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


static const gpuinstField topoFields[] = {
    GPUINST_FIELD(TopoRec, rank, GPUINST_FT_U32, GPUINST_FIELD_RANK, "", "rank in MPI_COMM_WORLD"),
    GPUINST_FIELD(TopoRec, node_rank, GPUINST_FT_I32, 0, "", "rank among the ranks of its node (MPI_COMM_TYPE_SHARED); -1 unknown"),
    GPUINST_FIELD(TopoRec, node_size, GPUINST_FT_I32, 0, "count", "ranks on its node; -1 unknown"),
    GPUINST_FIELD(TopoRec, node_id, GPUINST_FT_I32, 0, "", "node id: the lowest world rank on the node (equal for ranks sharing it)"),
    GPUINST_FIELD(TopoRec, cuda_device, GPUINST_FT_I32, 0, "",
      "CUDA device ordinal of the rank's current context at finalize; -1 none or unknown"),
    GPUINST_FIELD(TopoRec, hostname, GPUINST_FT_STR, 0, "", "host name (gethostname)"),
    GPUINST_FIELD(TopoRec, gpu_uuid, GPUINST_FT_STR, 0, "", "UUID of that device (GPU-...), \"unknown\" without a CUDA context"),
    GPUINST_FIELD(TopoRec, pci_bus_id, GPUINST_FT_STR, 0, "", "PCI bus id of that device (domain:bus:device.function), \"unknown\" without one"),
    GPUINST_FIELD(TopoRec, cuda_visible_devices, GPUINST_FT_STR, 0, "", "CUDA_VISIBLE_DEVICES of the rank (empty: unset)"),
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

/*
 * gpu_topology_check.c -- the checker of tests/mpi_layer/gpu_topology.sh:
 * reads the file gpu_topology_app wrote (HDF5 C API, members by name, so it
 * runs on the GPU machine, which has no h5py) and compares its /topology
 * with nvidia-smi's view of the devices.
 *
 *   gpu_topology_check FILE SMI_CSV NP
 *
 * SMI_CSV: `nvidia-smi --query-gpu=index,uuid,pci.bus_id --format=csv,noheader`.
 * Asserts, for each of the NP ranks: cuda_device == rank % ndevices; gpu_uuid
 * is one of nvidia-smi's; pci_bus_id is one of nvidia-smi's and the one that
 * goes with that uuid (compared on the last 12 characters, case-insensitive:
 * nvidia-smi pads the PCI domain to 8 digits, CUDA to 4); hostname set; and
 * that /mpi/calls holds the two MPI_Allreduce of every rank.  Prints one line
 * per rank; exit 0 pass, 1 fail, 2 unreadable input.
 */
#include <hdf5.h>
#include <ctype.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../gi_h5read.h"
#include "../unit/gi_strings.h"

typedef struct Topo {
    uint32_t rank;
    int32_t node_rank, node_id, cuda_device;
    char hostname[64], uuid[48], bus[32];
} Topo;

typedef struct Call {
    uint32_t rank, name;
} Call;

typedef giStr Str; /* gi_strings.h */

typedef struct Smi {
    char uuid[64], bus[64];
} Smi;

/* The last 12 characters, lower case ("19:00.0" part with the bus' domain tail). */
static void busKey(const char *b, char *out)
{
    size_t l = strlen(b), i;
    const char *p = l > 12 ? b + l - 12 : b;
    for (i = 0; p[i] != '\0' && i < 12; i++) out[i] = (char)tolower((unsigned char)p[i]);
    out[i] = '\0';
}

static void trim(char *s)
{
    size_t l = strlen(s), i = 0;
    while (l > 0 && isspace((unsigned char)s[l - 1])) s[--l] = '\0';
    while (isspace((unsigned char)s[i])) i++;
    memmove(s, s + i, l - i + 1);
}

#define M(ct, T, m, ht) H5Tinsert(ct, #m, offsetof(T, m), ht)

int main(int argc, char **argv)
{
    Smi smi[64];
    int nsmi = 0, bad = 0, np, k;
    size_t nt = 0, nc = 0, ns = 0, i;
    char line[512];
    FILE *fp;
    hid_t f, ct, st;
    Topo *t;
    Call *c;
    Str *s;
    char *stext = NULL;
    if (argc < 4) {
        fprintf(stderr, "usage: gpu_topology_check FILE SMI_CSV NP\n");
        return 2;
    }
    np = atoi(argv[3]);
    if ((fp = fopen(argv[2], "r")) == NULL) {
        fprintf(stderr, "gpu_topology_check: cannot read %s\n", argv[2]);
        return 2;
    }
    while (nsmi < 64 && fgets(line, sizeof line, fp) != NULL) {
        char *a = strchr(line, ','), *b = a ? strchr(a + 1, ',') : NULL;
        if (a == NULL || b == NULL) continue;
        *b = '\0';
        snprintf(smi[nsmi].uuid, sizeof smi[nsmi].uuid, "%s", a + 1);
        snprintf(smi[nsmi].bus, sizeof smi[nsmi].bus, "%s", b + 1);
        trim(smi[nsmi].uuid);
        trim(smi[nsmi].bus);
        nsmi++;
    }
    fclose(fp);
    if (nsmi == 0) {
        fprintf(stderr, "gpu_topology_check: no device in %s\n", argv[2]);
        return 2;
    }
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if ((f = H5Fopen(argv[1], H5F_ACC_RDONLY, H5P_DEFAULT)) < 0) {
        fprintf(stderr, "gpu_topology_check: cannot open %s\n", argv[1]);
        return 2;
    }
    ct = H5Tcreate(H5T_COMPOUND, sizeof(Topo));
    M(ct, Topo, rank, H5T_NATIVE_UINT32);
    M(ct, Topo, node_rank, H5T_NATIVE_INT32);
    M(ct, Topo, node_id, H5T_NATIVE_INT32);
    M(ct, Topo, cuda_device, H5T_NATIVE_INT32);
    st = gi_h5_str_type(64);
    H5Tinsert(ct, "hostname", offsetof(Topo, hostname), st);
    H5Tclose(st);
    st = gi_h5_str_type(48);
    H5Tinsert(ct, "gpu_uuid", offsetof(Topo, uuid), st);
    H5Tclose(st);
    st = gi_h5_str_type(32);
    H5Tinsert(ct, "pci_bus_id", offsetof(Topo, bus), st);
    H5Tclose(st);
    t = (Topo *)gi_h5_read(f, "/topology", ct, sizeof(Topo), &nt);
    H5Tclose(ct);
    ct = H5Tcreate(H5T_COMPOUND, sizeof(Call));
    M(ct, Call, rank, H5T_NATIVE_UINT32);
    M(ct, Call, name, H5T_NATIVE_UINT32);
    c = (Call *)gi_h5_read(f, "/mpi/calls", ct, sizeof(Call), &nc);
    H5Tclose(ct);
    s = gi_strings_load(f, &ns, &stext);
    H5Fclose(f);
    for (i = 0; i < nt; i++) {
        const Topo *r = &t[i];
        char kb[16], sb[16];
        int j, uuidKnown = 0, busKnown = 0, pairBad = 0;
        printf("rank %u: host %s node_id %d node_rank %d device %d %s %s\n", r->rank, r->hostname, r->node_id,
               r->node_rank, r->cuda_device, r->uuid, r->bus);
        busKey(r->bus, kb);
        for (j = 0; j < nsmi; j++) {
            busKey(smi[j].bus, sb);
            if (strcmp(smi[j].uuid, r->uuid) == 0) {
                uuidKnown = 1;
                if (strcmp(sb, kb) != 0) pairBad = 1;
            }
            if (strcmp(sb, kb) == 0) busKnown = 1;
        }
        if (r->cuda_device != (int32_t)(r->rank % (uint32_t)nsmi)) {
            printf("  FAIL: device %d, expected %u\n", r->cuda_device, r->rank % (uint32_t)nsmi);
            bad++;
        }
        if (!uuidKnown) {
            printf("  FAIL: uuid %s is not one of nvidia-smi's\n", r->uuid);
            bad++;
        }
        if (!busKnown) {
            printf("  FAIL: bus id %s is not one of nvidia-smi's\n", r->bus);
            bad++;
        }
        if (pairBad) {
            printf("  FAIL: uuid/bus id pair differs from nvidia-smi's\n");
            bad++;
        }
        if (r->hostname[0] == '\0') {
            printf("  FAIL: no hostname\n");
            bad++;
        }
        if (r->node_id < 0 || r->node_rank < 0) {
            printf("  FAIL: node_id %d node_rank %d unknown\n", r->node_id, r->node_rank);
            bad++;
        }
    }
    if ((int)nt != np) {
        printf("FAIL: /topology has %zu rows, want %d\n", nt, np);
        bad++;
    }
    for (k = 0; k < np; k++) {
        int m = 0;
        for (i = 0; i < nc; i++) {
            size_t j;
            if (c[i].rank != (uint32_t)k) continue;
            for (j = 0; j < ns; j++)
                if (s[j].rank == (uint32_t)k && s[j].id == c[i].name && strcmp(s[j].name, "MPI_Allreduce") == 0) m++;
        }
        if (m != 2) {
            printf("FAIL: rank %d has %d MPI_Allreduce rows, want 2\n", k, m);
            bad++;
        }
    }
    printf("gpu_topology_check: %s\n", bad ? "FAIL" : "ok");
    free(t);
    free(c);
    free(s);
    free(stext);
    return bad ? 1 : 0;
}

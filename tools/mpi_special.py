"""What is special per MPI call: the hand-written table of tools/gen_mpi.py.

Everything else about a call (its C and Fortran parameter lists, which
parameter is a communicator, a datatype, a request, a status, a string) comes
from the MPI Forum's machine-readable standard (pympistandard).  This table
says only what the standard's parameter kinds cannot: what a call means for
the record.

RULES maps a call (C name without MPI_) to (chapter, rule[, argument]):
  chapter  where the docs list it (p2p, coll, rma, comm, io, other);
  rule     how gen_mpi.py renders its record (see RULE_DOC below);
  argument the communicator kind (comm_new) or file pointer (io).
A call of the standard in no table below is "local" (rule `count`): it does
no communication, is counted per thread (/mpi/summary) but not timed or
given a /mpi/calls row (bench/RESULTS.md, "MPI interception": a row costs
~100 ns, a count ~2 ns).

NOT_WRAPPED: calls of the standard gpuinst defines no wrapper for, with the
reason (docs/MPI_CALLS.md lists them; tests/mpi_layer/check_coverage.py
fails on an exported MPI function that is neither wrapped nor listed).

SINCE: calls newer than MPI-3.1 (generated under `#if` on mpi.h's
MPI_VERSION / MPI_SUBVERSION, so that gpuinst.c still compiles against an
MPI-3.1 library such as Open MPI 4.1).  The large-count `_c` forms are
MPI-4.0.
"""
import re

RULE_DOC = {
    "send": "send: peer = dest, bytes = count x type size (0 to MPI_PROC_NULL)",
    "recv": "receive: peer, tag and bytes from the status (0 from MPI_PROC_NULL)",
    "sendrecv": "send + receive: peer = dest, bytes = sent + received (status)",
    "probe": "probe: peer, tag and message size from the status",
    "mrecv": "matched receive: peer, tag and bytes from the status",
    "start": "starts persistent requests: one row per request",
    "complete": "completes requests: complete_ns of the rows that started them",
    "request_free": "frees a request (no completion is recorded)",
    "cancel": "cancels a request",
    "coll": "collective: bytes = this rank's part (see docs/FORMAT.md)",
    "rma": "one-sided: peer = target, bytes, offset = target_disp x disp_unit, object = window id",
    "win_new": "makes a window: object = its id",
    "win_free": "frees a window",
    "win_sync": "window synchronisation: object = window id, peer = target (lock, flush)",
    "comm_new": "makes a communicator (/mpi/comms)",
    "comm_idup": "nonblocking communicator duplication (request)",
    "comm_free": "frees a communicator",
    "file_open": "opens a file: object = file id",
    "file_close": "closes a file",
    "file_op": "collective file operation: object = file id",
    "io": "reads or writes: bytes (status), offset in bytes, object = file id; a split collective's _begin: bytes 0",
    "io_end": "ends a split collective read/write: its bytes, from the status (counted here only)",
    "record": "recorded with its communicator",
    "count": "local: counted in /mpi/summary, no row",
    "hand": "written by hand (mpi/gpuinst_mpi.c, mpi/pmpi_wrappers.c)",
}

P2P = {
    "Send": "send", "Ssend": "send", "Bsend": "send", "Rsend": "send",
    "Isend": "send", "Issend": "send", "Ibsend": "send", "Irsend": "send",
    "Send_init": "send", "Ssend_init": "send", "Bsend_init": "send", "Rsend_init": "send",
    "Psend_init": "send", "Precv_init": "recv",
    "Recv": "recv", "Irecv": "recv", "Recv_init": "recv",
    "Sendrecv": "sendrecv", "Sendrecv_replace": "sendrecv",
    "Isendrecv": "sendrecv", "Isendrecv_replace": "sendrecv",
    "Probe": "probe", "Iprobe": "probe", "Mprobe": "probe", "Improbe": "probe",
    "Mrecv": "mrecv", "Imrecv": "mrecv",
    "Start": "start", "Startall": "start",
    "Wait": "complete", "Waitany": "complete", "Waitall": "complete", "Waitsome": "complete",
    "Test": "complete", "Testany": "complete", "Testall": "complete", "Testsome": "complete",
    "Request_free": "request_free", "Cancel": "cancel",
}

COLL_BASE = ["Barrier", "Bcast", "Gather", "Gatherv", "Scatter", "Scatterv", "Allgather", "Allgatherv",
             "Alltoall", "Alltoallv", "Alltoallw", "Reduce", "Allreduce", "Reduce_scatter",
             "Reduce_scatter_block", "Scan", "Exscan", "Neighbor_allgather", "Neighbor_allgatherv",
             "Neighbor_alltoall", "Neighbor_alltoallv", "Neighbor_alltoallw"]
COLL = {}
for _b in COLL_BASE:
    COLL[_b] = "coll"
    COLL["I" + _b[0].lower() + _b[1:]] = "coll"
    COLL[_b + "_init"] = "coll"

RMA = {n: "rma" for n in ["Put", "Get", "Accumulate", "Get_accumulate", "Fetch_and_op", "Compare_and_swap",
                          "Rput", "Rget", "Raccumulate", "Rget_accumulate"]}
RMA.update({n: "win_new" for n in ["Win_create", "Win_allocate", "Win_allocate_shared", "Win_create_dynamic"]})
RMA["Win_free"] = "win_free"
RMA.update({n: "win_sync" for n in ["Win_fence", "Win_lock", "Win_unlock", "Win_lock_all", "Win_unlock_all",
                                    "Win_flush", "Win_flush_all", "Win_flush_local", "Win_flush_local_all",
                                    "Win_sync", "Win_post", "Win_start", "Win_complete", "Win_wait",
                                    "Win_test"]})

# comm_new: (communicator kind of /mpi/comms, parent parameter, new-communicator parameter, color expression)
COMM_NEW = {
    "Comm_dup": ("DUP", "comm", "newcomm", "0"),
    "Comm_dup_with_info": ("DUP", "comm", "newcomm", "0"),
    "Comm_split": ("SPLIT", "comm", "newcomm", "color"),
    "Comm_split_type": ("SPLIT_TYPE", "comm", "newcomm", "split_type"),
    "Comm_create": ("CREATE", "comm", "newcomm", "0"),
    "Comm_create_group": ("CREATE_GROUP", "comm", "newcomm", "tag"),
    "Cart_create": ("CART", "comm_old", "comm_cart", "ndims"),
    "Cart_sub": ("CART_SUB", "comm", "newcomm", "0"),
    "Graph_create": ("GRAPH", "comm_old", "comm_graph", "nnodes"),
    "Dist_graph_create": ("DIST_GRAPH", "comm_old", "comm_dist_graph", "0"),
    "Dist_graph_create_adjacent": ("DIST_GRAPH", "comm_old", "comm_dist_graph", "0"),
    "Intercomm_create": ("INTERCOMM", "local_comm", "newintercomm", "tag"),
    "Intercomm_merge": ("MERGE", "intercomm", "newintracomm", "0"),
    "Comm_spawn": ("SPAWN", "comm", "intercomm", "0"),
    "Comm_spawn_multiple": ("SPAWN", "comm", "intercomm", "0"),
    "Comm_accept": ("CONNECT", "comm", "newcomm", "0"),
    "Comm_connect": ("CONNECT", "comm", "newcomm", "0"),
    "Comm_join": ("JOIN", None, "intercomm", "0"),
    "Comm_create_from_group": ("FROM_GROUP", None, "newcomm", "0"),
    "Intercomm_create_from_groups": ("INTERCOMM", None, "newintercomm", "0"),
}
COMM = {n: "comm_new" for n in COMM_NEW}
COMM.update({"Comm_idup": "comm_idup", "Comm_idup_with_info": "comm_idup",
             "Comm_free": "comm_free", "Comm_disconnect": "comm_free"})

IO = {"File_open": "file_open", "File_close": "file_close", "File_delete": "record"}
IO.update({n: "file_op" for n in ["File_set_view", "File_set_size", "File_preallocate", "File_sync",
                                  "File_set_atomicity", "File_seek_shared", "File_set_info"]})
# io: file pointer of each read/write: explicit (the offset argument), individual (the
# rank's own pointer, read before the call), shared (MPI_File_*_shared/_ordered: the
# shared pointer is not read: offset -1, as reading it is itself a shared-pointer access)
IO_PTR = {}
for _rw in ["read", "write"]:
    for _form, _ptr in [("", "individual"), ("_all", "individual"), ("_at", "explicit"), ("_at_all", "explicit"),
                        ("_shared", "shared"), ("_ordered", "shared")]:
        IO_PTR[f"File_{_rw}{_form}"] = _ptr
        if _form != "_ordered":
            IO_PTR[f"File_i{_rw}{_form}"] = _ptr
    for _form, _ptr in [("_all", "individual"), ("_at_all", "explicit"), ("_ordered", "shared")]:
        IO_PTR[f"File_{_rw}{_form}_begin"] = _ptr
        IO_PTR[f"File_{_rw}{_form}_end"] = "end"
for _n, _p in IO_PTR.items():
    IO[_n] = "io_end" if _p == "end" else "io"

OTHER = {"Init": "hand", "Init_thread": "hand", "Finalize": "hand", "Abort": "hand", "Pcontrol": "hand"}

RULES = {}
for _ch, _tab in [("p2p", P2P), ("coll", COLL), ("rma", RMA), ("comm", COMM), ("io", IO), ("other", OTHER)]:
    for _n, _r in _tab.items():
        RULES[_n] = (_ch, _r)

# Chapter of a local call (docs only), by name.
LOCAL_CHAPTER = [
    (r"^(Comm|Group|Cart|Graph|Dist_graph|Topo|Dims|Intercomm|Keyval|Attr)", "comm"),
    (r"^(Win|Alloc_mem|Free_mem)", "rma"),
    (r"^File", "io"),
    (r"^(Type|Pack|Unpack|Get_address|Get_elements|Get_count|Status|Register_datarep)", "datatype"),
    (r"^(Request|Grequest|Pready|Parrived|Buffer|Test_cancelled)", "p2p"),
    (r"^Reduce_local|^Op_", "coll"),
]

NOT_WRAPPED = [
    (r"^(Wtime|Wtick)$", "timer: reads a clock, called in timing loops; a wrapper would add cost and nothing to record"),
    (r"_(c2f|f2c|c2f08|f082c|f082f|f2f08|toint|fromint)$",
     "conversion of a handle or status between language bindings: no MPI state or communication"),
    (r"^Aint_(add|diff)$", "address arithmetic; macros in Open MPI's mpi.h"),
    (r"^T_", "MPI tool information interface (MPI_T): for tools, not application communication"),
    (r"^Abi_", "MPI-5.0 ABI queries"),
    (r"^(Sizeof|F_sync_reg)$", "Fortran-only helper without a C binding: no MPI state or communication"),
]

# Open MPI exports these, the standard no longer has them: never wrapped.
REMOVED = {
    "Address": "removed in MPI-3.0 (use MPI_Get_address)",
    "Errhandler_create": "removed in MPI-3.0 (use MPI_Comm_create_errhandler)",
    "Errhandler_get": "removed in MPI-3.0 (use MPI_Comm_get_errhandler)",
    "Errhandler_set": "removed in MPI-3.0 (use MPI_Comm_set_errhandler)",
    "Type_extent": "removed in MPI-3.0 (use MPI_Type_get_extent)",
    "Type_hindexed": "removed in MPI-3.0 (use MPI_Type_create_hindexed)",
    "Type_hvector": "removed in MPI-3.0 (use MPI_Type_create_hvector)",
    "Type_lb": "removed in MPI-3.0 (use MPI_Type_get_extent)",
    "Type_struct": "removed in MPI-3.0 (use MPI_Type_create_struct)",
    "Type_ub": "removed in MPI-3.0 (use MPI_Type_get_extent)",
}

# Open MPI's extra Fortran names (mpif.h / use mpi): same arguments as the call named.
FORTRAN_ALIASES = {
    "Alloc_mem": ["alloc_mem_cptr"],
    "Win_allocate": ["win_allocate_cptr"],
    "Win_allocate_shared": ["win_allocate_shared_cptr"],
    "Win_shared_query": ["win_shared_query_cptr"],
}

SINCE_PATTERNS = [
    ("4.0", r"^(Barrier|Bcast|Gather|Gatherv|Scatter|Scatterv|Allgather|Allgatherv|Alltoall|Alltoallv|Alltoallw|"
            r"Reduce|Allreduce|Reduce_scatter|Reduce_scatter_block|Scan|Exscan|Neighbor_\w+)_init$"),
    ("4.0", r"^(Psend_init|Precv_init|Pready|Pready_range|Pready_list|Parrived)$"),
    ("4.0", r"^Session_(init|finalize|get_num_psets|get_nth_pset|get_info|get_pset_info|create_errhandler|"
            r"set_errhandler|get_errhandler|call_errhandler|c2f|f2c)$"),
    ("4.0", r"^(Group_from_session_pset|Comm_create_from_group|Intercomm_create_from_groups|Isendrecv|"
            r"Isendrecv_replace|Comm_idup_with_info|Info_create_env|Info_get_string)$"),
    ("4.0", r"^Status_(c2f08|f082c|f082f|f2f08)$"),
    ("4.1", r"^(Remove_error_class|Remove_error_code|Remove_error_string|Request_get_status_(any|all|some)|"
            r"Type_get_value_index|Get_hw_resource_info|Status_(get|set)_(source|tag|error)|"
            r"(Comm|Session)_(attach|detach|flush|iflush)_buffer|Buffer_i?flush)$"),
    ("5.0", r"^Abi_|_(toint|fromint)$"),
]


def since(name):
    """MPI version that introduced `name` (C name without MPI_), "3.1" or older as "3.1"."""
    if name.endswith("_c"):
        return "4.0"
    for ver, pat in SINCE_PATTERNS:
        if re.search(pat, name):
            return ver
    return "3.1"


def not_wrapped(name):
    """The reason a call of the standard is not wrapped, or None."""
    for pat, why in NOT_WRAPPED:
        if re.search(pat, name):
            return why
    return None


def rule(name):
    """(chapter, rule) of a wrapped call (C name without MPI_, without a _c suffix)."""
    if name in RULES:
        return RULES[name]
    for pat, ch in LOCAL_CHAPTER:
        if re.search(pat, name):
            return (ch, "count")
    return ("other", "count")

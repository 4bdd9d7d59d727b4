/*
 * pmpi_calls.h -- the list of intercepted MPI calls, one line each (an
 * X-macro list).  mpi/pmpi_wrappers.c expands it into the MPI_* wrappers,
 * mpi/mpiInt.h into the call enum and mpi/mpi_trace.c into the names, so a
 * call is added by adding one line here.
 *
 * GPUINST_MPI_CALLS(X) calls X(NAME, PARAMS, ARGS, PRE, POST) per call:
 *   NAME    the call without its MPI_ prefix (MPI_NAME and PMPI_NAME);
 *   PARAMS  its parameter list exactly as in mpi.h (MPI-3 const-correct);
 *   ARGS    the arguments passed on to PMPI_NAME;
 *   PRE     statements run before the PMPI call while recording (save
 *           request handles that MPI will overwrite, give MPI a status
 *           to fill where the caller passed MPI_STATUS(ES)_IGNORE);
 *   POST    statements run after it, filling the record from the
 *           arguments and the result: peer, tag, bytes, communicator,
 *           requests started or completed.
 * PRE and POST use the helper macros of mpi/pmpi_wrappers.c (W_P2P,
 * W_COLL, W_REQ, ...); W_NONE is an empty PRE.  Byte counts are count x
 * MPI_Type_size; for collectives the bytes of this rank's send buffer
 * (the receive side for Scatter(v)); see docs/FORMAT.md, /mpi/calls.
 *
 * Calls written by hand, not listed here: MPI_Init, MPI_Init_thread,
 * MPI_Finalize (mpi/gpuinst_mpi.c) and MPI_Abort (mpi/pmpi_wrappers.c).
 */
#ifndef GPUINST_PMPI_CALLS_H
#define GPUINST_PMPI_CALLS_H

/* ---- point to point ----------------------------------------------------- */
#define GPUINST_MPI_CALLS_P2P(X) \
    X(Send, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm), \
      (buf, count, datatype, dest, tag, comm), W_NONE, W_P2P(comm, dest, tag, count, datatype)) \
    X(Ssend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm), \
      (buf, count, datatype, dest, tag, comm), W_NONE, W_P2P(comm, dest, tag, count, datatype)) \
    X(Bsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm), \
      (buf, count, datatype, dest, tag, comm), W_NONE, W_P2P(comm, dest, tag, count, datatype)) \
    X(Rsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm), \
      (buf, count, datatype, dest, tag, comm), W_NONE, W_P2P(comm, dest, tag, count, datatype)) \
    X(Recv, (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status), \
      (buf, count, datatype, source, tag, comm, status), W_STATUS(status), \
      W_P2P(comm, source, tag, 0, datatype); W_RECVD(comm, status)) \
    X(Sendrecv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, \
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, \
                 MPI_Comm comm, MPI_Status *status), \
      (sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm, status), \
      W_STATUS(status), W_P2P(comm, dest, sendtag, sendcount, sendtype); W_RECVD_ADD(comm, status)) \
    X(Sendrecv_replace, (void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, \
                         int recvtag, MPI_Comm comm, MPI_Status *status), \
      (buf, count, datatype, dest, sendtag, source, recvtag, comm, status), W_STATUS(status), \
      W_P2P(comm, dest, sendtag, count, datatype); W_RECVD_ADD(comm, status)) \
    X(Isend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request), \
      (buf, count, datatype, dest, tag, comm, request), W_NONE, \
      W_P2P(comm, dest, tag, count, datatype); W_REQ(request, comm, 0)) \
    X(Issend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request), \
      (buf, count, datatype, dest, tag, comm, request), W_NONE, \
      W_P2P(comm, dest, tag, count, datatype); W_REQ(request, comm, 0)) \
    X(Ibsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request), \
      (buf, count, datatype, dest, tag, comm, request), W_NONE, \
      W_P2P(comm, dest, tag, count, datatype); W_REQ(request, comm, 0)) \
    X(Irsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request), \
      (buf, count, datatype, dest, tag, comm, request), W_NONE, \
      W_P2P(comm, dest, tag, count, datatype); W_REQ(request, comm, 0)) \
    X(Irecv, (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request), \
      (buf, count, datatype, source, tag, comm, request), W_NONE, \
      W_P2P(comm, source, tag, count, datatype); W_REQ(request, comm, 1)) \
    X(Send_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request), \
      (buf, count, datatype, dest, tag, comm, request), W_NONE, \
      W_P2P(comm, dest, tag, count, datatype); W_PREQ(request, comm, 0)) \
    X(Ssend_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request), \
      (buf, count, datatype, dest, tag, comm, request), W_NONE, \
      W_P2P(comm, dest, tag, count, datatype); W_PREQ(request, comm, 0)) \
    X(Bsend_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request), \
      (buf, count, datatype, dest, tag, comm, request), W_NONE, \
      W_P2P(comm, dest, tag, count, datatype); W_PREQ(request, comm, 0)) \
    X(Rsend_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request), \
      (buf, count, datatype, dest, tag, comm, request), W_NONE, \
      W_P2P(comm, dest, tag, count, datatype); W_PREQ(request, comm, 0)) \
    X(Recv_init, (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request), \
      (buf, count, datatype, source, tag, comm, request), W_NONE, \
      W_P2P(comm, source, tag, count, datatype); W_PREQ(request, comm, 1)) \
    X(Start, (MPI_Request *request), (request), W_NONE, W_START(1, request)) \
    X(Startall, (int count, MPI_Request array_of_requests[]), (count, array_of_requests), W_NONE, \
      W_START(count, array_of_requests)) \
    X(Request_free, (MPI_Request *request), (request), W_SAVE1(request), W_FREED()) \
    X(Probe, (int source, int tag, MPI_Comm comm, MPI_Status *status), (source, tag, comm, status), \
      W_STATUS(status), W_P2P(comm, source, tag, 0, MPI_BYTE); W_RECVD(comm, status)) \
    X(Iprobe, (int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status), (source, tag, comm, flag, status), \
      W_STATUS(status), W_P2P(comm, source, tag, 0, MPI_BYTE); if (*flag) W_RECVD(comm, status))

/* ---- completion ---------------------------------------------------------- */
#define GPUINST_MPI_CALLS_COMPLETION(X) \
    X(Wait, (MPI_Request *request, MPI_Status *status), (request, status), W_SAVE1(request) W_STATUS(status), \
      W_DONE1(status)) \
    X(Test, (MPI_Request *request, int *flag, MPI_Status *status), (request, flag, status), \
      W_SAVE1(request) W_STATUS(status), if (*flag) W_DONE1(status)) \
    X(Waitany, (int count, MPI_Request array_of_requests[], int *index, MPI_Status *status), \
      (count, array_of_requests, index, status), W_SAVEN(count, array_of_requests, 0) W_STATUS(status), \
      W_DONEANY(*index, status)) \
    X(Testany, (int count, MPI_Request array_of_requests[], int *index, int *flag, MPI_Status *status), \
      (count, array_of_requests, index, flag, status), W_SAVEN(count, array_of_requests, 0) W_STATUS(status), \
      W_DONEANY(*flag ? *index : MPI_UNDEFINED, status)) \
    X(Waitall, (int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]), \
      (count, array_of_requests, array_of_statuses), W_SAVEN(count, array_of_requests, &array_of_statuses), \
      W_DONEALL(1, array_of_statuses)) \
    X(Testall, (int count, MPI_Request array_of_requests[], int *flag, MPI_Status array_of_statuses[]), \
      (count, array_of_requests, flag, array_of_statuses), \
      W_SAVEN(count, array_of_requests, &array_of_statuses), W_DONEALL(*flag, array_of_statuses)) \
    X(Waitsome, (int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[], \
                 MPI_Status array_of_statuses[]), \
      (incount, array_of_requests, outcount, array_of_indices, array_of_statuses), \
      W_SAVEN(incount, array_of_requests, &array_of_statuses), \
      W_DONESOME(*outcount, array_of_indices, array_of_statuses)) \
    X(Testsome, (int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[], \
                 MPI_Status array_of_statuses[]), \
      (incount, array_of_requests, outcount, array_of_indices, array_of_statuses), \
      W_SAVEN(incount, array_of_requests, &array_of_statuses), \
      W_DONESOME(*outcount, array_of_indices, array_of_statuses))

/* ---- collectives (blocking, then nonblocking) ---------------------------- */
#define GPUINST_MPI_CALLS_COLL(X) \
    X(Barrier, (MPI_Comm comm), (comm), W_NONE, W_COLL(comm, -1, 0)) \
    X(Bcast, (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm), \
      (buffer, count, datatype, root, comm), W_NONE, W_COLL(comm, root, W_BYTES(count, datatype))) \
    X(Reduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm), \
      (sendbuf, recvbuf, count, datatype, op, root, comm), W_NONE, W_COLL(comm, root, W_BYTES(count, datatype))) \
    X(Allreduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm), \
      (sendbuf, recvbuf, count, datatype, op, comm), W_NONE, W_COLL(comm, -1, W_BYTES(count, datatype))) \
    X(Gather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, \
               MPI_Datatype recvtype, int root, MPI_Comm comm), \
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm), W_NONE, \
      W_COLL(comm, root, W_BYTES(sendcount, sendtype))) \
    X(Gatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], \
                const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm), \
      (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm), W_NONE, \
      W_COLL(comm, root, W_BYTES(sendcount, sendtype))) \
    X(Scatter, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, \
                MPI_Datatype recvtype, int root, MPI_Comm comm), \
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm), W_NONE, \
      W_COLL(comm, root, W_BYTES(recvcount, recvtype))) \
    X(Scatterv, (const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, \
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm), \
      (sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm), W_NONE, \
      W_COLL(comm, root, W_BYTES(recvcount, recvtype))) \
    X(Allgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, \
                  MPI_Datatype recvtype, MPI_Comm comm), \
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm), W_NONE, \
      W_COLL(comm, -1, W_BYTES(sendcount, sendtype))) \
    X(Allgatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, \
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm), \
      (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm), W_NONE, \
      W_COLL(comm, -1, W_BYTES(sendcount, sendtype))) \
    X(Alltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, \
                 MPI_Datatype recvtype, MPI_Comm comm), \
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm), W_NONE, \
      W_COLL(comm, -1, W_BYTES_ALL(sendcount, sendtype, comm))) \
    X(Alltoallv, (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, \
                  void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm), \
      (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm), W_NONE, \
      W_COLL(comm, -1, W_BYTES_V(sendcounts, sendtype, comm))) \
    X(Alltoallw, (const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], \
                  void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], \
                  MPI_Comm comm), \
      (sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm), W_NONE, \
      W_COLL(comm, -1, W_BYTES_W(sendcounts, sendtypes, comm))) \
    X(Reduce_scatter, (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, \
                       MPI_Op op, MPI_Comm comm), \
      (sendbuf, recvbuf, recvcounts, datatype, op, comm), W_NONE, \
      W_COLL(comm, -1, W_BYTES_V(recvcounts, datatype, comm))) \
    X(Reduce_scatter_block, (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, \
                             MPI_Op op, MPI_Comm comm), \
      (sendbuf, recvbuf, recvcount, datatype, op, comm), W_NONE, \
      W_COLL(comm, -1, W_BYTES_ALL(recvcount, datatype, comm))) \
    X(Scan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm), \
      (sendbuf, recvbuf, count, datatype, op, comm), W_NONE, W_COLL(comm, -1, W_BYTES(count, datatype))) \
    X(Exscan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm), \
      (sendbuf, recvbuf, count, datatype, op, comm), W_NONE, W_COLL(comm, -1, W_BYTES(count, datatype)))

#define GPUINST_MPI_CALLS_ICOLL(X) \
    X(Ibarrier, (MPI_Comm comm, MPI_Request *request), (comm, request), W_NONE, \
      W_COLL(comm, -1, 0); W_REQ(request, comm, 0)) \
    X(Ibcast, (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request *request), \
      (buffer, count, datatype, root, comm, request), W_NONE, \
      W_COLL(comm, root, W_BYTES(count, datatype)); W_REQ(request, comm, 0)) \
    X(Ireduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, \
                MPI_Comm comm, MPI_Request *request), \
      (sendbuf, recvbuf, count, datatype, op, root, comm, request), W_NONE, \
      W_COLL(comm, root, W_BYTES(count, datatype)); W_REQ(request, comm, 0)) \
    X(Iallreduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, \
                   MPI_Comm comm, MPI_Request *request), \
      (sendbuf, recvbuf, count, datatype, op, comm, request), W_NONE, \
      W_COLL(comm, -1, W_BYTES(count, datatype)); W_REQ(request, comm, 0)) \
    X(Igather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, \
                MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request), \
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request), W_NONE, \
      W_COLL(comm, root, W_BYTES(sendcount, sendtype)); W_REQ(request, comm, 0)) \
    X(Igatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], \
                 const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request), \
      (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, request), W_NONE, \
      W_COLL(comm, root, W_BYTES(sendcount, sendtype)); W_REQ(request, comm, 0)) \
    X(Iscatter, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, \
                 MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request), \
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request), W_NONE, \
      W_COLL(comm, root, W_BYTES(recvcount, recvtype)); W_REQ(request, comm, 0)) \
    X(Iscatterv, (const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, \
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request), \
      (sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, request), W_NONE, \
      W_COLL(comm, root, W_BYTES(recvcount, recvtype)); W_REQ(request, comm, 0)) \
    X(Iallgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, \
                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request), \
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request), W_NONE, \
      W_COLL(comm, -1, W_BYTES(sendcount, sendtype)); W_REQ(request, comm, 0)) \
    X(Iallgatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, \
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, \
                    MPI_Request *request), \
      (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, request), W_NONE, \
      W_COLL(comm, -1, W_BYTES(sendcount, sendtype)); W_REQ(request, comm, 0)) \
    X(Ialltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, \
                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request), \
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request), W_NONE, \
      W_COLL(comm, -1, W_BYTES_ALL(sendcount, sendtype, comm)); W_REQ(request, comm, 0)) \
    X(Ialltoallv, (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, \
                   void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, \
                   MPI_Comm comm, MPI_Request *request), \
      (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, request), W_NONE, \
      W_COLL(comm, -1, W_BYTES_V(sendcounts, sendtype, comm)); W_REQ(request, comm, 0)) \
    X(Ialltoallw, (const void *sendbuf, const int sendcounts[], const int sdispls[], \
                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[], \
                   const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request), \
      (sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, request), W_NONE, \
      W_COLL(comm, -1, W_BYTES_W(sendcounts, sendtypes, comm)); W_REQ(request, comm, 0)) \
    X(Ireduce_scatter, (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, \
                        MPI_Op op, MPI_Comm comm, MPI_Request *request), \
      (sendbuf, recvbuf, recvcounts, datatype, op, comm, request), W_NONE, \
      W_COLL(comm, -1, W_BYTES_V(recvcounts, datatype, comm)); W_REQ(request, comm, 0)) \
    X(Ireduce_scatter_block, (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, \
                              MPI_Op op, MPI_Comm comm, MPI_Request *request), \
      (sendbuf, recvbuf, recvcount, datatype, op, comm, request), W_NONE, \
      W_COLL(comm, -1, W_BYTES_ALL(recvcount, datatype, comm)); W_REQ(request, comm, 0)) \
    X(Iscan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, \
              MPI_Request *request), \
      (sendbuf, recvbuf, count, datatype, op, comm, request), W_NONE, \
      W_COLL(comm, -1, W_BYTES(count, datatype)); W_REQ(request, comm, 0)) \
    X(Iexscan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, \
                MPI_Request *request), \
      (sendbuf, recvbuf, count, datatype, op, comm, request), W_NONE, \
      W_COLL(comm, -1, W_BYTES(count, datatype)); W_REQ(request, comm, 0))

/* ---- communicators --------------------------------------------------------
 * W_NEWCOMM(kind, parent, &newcomm, color) gives the new communicator its
 * id (same on every member: see gpuinstMpiCommNew); W_FREECOMM marks the
 * end of its life. */
#define GPUINST_MPI_CALLS_COMM(X) \
    X(Comm_dup, (MPI_Comm comm, MPI_Comm *newcomm), (comm, newcomm), W_NONE, \
      W_NEWCOMM(GPUINST_MPI_COMM_DUP, comm, newcomm, 0)) \
    X(Comm_split, (MPI_Comm comm, int color, int key, MPI_Comm *newcomm), (comm, color, key, newcomm), W_NONE, \
      W_NEWCOMM(GPUINST_MPI_COMM_SPLIT, comm, newcomm, color)) \
    X(Comm_split_type, (MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm), \
      (comm, split_type, key, info, newcomm), W_NONE, \
      W_NEWCOMM(GPUINST_MPI_COMM_SPLIT_TYPE, comm, newcomm, split_type)) \
    X(Comm_create, (MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm), (comm, group, newcomm), W_NONE, \
      W_NEWCOMM(GPUINST_MPI_COMM_CREATE, comm, newcomm, 0)) \
    X(Comm_create_group, (MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm), \
      (comm, group, tag, newcomm), W_NONE, W_NEWCOMM(GPUINST_MPI_COMM_CREATE_GROUP, comm, newcomm, tag)) \
    X(Cart_create, (MPI_Comm old_comm, int ndims, const int dims[], const int periods[], int reorder, \
                    MPI_Comm *comm_cart), \
      (old_comm, ndims, dims, periods, reorder, comm_cart), W_NONE, \
      W_NEWCOMM(GPUINST_MPI_COMM_CART, old_comm, comm_cart, ndims)) \
    X(Cart_sub, (MPI_Comm comm, const int remain_dims[], MPI_Comm *new_comm), (comm, remain_dims, new_comm), W_NONE, \
      W_NEWCOMM(GPUINST_MPI_COMM_CART_SUB, comm, new_comm, 0)) \
    X(Comm_free, (MPI_Comm *comm), (comm), W_SAVECOMM(comm), W_FREECOMM())

/* ---- MPI-IO (blocking reads and writes; open/close for the communicator) -- */
#define GPUINST_MPI_CALLS_IO(X) \
    X(File_open, (MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh), \
      (comm, filename, amode, info, fh), W_NONE, W_COLL(comm, -1, 0)) \
    X(File_close, (MPI_File *fh), (fh), W_NONE, W_IO(0, MPI_BYTE)) \
    X(File_read, (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status), \
      (fh, buf, count, datatype, status), W_NONE, W_IO(count, datatype)) \
    X(File_read_all, (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status), \
      (fh, buf, count, datatype, status), W_NONE, W_IO(count, datatype)) \
    X(File_read_at, (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Status *status), \
      (fh, offset, buf, count, datatype, status), W_NONE, W_IO(count, datatype)) \
    X(File_read_at_all, (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, \
                         MPI_Status *status), \
      (fh, offset, buf, count, datatype, status), W_NONE, W_IO(count, datatype)) \
    X(File_write, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status), \
      (fh, buf, count, datatype, status), W_NONE, W_IO(count, datatype)) \
    X(File_write_all, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status), \
      (fh, buf, count, datatype, status), W_NONE, W_IO(count, datatype)) \
    X(File_write_at, (MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, \
                      MPI_Status *status), \
      (fh, offset, buf, count, datatype, status), W_NONE, W_IO(count, datatype)) \
    X(File_write_at_all, (MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, \
                          MPI_Status *status), \
      (fh, offset, buf, count, datatype, status), W_NONE, W_IO(count, datatype))

#define GPUINST_MPI_CALLS(X) \
    GPUINST_MPI_CALLS_P2P(X) GPUINST_MPI_CALLS_COMPLETION(X) GPUINST_MPI_CALLS_COLL(X) \
    GPUINST_MPI_CALLS_ICOLL(X) GPUINST_MPI_CALLS_COMM(X) GPUINST_MPI_CALLS_IO(X)

/* Calls recorded but written by hand (no generated wrapper). */
#define GPUINST_MPI_CALLS_EXTRA(X) X(Init) X(Init_thread) X(Finalize) X(Abort)

#endif /* GPUINST_PMPI_CALLS_H */

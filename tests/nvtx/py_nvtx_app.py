"""py_nvtx_app.py OUTDIR -- the seeds' NVTX usage as a Python user writes it,
under mpi4py: the PyPI `nvtx` package only (annotate as decorator and as
context manager, start_range/end_range across threads, mark with payloads, a
domain with categories, a scalar counter with CounterSemantics, a counter
group from a structured dtype, batch_submit with get_timestamp() timestamps,
a no-value sample).  No gpuinst call: run in zero-code mode
(LD_PRELOAD=libgpuinst.so, GPUINST_AUTO_INIT=1).  Each rank writes what it
did (counts depend on the rank; the batch timestamps) to OUTDIR/py_rankN.json
for check_py_nvtx.py."""
import json
import sys
import threading

import numpy as np
import nvtx

out = sys.argv[1]

# Made at import, before MPI_Init starts gpuinst: a domain, the decorator's
# registered string (the function's name) and category.
dom = nvtx.get_domain("pyapp")


@nvtx.annotate(color="red", domain="pyapp", category="compute")
def compute(x):
    return x * 2


from mpi4py import MPI  # noqa: E402  (MPI_Init: zero-code mode starts gpuinst here)

comm = MPI.COMM_WORLD
rank = comm.Get_rank()
N = 4 + rank  # a different count on every rank

for i in range(N):
    with nvtx.annotate("step", color="blue", payload=i):
        compute(i)
        nvtx.mark("tick", payload=i * 0.5, domain="pyapp", category="io")

rid = nvtx.start_range("cross", domain="pyapp", payload=rank)
t = threading.Thread(target=nvtx.end_range, args=(rid,))
t.start()
t.join()


def worker(k):
    with nvtx.annotate("worker", domain="pyapp", payload=k):
        pass


ths = [threading.Thread(target=worker, args=(k,)) for k in range(3)]
for t in ths:
    t.start()
for t in ths:
    t.join()
nvtx.push_range("pushpop", domain="pyapp", category="compute")
nvtx.pop_range(domain="pyapp")

util = dom.get_counter("util", int, semantics=nvtx.CounterSemantics(unit="percent", min=0, max=100))
for v in (10 * (rank + 1), 50, 90):
    util.sample(v)
util.sample_no_value(nvtx.CounterNoValueReason.UNAVAILABLE)

loss = dom.get_counter("loss", float, semantics=nvtx.CounterSemantics(unit="nats"))
loss.sample(0.75)
lts = [dom.get_timestamp() + 1000 * k for k in range(3)]
loss.batch_submit([0.5, 0.25, 0.125], lts)

dt = nvtx.numpy_dtype([
    ("allocated", nvtx.numpy_dtype(np.int64, counter_semantics=nvtx.CounterSemantics(unit="bytes", min=0))),
    ("reserved", nvtx.numpy_dtype(np.float64, counter_semantics=nvtx.CounterSemantics(unit="MiB"))),
])
mem = dom.get_counter("memory", dt)
mem.sample((1024 * (rank + 1), 2.5))
gts = [dom.get_timestamp() for _ in range(4)]
mem.batch_submit(np.array([(k, k + 0.5) for k in range(4)], dtype=dt), gts)

comm.Barrier()
with open(f"{out}/py_rank{rank}.json", "w") as f:
    json.dump({"rank": rank, "N": N, "lts": lts, "gts": [int(x) for x in gts]}, f)
print("rank", rank, "done")

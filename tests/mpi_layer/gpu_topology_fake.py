#!/usr/bin/env python3
"""gpu_topology_fake.py IN OUT UUID BUS -- copy of a gpu_topology_app file
(written without a GPU) whose /topology says every rank ran on device 0 with
that UUID and PCI bus id: what a run on a one-GPU machine writes, so that
gpu_topology_check's accepting path is tested without a GPU."""
import shutil
import sys

import h5py

shutil.copyfile(sys.argv[1], sys.argv[2])
with h5py.File(sys.argv[2], "r+") as f:
    t = f["/topology"][...]
    for r in t:
        r["cuda_device"] = 0
        r["gpu_uuid"] = sys.argv[3].encode()
        r["pci_bus_id"] = sys.argv[4].encode()
    f["/topology"][...] = t

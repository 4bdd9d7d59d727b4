"""gpuinst -- read gpuinst HDF5 files (docs/FORMAT.md) with pandas.

    import gpuinst
    f = gpuinst.open("gpuinst.h5")
    f.ranges()          # one row per range: rank, thread, domain_name, name, path, start_ns, end_ns, exclusive_ns...
    f.kernels()         # kernels with range_path and mpi_call
    f.mpi_calls()       # MPI calls with range_path and peer_hostname; f.mpi_messages(): sends matched to receives
    f.metrics_by_range()  # profiled metrics per (path, rank)
    f.counters()        # {group: samples}
    gpuinst.to_hatchet(f)             # Hatchet GraphFrame of the range tree (llnl-hatchet)
    gpuinst.to_thicket([f2, f4, f8])  # Thicket of several runs (llnl-thicket)

Times are ns on the file's aligned clock (rank 0's CLOCK_MONOTONIC).  A
damaged table reads as empty and is listed in ``File.problems``; a file that
cannot be read at all raises ``FileError`` with one line saying why.
"""
from ._file import File
from ._h5 import FileError
from ._tree import to_hatchet as _to_hatchet, to_thicket, tree_table as _tree_table

__version__ = "0.2.0"
__all__ = ["open", "File", "FileError", "to_hatchet", "to_thicket", "tree_table", "html_report"]


def open(path, strict=False, max_bytes=None):  # noqa: A001 -- gpuinst.open, like h5py.File / io.open
    """Opens a gpuinst file: a ``File``.  Raises ``FileError`` (one line:
    the file and the cause) when it is not a readable gpuinst file.
    ``strict``: raise at the first damaged table instead of skipping it.
    ``max_bytes``: memory one table may take (default GPUINST_READ_MAX_MB,
    else half the machine's memory)."""
    return File(path, strict=strict, max_bytes=max_bytes)


def _file(f):
    return f if isinstance(f, File) else open(f)


def to_hatchet(f, per_rank=True):
    """Hatchet GraphFrame of the range call tree of `f` (a File or a path);
    see gpuinst._tree.to_hatchet."""
    return _to_hatchet(_file(f), per_rank=per_rank)


def tree_table(f):
    """The range call tree as a DataFrame, one row per (node, rank); see
    gpuinst._tree.tree_table."""
    return _tree_table(_file(f))


def html_report(f, out, report=None):
    """Writes one self-contained HTML file: gpuinst-report's tables and the
    pictures (gpuinst.html; ``report=False``: the package's own tables)."""
    from .html import write
    return write(_file(f), out, report=report)

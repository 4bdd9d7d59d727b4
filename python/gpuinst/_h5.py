"""Low-level, defensive reading of a gpuinst HDF5 file (h5py + numpy).

Everything here checks what the file says against the file itself before it
allocates or indexes: a dataset is read only if it is a 1-D compound dataset
whose stored bytes can hold the rows it declares (a hostile file can declare
10^12 rows and store none); string texts are taken only from inside
/strings_text; ids that name nothing resolve to ``#<id>``.  A damaged table is
reported as one line (``/dataset: problem``) in ``File.problems`` and treated
as absent, so the rest of the file is still read.
"""
import os

import h5py
import numpy as np

#: string ids of gpuinst tables are per rank; this is the key of (rank, id)
NONE_U64 = np.uint64(2**64 - 1)

# A dataset may be stored compressed by a user's h5repack; gpuinst itself
# writes contiguous datasets.  Rows are believed up to this ratio of
# declared to stored bytes (zeros compress about 1000:1, real tables < 20:1).
MAX_EXPANSION = 64


class FileError(Exception):
    """The file cannot be read as a gpuinst file (one line: file and cause)."""


def _memory_limit():
    """Bytes one table may take in memory: GPUINST_READ_MAX_MB, else half of
    the machine's physical memory."""
    v = os.environ.get("GPUINST_READ_MAX_MB")
    if v:
        try:
            return max(1, int(v)) << 20
        except ValueError:
            pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2
    except (ValueError, OSError, AttributeError):
        return 8 << 30


def _text(v):
    """A string attribute as str (bytes, numpy bytes, str), else None."""
    if isinstance(v, np.ndarray) and v.shape == ():
        v = v[()]
    if isinstance(v, (bytes, np.bytes_)):
        return bytes(v).decode("utf-8", errors="replace")
    if isinstance(v, str):
        return v
    return None


class H5:
    """An open file, its problems, and checked reads of its datasets."""

    def __init__(self, path, strict=False, max_bytes=None):
        self.path = path
        self.strict = strict
        self.problems = []
        self._seen = set()
        self.max_bytes = max_bytes or _memory_limit()
        if not os.path.exists(path):
            raise FileError("%s: no such file" % path)
        try:
            self.f = h5py.File(path, "r")
        except (OSError, ValueError) as e:
            raise FileError("%s: cannot open as an HDF5 file (%s)" % (path, str(e).split("\n")[0]))
        try:
            has_ranks = "ranks" in self.f
        except (KeyError, OSError, RuntimeError):
            has_ranks = False
        fv = self.attr("format_version")
        if fv is None and not has_ranks:
            raise FileError("%s: not a gpuinst file (no format_version attribute, no /ranks)" % path)
        self.format_version = fv if isinstance(fv, str) else "1.0"
        major = self.format_version.split(".")[0]
        if major not in ("1", "2"):
            raise FileError("%s: format_version %r: this reader reads versions 1.x and 2.x"
                            % (path, self.format_version))

    def close(self):
        self.f.close()

    # ---- problems -----------------------------------------------------------------
    def problem(self, where, what):
        """Records one problem (once per text); raises in strict mode."""
        line = "%s: %s" % (where, what)
        if line in self._seen:
            return
        self._seen.add(line)
        self.problems.append(line)
        if self.strict:
            raise FileError("%s: %s" % (self.path, line))

    # ---- attributes -----------------------------------------------------------------
    def attr(self, name, obj=None):
        """A root (or obj's) attribute: str, int or float; None if absent or odd."""
        o = self.f if obj is None else obj
        try:
            if name not in o.attrs:
                return None
            v = o.attrs[name]
        except (OSError, KeyError, TypeError, ValueError, RuntimeError):
            return None
        t = _text(v)
        if t is not None:
            return t
        if isinstance(v, np.ndarray):
            if v.size != 1:
                return None
            v = v.reshape(-1)[0]
        if isinstance(v, (np.integer, int)):
            return int(v)
        if isinstance(v, (np.floating, float)):
            return float(v)
        return None

    # ---- objects --------------------------------------------------------------------
    def exists(self, path):
        """True if `path` names an object (a dangling link or a missing
        parent group is False, not an error)."""
        path = "/" + path.strip("/")
        try:
            return self.f.get(path) is not None
        except (KeyError, OSError, RuntimeError, ValueError, TypeError):
            return False

    def datasets(self, group="/"):
        """Full paths of the datasets under `group`, sorted (links to objects
        already seen, and dangling links, are skipped)."""
        out = []
        try:
            g = self.f[group]
        except (KeyError, OSError, RuntimeError, ValueError, TypeError):
            return out
        if not isinstance(g, h5py.Group):
            return out
        seen = set()
        stack = [(g.name.rstrip("/"), g)]
        while stack:
            base, grp = stack.pop()
            try:
                keys = list(grp.keys())
            except (KeyError, OSError, RuntimeError):
                self.problem(base or "/", "group cannot be listed")
                continue
            for k in keys:
                p = base + "/" + k
                try:
                    o = grp.get(k)
                except (KeyError, OSError, RuntimeError, ValueError, TypeError):
                    o = None
                if o is None:
                    continue
                try:
                    addr = o.id.__hash__()
                except Exception:  # noqa: BLE001 -- any h5py id problem: treat as unseen
                    addr = p
                if addr in seen:
                    continue
                seen.add(addr)
                if isinstance(o, h5py.Group):
                    stack.append((p, o))
                elif isinstance(o, h5py.Dataset):
                    out.append(p)
        return sorted(out)

    def link_problem(self, path):
        """Why `path` does not resolve although a link of that name exists
        (a dangling soft link, an external link to a missing file), or None."""
        parent, _, name = path.rstrip("/").rpartition("/")
        try:
            g = self.f[parent or "/"]
            if not isinstance(g, h5py.Group) or name not in g:
                return None
            lk = g.get(name, getlink=True)
        except (KeyError, OSError, RuntimeError, ValueError, TypeError):
            return None
        if isinstance(lk, h5py.SoftLink):
            return "a soft link to %s, which does not exist" % lk.path
        if isinstance(lk, h5py.ExternalLink):
            return "an external link to %s:%s, which cannot be opened" % (lk.filename, lk.path)
        return "cannot be opened"

    def dataset(self, path):
        """The h5py Dataset at `path`, None if absent; a problem if it is
        something else."""
        path = "/" + path.strip("/")
        if not self.exists(path):
            why = self.link_problem(path)
            if why:
                self.problem(path, why + ": ignored")
            return None
        try:
            o = self.f[path]
        except (KeyError, OSError, RuntimeError, ValueError, TypeError) as e:
            self.problem(path, "cannot be opened (%s)" % str(e).split("\n")[0])
            return None
        if not isinstance(o, h5py.Dataset):
            self.problem(path, "is a group, expected a dataset: ignored")
            return None
        return o

    def _check_size(self, path, ds, nrows, itemsize):
        want = int(nrows) * int(itemsize)
        if want == 0:
            return True
        try:
            stored = int(ds.id.get_storage_size())
        except Exception:  # noqa: BLE001
            stored = 0
        try:
            contiguous = ds.chunks is None and ds.compression is None and not ds.is_virtual
        except Exception:  # noqa: BLE001
            contiguous = True
        try:
            external = ds.external is not None
        except Exception:  # noqa: BLE001
            external = False
        if external:
            self.problem(path, "stored in an external file: ignored")
            return False
        if contiguous and stored < want:
            self.problem(path, "declares %d rows (%d bytes) but stores %d bytes: ignored"
                         % (nrows, want, stored))
            return False
        if not contiguous and want > MAX_EXPANSION * stored + (1 << 20):
            self.problem(path, "declares %d rows (%d bytes) but stores only %d bytes: ignored"
                         % (nrows, want, stored))
            return False
        if want > self.max_bytes:
            self.problem(path, "%d rows need %d MiB, over the limit of %d MiB (GPUINST_READ_MAX_MB): ignored"
                         % (nrows, want >> 20, self.max_bytes >> 20))
            return False
        return True

    def _open_typed(self, path):
        """(dataset, its path, dtype, shape), or None when absent or its
        datatype or dataspace cannot be read (said)."""
        ds = self.dataset(path)
        if ds is None:
            return None
        try:
            return ds, ds.name, ds.dtype, ds.shape
        except Exception as e:  # noqa: BLE001 -- an unreadable datatype or dataspace
            self.problem(ds.name, "unreadable datatype or shape (%s): ignored" % str(e).split("\n")[0])
            return None

    def table(self, path):
        """Rows of a compound table as a numpy structured array, or None
        when absent or damaged (then a problem says why).  Members of
        types a reader cannot use (nested compounds, arrays, variable-length
        or reference types) are dropped with a problem."""
        o = self._open_typed(path)
        if o is None:
            return None
        ds, path, dt, shape = o
        if dt.names is None:
            self.problem(path, "not a compound (table) dataset (type %s): ignored" % dt)
            return None
        if shape is None or len(shape) != 1:
            self.problem(path, "has shape %s, expected one dimension: ignored" % (shape,))
            return None
        keep = []
        for m in dt.names:
            ft = dt.fields[m][0]
            if ft.kind in "iuf" and ft.shape == () or ft.kind == "S":
                keep.append(m)
            else:
                self.problem(path, "member %s has type %s, not a number or fixed string: ignored" % (m, ft))
        if not keep:
            self.problem(path, "no readable member: ignored")
            return None
        if not self._check_size(path, ds, shape[0], dt.itemsize):
            return None
        try:
            if len(keep) == len(dt.names):
                a = ds[()]
            else:
                a = ds.fields(keep)[()]
        except (OSError, ValueError, TypeError, KeyError, RuntimeError, MemoryError) as e:
            self.problem(path, "cannot be read (%s): ignored" % str(e).split("\n")[0])
            return None
        if a.dtype.names is None:  # fields() of one member returns a plain array
            a = _one_member(a, keep[0])
        return a

    def array(self, path, kind="u"):
        """A 1-D numeric dataset (e.g. /strings_text) as numpy, or None."""
        o = self._open_typed(path)
        if o is None:
            return None
        ds, path, dt, shape = o
        if dt.names is not None or dt.kind not in kind or shape is None or len(shape) != 1:
            self.problem(path, "has type %s and shape %s, expected a 1-D array of %s: ignored"
                         % (dt, shape, {"u": "unsigned bytes", "iu": "integers"}.get(kind, kind)))
            return None
        if not self._check_size(path, ds, shape[0], dt.itemsize):
            return None
        try:
            return ds[()]
        except (OSError, ValueError, TypeError, RuntimeError, MemoryError) as e:
            self.problem(path, "cannot be read (%s): ignored" % str(e).split("\n")[0])
            return None

    def member_text_attr(self, path, name):
        ds = self.dataset(path)
        return None if ds is None else self.attr(name, ds)


def _one_member(a, name):
    out = np.empty(a.shape, dtype=[(name, a.dtype)])
    out[name] = a
    return out


class Strings:
    """The interned texts of every rank: (rank, id) -> text, both layouts.

    Format 1.x: /strings {rank, id, name str[W]}.  Format 2.0: /strings
    {rank u32, id u32, length u32, offset u64} and /strings_text (u8, all
    texts concatenated).  Lookups are vectorised: keys (rank << 32 | id)
    sorted, texts in the same order.
    """

    def __init__(self, h5):
        self.keys = np.zeros(0, dtype=np.uint64)
        self.texts = np.zeros(0, dtype=object)
        t = h5.table("/strings")
        if t is None:
            if not h5.exists("/strings"):
                h5.problem("/strings", "absent: names shown as #id")
            return
        names = t.dtype.names
        if "rank" not in names or "id" not in names:
            h5.problem("/strings", "lacks the rank or id member: names shown as #id")
            return
        rank = t["rank"].astype(np.uint64, copy=False)
        sid = t["id"].astype(np.uint64, copy=False)
        if t["rank"].dtype.kind not in "iu" or t["id"].dtype.kind not in "iu":
            h5.problem("/strings", "rank or id is not an integer: names shown as #id")
            return
        bad_key = (t["rank"].astype(np.int64) < 0) | (t["rank"].astype(np.float64) >= 2**32) | \
                  (t["id"].astype(np.int64) < 0) | (t["id"].astype(np.float64) >= 2**32)
        if h5.exists("/strings_text") or "offset" in names:
            texts = self._from_text(h5, t, names)
        elif "name" in names and t["name"].dtype.kind == "S":
            texts = np.array([x.decode("utf-8", errors="replace") for x in t["name"].tolist()], dtype=object)
        else:
            h5.problem("/strings", "no name member (format 1) and no /strings_text (format 2): names shown as #id")
            return
        if texts is None:
            return
        if bad_key.any():
            h5.problem("/strings", "%d rows have a rank or id outside 0..2^32-1: skipped" % int(bad_key.sum()))
        keep = ~bad_key & np.array([x is not None for x in texts], dtype=bool)
        keys = (rank[keep] << np.uint64(32)) | (sid[keep] & np.uint64(0xFFFFFFFF))
        texts = texts[keep]
        order = np.argsort(keys, kind="stable")
        keys, texts = keys[order], texts[order]
        if len(keys) > 1:
            dup = np.concatenate(([False], keys[1:] == keys[:-1]))
            if dup.any():
                h5.problem("/strings", "%d duplicate (rank, id) rows: the first of each kept" % int(dup.sum()))
                keys, texts = keys[~dup], texts[~dup]
        self.keys, self.texts = keys, texts

    @staticmethod
    def _from_text(h5, t, names):
        if "offset" not in names or "length" not in names:
            h5.problem("/strings", "format 2 (/strings_text present) but no offset/length member: names shown as #id")
            return None
        blob = h5.array("/strings_text", kind="u")
        if blob is None:
            if not h5.exists("/strings_text"):
                h5.problem("/strings_text", "absent while /strings has offsets: names shown as #id")
            return None
        if blob.dtype.itemsize != 1:
            h5.problem("/strings_text", "elements of %d bytes, expected 1 (u8): names shown as #id" % blob.dtype.itemsize)
            return None
        raw = blob.tobytes()
        n = len(raw)
        off = t["offset"].astype(np.float64)   # float: no wrap-around of hostile u64/i64 values
        ln = t["length"].astype(np.float64)
        ok = (off >= 0) & (ln >= 0) & (off <= n) & (ln <= n - off)
        if t["offset"].dtype.kind not in "iu" or t["length"].dtype.kind not in "iu":
            h5.problem("/strings", "offset or length is not an integer: names shown as #id")
            return None
        bad = int((~ok).sum())
        if bad:
            h5.problem("/strings", "%d rows point outside /strings_text (%d bytes): their names shown as #id" % (bad, n))
        o = t["offset"].astype(np.int64)
        l_ = t["length"].astype(np.int64)
        out = np.empty(len(t), dtype=object)
        for i in range(len(t)):
            if ok[i]:
                out[i] = raw[o[i]:o[i] + l_[i]].decode("utf-8", errors="replace")
            else:
                out[i] = None
        return out

    def __len__(self):
        return len(self.keys)

    def lookup(self, ranks, ids):
        """Texts of ids (per row's rank), as an object array; id 0 is "",
        an unknown id is "#<id>"."""
        ranks = np.asarray(ranks)
        ids = np.asarray(ids)
        n = len(ids)
        out = np.empty(n, dtype=object)
        if n == 0:
            return out
        r = ranks.astype(np.uint64) & np.uint64(0xFFFFFFFF)
        i = ids.astype(np.uint64) & np.uint64(0xFFFFFFFF)
        q = (r << np.uint64(32)) | i
        found = np.zeros(n, dtype=bool)
        if len(self.keys):
            pos = np.searchsorted(self.keys, q)
            pos = np.minimum(pos, len(self.keys) - 1)
            found = self.keys[pos] == q
            out[found] = self.texts[pos[found]]
        zero = ids == 0
        out[zero & ~found] = ""
        miss = ~found & ~zero
        if miss.any():
            out[miss] = ["#%d" % int(x) for x in ids[miss]]
        return out

    def get(self, rank, sid):
        return self.lookup(np.array([rank]), np.array([sid]))[0]

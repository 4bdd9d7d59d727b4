"""The texts of a gpuinst file's /strings, for the tests' own raw reads.

One reader for every Python test that joins names by hand (the readers
under test, python/gpuinst and tools/report, are checked against it):
format 2 keeps each rank's texts in /strings_text, /strings rows
{rank, id, length, offset} point into it; format 1 has a fixed-width
`name` member.  Returns {(rank, id): text}.
"""


def raw_strings(f, errors="strict"):
    if "strings" not in f:
        return {}
    s = f["strings"][()]
    if "offset" in s.dtype.names:
        text = f["strings_text"][()].tobytes() if "strings_text" in f else b""
        return {(int(r), int(i)): text[int(o):int(o) + int(n)].decode("utf-8", errors)
                for r, i, o, n in zip(s["rank"], s["id"], s["offset"], s["length"])}
    return {(int(r), int(i)): bytes(n).rstrip(b"\0").decode("utf-8", errors)
            for r, i, n in zip(s["rank"], s["id"], s["name"])}

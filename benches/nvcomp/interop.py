"""nvCOMP reads gpucomp's LZ4 streams, and gpucomp's nvCOMP encoder writes nvCOMP's exact bytes.

usage: python3 interop.py GPUCOMP WORKDIR FILE...

For each FILE (empty ones are skipped: nvCOMP's Python API refuses empty input), with gpucomp
on the GPU (`--gpu`: no CPU fallback) and 64 KiB chunks:
  decodes  `GPUCOMP compress FILE OUT` (gpucomp's default encoder) is decoded by nvCOMP on the GPU
           (nvidia.nvcomp, Codec(algorithm="LZ4")) back to FILE's bytes;
  same     `GPUCOMP compress --encoder nvcomp FILE OUT` equals, byte for byte, the NVCOMP_NATIVE
           stream nvCOMP itself writes for FILE with Codec(algorithm="LZ4", uncomp_chunk_size=65536);
           "yes*": equal but for the header pad bytes nvCOMP leaves unwritten (UNWRITTEN below),
           where ours are 0 as in nvCOMP's golden streams.
Prints one line per file, then two summary lines (`nvcomp-decodes-ours: yes (N/N)`,
`nvcomp-encoder-identical: ...`). Exit status 1 if any check failed.
Needs a GPU, cupy, and the wheels nvidia-libnvcomp-cu13 / nvidia-nvcomp-cu13 6.0.0.12 importable.
"""
import os
import subprocess
import sys

import cupy as cp
import numpy as np
from nvidia import nvcomp

CHUNK = 65536
# Header bytes nvCOMP's LZ4 writer leaves unwritten: the pads at 0x07 and 0x37 and the gap between
# the 12-byte spec header and the chunk table. Through the Python API they hold stale device
# memory (seen on an H200: bytes of earlier inputs); nvCOMP's golden streams, written into fresh
# memory, have zeros there, as gpucomp writes.
UNWRITTEN = (0x07, 0x37, 0x44, 0x45, 0x46, 0x47)


def to_gpu(data):
    return nvcomp.as_array(cp.asarray(np.frombuffer(data, dtype=np.uint8)))


def to_host(arr):
    return cp.asnumpy(cp.asarray(arr.cuda())).view(np.uint8).tobytes()


def first_diff(a, b):
    n = min(len(a), len(b))
    d = np.flatnonzero(np.frombuffer(a, np.uint8, n) != np.frombuffer(b, np.uint8, n))
    return int(d[0]) if len(d) else n


def describe_diff(mine, theirs):
    """Where two streams differ, by region of nvCOMP's NVCOMP_NATIVE layout (shared FORMATS.md):
    header and tables before comp_data_offset, each chunk's bytes, the zero padding between."""
    n = min(len(mine), len(theirs))
    at = np.flatnonzero(np.frombuffer(mine, np.uint8, n) != np.frombuffer(theirs, np.uint8, n))
    text = f"{len(mine)} vs nvCOMP's {len(theirs)} bytes, {len(at)} of the first {n} differ"
    if len(at) == 0 or len(theirs) < 0x48 or int.from_bytes(theirs[:4], "little") != 0x52911327:
        return text + (f", first at byte {int(at[0])}" if len(at) else "")
    chunks = int.from_bytes(theirs[0x18:0x20], "little")
    data = int.from_bytes(theirs[0x28:0x2C], "little")
    table = np.frombuffer(theirs, "<u8", 2 * chunks, 0x48) if 0x48 + 16 * chunks <= len(theirs) else None
    head = at[at < data]
    header = f"{len(head)} (" + ", ".join(f"{hex(int(i))}: ours {mine[i]:02x} nvCOMP {theirs[i]:02x}" for i in head[:6]) + ")"
    in_chunks, padding = set(), 0
    for pos in at[at >= data] - data:
        i = int(np.searchsorted(table[:chunks], pos, side="right")) - 1 if table is not None else -1
        if i >= 0 and pos < table[i] + table[chunks + i]:
            in_chunks.add(i)
        else:
            padding += 1
    listed = ",".join(map(str, sorted(in_chunks)[:8])) + (",..." if len(in_chunks) > 8 else "")
    return (f"{text}, first at byte {int(at[0])}: header/tables {header}, padding {padding}, "
            f"data of {len(in_chunks)} of {chunks} chunks" + (f" ({listed})" if in_chunks else ""))


def compare(mine, theirs):
    """"yes" (identical), "yes*" (differing only in UNWRITTEN bytes, ours 0) or "NO", and a note."""
    if mine == theirs:
        return "yes", ""
    if len(mine) == len(theirs):
        at = np.flatnonzero(np.frombuffer(mine, np.uint8) != np.frombuffer(theirs, np.uint8))
        if all(int(i) in UNWRITTEN and mine[i] == 0 for i in at):
            return "yes*", "nvCOMP's unwritten bytes: " + " ".join(f"{hex(int(i))}={theirs[i]:02x}" for i in at)
    return "NO", "--encoder nvcomp: " + describe_diff(mine, theirs)


def gpucomp_compress(exe, args, path, out):
    """Runs the CLI; the stream bytes, or an error string."""
    cmd = [exe, "compress", "--gpu", "--chunk-size", str(CHUNK), *args, path, out]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        return None, f"gpucomp exit {p.returncode}: {(p.stderr or p.stdout).strip()[-200:]}"
    try:
        with open(out, "rb") as f:
            return f.read(), ""
    except OSError as e:
        return None, f"gpucomp wrote no stream: {e}"


def check(exe, work, path, decoder, reference):
    """(decodes, same, detail) for one file."""
    with open(path, "rb") as f:
        data = f.read()
    name = os.path.basename(path)
    notes = []
    ours, err = gpucomp_compress(exe, [], path, os.path.join(work, name + ".gpucomp.nvc"))
    decodes = False
    if ours is None:
        notes.append("default encoder: " + err)
    else:
        try:
            back = to_host(decoder.decode(to_gpu(ours)))
            decodes = back == data
            if not decodes:
                notes.append(f"nvCOMP decoded {len(back)} bytes, first difference at {first_diff(back, data)}")
        except Exception as e:  # nvCOMP raises on streams it rejects: that is the finding
            decodes = False
            notes.append(f"nvCOMP refused our stream: {type(e).__name__}: {e}".replace("\n", " ")[:200])
    mine, err = gpucomp_compress(exe, ["--encoder", "nvcomp"], path, os.path.join(work, name + ".nvenc.nvc"))
    same = "NO"
    if mine is None:
        notes.append("--encoder nvcomp: " + err)
    else:
        try:
            same, note = compare(mine, to_host(reference.encode(to_gpu(data))))
        except Exception as e:  # nvCOMP failing on an input: report it with the file's other result
            same, note = "NO", f"nvCOMP's encoder failed: {type(e).__name__}: {e}".replace("\n", " ")[:200]
        notes += [note] if note else []
    return decodes, same, "; ".join(notes)


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    exe, work, paths = sys.argv[1], sys.argv[2], sys.argv[3:]
    os.makedirs(work, exist_ok=True)
    decoder = nvcomp.Codec(algorithm="LZ4")
    reference = nvcomp.Codec(algorithm="LZ4", uncomp_chunk_size=CHUNK)
    results = []
    print(f"{'file':<24} {'bytes':>10}  nvCOMP decodes ours  nvcomp-encoder identical")
    for path in paths:
        if os.path.getsize(path) == 0:
            print(f"{os.path.basename(path):<24} {0:>10}  skipped (empty)")
            continue
        try:
            decodes, same, detail = check(exe, work, path, decoder, reference)
        except Exception as e:  # e.g. nvCOMP failing to encode: report it, go on with the next file
            decodes, same, detail = False, "NO", f"{type(e).__name__}: {e}".replace("\n", " ")[:200]
        results.append((decodes, same))
        line = f"{os.path.basename(path):<24} {os.path.getsize(path):>10}  {'yes' if decodes else 'NO':<19}  {same}"
        print(line + (f"  ({detail})" if detail else ""), flush=True)
    n = len(results)
    decoded = sum(d for d, _ in results)
    print(f"nvcomp-decodes-ours: {'yes' if decoded == n else 'no'} ({decoded}/{n} files)")
    same = sum(s != "NO" for _, s in results)
    starred = sum(s == "yes*" for _, s in results)
    print(f"nvcomp-encoder-identical: {'yes' if same == n else 'no'} ({same}/{n} files"
          + (f"; {starred} apart from the header bytes nvCOMP leaves unwritten" if starred else "") + ")")
    sys.exit(0 if decoded == n and same == n else 1)


if __name__ == "__main__":
    main()

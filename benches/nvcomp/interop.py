"""nvCOMP decodes gpucomp's streams of every algorithm and type, gpucomp's nvCOMP LZ4 encoder writes
nvCOMP's exact bytes, and gpucomp decodes nvCOMP's streams of the benchmark corpus.

usage: python3 interop.py GPUCOMP BENCH WORKDIR CORPUS_DIR GOLDEN_INPUTS_DIR [--local]

GPUCOMP is the CLI, BENCH the throughput bench binary (its `streams` command writes the option
variants the CLI has no flags for), CORPUS_DIR the anchor corpus (bench `corpus` plus the numpy
files), GOLDEN_INPUTS_DIR tests/data/golden/inputs. All streams but Zstd's RAW and
WITH_UNCOMPRESSED_SIZE ones are NVCOMP_NATIVE with 64 KiB chunks, written on the GPU (`--gpu`) where gpucomp has compression kernels and by the CPU codecs
otherwise (the same bytes). Inputs: the corpus files with their own type, and "typed views" of a
few golden inputs (each input cut to a multiple of the type's width and compressed as that type).

  decodes   nvCOMP (nvidia.nvcomp, Codec(algorithm=...)) decodes our stream back to its input:
            LZ4 (default encoder) on the text corpus and the golden inputs;
            Cascaded: every integer type (CLI, default options) and, through BENCH, levels 0-3 x
            flag sets for, for+delta, for+rle, for+delta+rle;
            Bitcomp: both algorithms x every type (char .. ulonglong, float16/32/64);
            ANS: byte (char, uchar), float16, float32 (CLI) and, through BENCH, 1 and 2 states
            per lane x max_sub_chunk_count default, 4, 64;
            Zstd: every bitstream kind (NVCOMP_NATIVE, RAW, WITH_UNCOMPRESSED_SIZE; nvCOMP's
            codec is told the kind) of the golden inputs at level 3, two of them at levels -5,
            1, 19 and 22, NVCOMP_NATIVE with checksums and with 4 KiB and 1 MiB chunks.
  same      `GPUCOMP compress --encoder nvcomp` equals, byte for byte, the stream nvCOMP writes
            with Codec(algorithm="LZ4", uncomp_chunk_size=65536); "yes*": equal but for the header
            pad bytes nvCOMP leaves unwritten (UNWRITTEN below), where ours are 0 as in nvCOMP's
            golden streams.
  reverse   `GPUCOMP decompress` reads nvCOMP's stream of each corpus file for every benchmark
            row (benches/nvcomp/anchors) back to the file.

Prints one line per failure and a table per algorithm and type, then summary lines:
`nvcomp-decodes-ours: yes (N/N streams)`, one `nvcomp-decodes-ours-<algo>: ...` per algorithm,
`nvcomp-encoder-identical: ...`, `ours-decodes-nvcomp: ...`. Exit status 1 if any check failed.
Needs a GPU, cupy, and the wheels nvidia-libnvcomp-cu13 / nvidia-nvcomp-cu13 6.0.0.12 importable.
With --local (no GPU, no nvCOMP): writes our streams on the CPU and decodes them with GPUCOMP
only, to check this script's own plumbing. INTEROP_ALGORITHMS="zstd ..." keeps only those
algorithms' checks (the encoder check is LZ4's, the reverse check the anchors' rows of them).
"""
import csv
import json
import os
import subprocess
import sys
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor

import numpy as np

CHUNK = 65536
# CLI processes at once (each opens its own CUDA context).
WORKERS = min(16, os.cpu_count() or 1)
# Header bytes nvCOMP's LZ4 writer leaves unwritten: the pads at 0x07 and 0x37 and the gap between
# the 12-byte spec header and the chunk table. Through the Python API they hold stale device
# memory (seen on an H200: bytes of earlier inputs); nvCOMP's golden streams, written into fresh
# memory, have zeros there, as gpucomp writes.
UNWRITTEN = (0x07, 0x37, 0x44, 0x45, 0x46, 0x47)
# Golden inputs of the Zstd streams: text, integer columns, floats, runs, incompressible bytes,
# sizes 1 to 200 000 (not empty: nvCOMP's Zstd neither writes nor reads an empty stream).
ZSTD_INPUTS = ["one.bin", "tiny32.bin", "text4k.txt", "text.tbl", "orderkey.i64", "quantity.i32",
               "discount.u8", "f32walk.f32", "w.f16", "one65536.u8", "two65536.u8", "mixed.u8", "runs.u16"]
# Inputs that also get every level variant, and the levels (libzstd's fastest to its highest).
ZSTD_LEVEL_INPUTS, ZSTD_LEVELS = ["text.tbl", "orderkey.i64"], [-5, 1, 19, 22]
ZSTD_KINDS = {"native": "NVCOMP_NATIVE", "raw": "RAW", "usize": "WITH_UNCOMPRESSED_SIZE"}
# nvCOMP type names (as nvbench and our CLI spell them) -> numpy type strings of nvCOMP's Python API.
NUMPY = {"char": "|i1", "uchar": "|u1", "short": "<i2", "ushort": "<u2", "int": "<i4", "uint": "<u4",
         "longlong": "<i8", "ulonglong": "<u8", "float16": "<f2", "float32": "<f4", "float64": "<f8"}
WIDTH = {t: int(s[2]) for t, s in NUMPY.items()} | {"float8": 1}
INTEGERS = ["char", "uchar", "short", "ushort", "int", "uint", "longlong", "ulonglong"]
BITCOMP_TYPES = INTEGERS + ["float16", "float32", "float64"]
ANS_TYPES = ["char", "uchar", "float16", "float32", "float8"]
# nvCOMP's Python API names FLOAT8 E4M3 "|f1" (numpy has no such type; seen on nvCOMP 6.0.0.12).
NVCOMP_FLOAT8 = "|f1"
CASCADED_FLAGS = ["for", "for+delta", "for+rle", "for+delta+rle"]
# Golden inputs the typed views are cut from: real-shaped columns, runs, walks, text, floats.
VIEW_INPUTS = ["orderkey.i64", "shipdate.i32", "discount.u8", "runs.u16", "neg.i16", "walk.i64", "text.tbl",
               "f32walk.f32", "f16n70000.f16"]
# The LZ4 checks (decodes, same) of today's run: every golden input with content, three size probes.
LZ4_PROBES = ["ck013.bin", "ck08192.bin", "ck65536.bin"]
# Corpus file -> its element type (ANS reads the floats as FLOAT16 / FLOAT32, the rest as bytes).
CORPUS_TYPES = {"lineitem_orderkey.i64": "longlong", "lineitem_extendedprice.i64": "longlong",
                "lineitem_partkey.i32": "int", "lineitem_quantity.i32": "int", "lineitem_shipdate.i32": "int",
                "lineitem_discount.u8": "uchar", "lineitem_linenumber.u8": "uchar", "sensor.f32": "float32",
                "weights.f16": "float16", "lineitem.tbl": "uchar", "lineitem_comment.txt": "uchar"}


class CudaBytes:
    """A device buffer described by a CUDA array interface (for CuPy to read)."""

    def __init__(self, iface):
        self.__cuda_array_interface__ = iface


class Nvcomp:
    """nvCOMP's Python API on the GPU, with codecs cached per (algorithm, options)."""

    def __init__(self):
        import cupy
        from nvidia import nvcomp
        self.cp, self.nv, self.codecs = cupy, nvcomp, {}

    def codec(self, algorithm, **kw):
        key = (algorithm, tuple(sorted(kw.items())))
        if key not in self.codecs:
            if "bitstream_kind" in kw:  # by name in the JSON items
                kw = dict(kw, bitstream_kind=getattr(self.nv.BitstreamKind, kw["bitstream_kind"]))
            self.codecs[key] = self.nv.Codec(algorithm=algorithm, **kw)
        return self.codecs[key]

    def to_gpu(self, data):
        return self.nv.as_array(self.cp.asarray(np.frombuffer(data, dtype=np.uint8)))

    def to_host(self, arr):
        # Read as bytes: numpy and CuPy do not know nvCOMP's FLOAT8 type string "|f1".
        iface = dict(arr.cuda().__cuda_array_interface__)
        if iface.get("typestr") == NVCOMP_FLOAT8:
            iface.update(typestr="|u1", descr=[("", "|u1")])
        return self.cp.asnumpy(self.cp.asarray(CudaBytes(iface))).view(np.uint8).tobytes()

    def decode(self, algorithm, stream, kw):
        """The bytes nvCOMP decodes an NVCOMP_NATIVE stream to, with a codec made with the options
        the stream was written with (its header names them too); options this algorithm's Python
        codec does not take are dropped."""
        try:
            codec = self.codec(algorithm, **kw)
        except (TypeError, ValueError):
            codec = self.codec(algorithm)
        return self.to_host(codec.decode(self.to_gpu(stream)))

    def encode(self, data, algorithm, **kw):
        return self.to_host(self.codec(algorithm, **kw).encode(self.to_gpu(data)))


def nvcomp_options(algo, dtype, options=()):
    """nvCOMP Python codec options for our ALGO / TYPE (the CLI's names) and bench OPTIONS. Its
    ANS codec decodes with its own states_per_lane and data type, not the stream's (a one-state
    stream read by a default codec decodes wrong from byte 0, nvCOMP's own ones included): name them."""
    kw = {"algorithm_type": 1} if algo == "bitcomp-sparse" else {}
    if algo != "lz4" and dtype in NUMPY:
        kw["data_type"] = NUMPY[dtype]
    if algo == "ans" and dtype == "float8":
        kw["data_type"] = NVCOMP_FLOAT8
    for o in options:
        if algo == "ans" and o.startswith("states="):
            kw["states_per_lane"] = int(o.split("=")[1])
        if algo == "zstd" and o.startswith("kind="):
            kw = {"bitstream_kind": ZSTD_KINDS[o.split("=")[1]]}
    return kw


# Exception texts after which the CUDA context is unusable (an illegal address is sticky): the
# worker stops, and the parent starts a fresh one for the rest.
CUDA_DEAD = ("illegal memory access", "cudaErrorIllegalAddress", "CUDA Runtime API failure", "unspecified launch failure",
             "cudaErrorLaunchFailure", "misaligned address")


def worker(kind, items_path):
    """Runs nvCOMP on each item of a JSON list, one JSON result line each (i, ok, why, ...). Exit
    status 3 right after an error that leaves the CUDA context unusable."""
    with open(items_path) as f:
        items = json.load(f)
    nv = Nvcomp()
    for i, it in enumerate(items):
        res = {"i": i, "ok": False, "why": ""}
        try:
            with open(it["path"], "rb") as f:
                data = f.read()
            if kind == "decode":  # nvCOMP decodes our stream
                with open(it["stream"], "rb") as f:
                    back = nv.decode(it["algorithm"], f.read(), it["kw"])
                res["ok"] = back == data
                if not res["ok"]:
                    res["why"] = f"decoded {len(back)} bytes, first difference at {first_diff(back, data)}"
            elif kind == "control":  # nvCOMP decodes its own stream of the same input and options
                codec = nv.codec(it["algorithm"], **it["kw"])
                back = nv.to_host(codec.decode(codec.encode(nv.to_gpu(data))))
                res["ok"] = back == data
                res["why"] = "" if res["ok"] else f"nvCOMP's own round trip gave {len(back)} bytes"
            elif kind == "nvenc":  # our --encoder nvcomp stream against nvCOMP's
                with open(it["stream"], "rb") as f:
                    res["same"], res["why"] = compare(f.read(), nv.encode(data, "LZ4", uncomp_chunk_size=CHUNK))
                res["ok"] = res["same"] != "NO"
            elif kind == "encode":  # nvCOMP's stream of a corpus file, for our CLI to decode
                with open(it["stream"], "wb") as f:
                    f.write(nv.encode(data, it["algorithm"], **it["kw"]))
                res["ok"] = True
        except Exception as e:  # nvCOMP raising on an input: that is the finding
            res["why"] = short(e)
            if any(t in f"{type(e).__name__}: {e}" for t in CUDA_DEAD):
                res["crash"] = True
                print(json.dumps(res), flush=True)
                sys.exit(3)
        print(json.dumps(res), flush=True)


def run_workers(work, kind, items, max_crashes=3):
    """Results of `worker(kind)` for every item, in fresh worker processes: after a crash (CUDA
    context lost) the rest goes to a new worker; after max_crashes, the rest is not tried."""
    results, start, crashes = [None] * len(items), 0, 0
    path = os.path.join(work, f"worker-{kind}.json")
    while start < len(items):
        with open(path, "w") as f:
            json.dump(items[start:], f)
        try:
            p = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", kind, path],
                               capture_output=True, text=True, timeout=150)
            out, rc, err = p.stdout, p.returncode, p.stderr
        except subprocess.TimeoutExpired as e:
            out, rc, err = (e.stdout or b"").decode(errors="replace"), "timeout", ""
        done = start
        for line in out.splitlines():
            if line.startswith("{"):
                r = json.loads(line)
                results[start + r["i"]] = r
                done = start + r["i"] + 1
        if done == len(items):
            break
        crashes += 1
        if done == start or not results[done - 1].get("crash"):
            # The worker died without a word on this item (a segfault, a timeout): charge it.
            results[done] = {"ok": False, "crash": True, "why": f"nvCOMP worker died (exit {rc}): {err.strip()[-200:]}"}
            done += 1
        if crashes >= max_crashes:
            for k in range(done, len(items)):
                results[k] = {"ok": False, "why": f"not tried: nvCOMP lost its CUDA context on {crashes} earlier items"}
            break
        start = done
    return results


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


def short(e):
    return f"{type(e).__name__}: {e}".replace("\n", " ")[:200]


class Job:
    """One stream of ours: INPUT compressed with ALGORITHM / TYPE / options into OUT."""

    def __init__(self, algo, dtype, path, out, options=(), cli_args=None):
        self.algo, self.dtype, self.path, self.out, self.options = algo, dtype, path, out, list(options)
        # CLI arguments, or None: written by BENCH streams (options the CLI has no flags for).
        self.cli_args = cli_args
        self.error = None

    @property
    def label(self):
        return " ".join([self.algo, self.dtype, os.path.basename(self.path)] + self.options)


def nvcomp_name(algo):
    return {"lz4": "LZ4", "cascaded": "Cascaded", "bitcomp": "Bitcomp", "bitcomp-sparse": "Bitcomp", "ans": "ANS",
            "zstd": "Zstd"}[algo]


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    return None if p.returncode == 0 else f"exit {p.returncode}: {(p.stderr or p.stdout).strip()[-300:]}"


def typed_view(golden, work, name, dtype):
    """A golden input cut to a multiple of the type's width (None if that leaves nothing)."""
    with open(os.path.join(golden, name), "rb") as f:
        data = f.read()
    n = len(data) // WIDTH[dtype] * WIDTH[dtype]
    if n == 0:
        return None
    path = os.path.join(work, "views", f"{name}.{dtype}")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data[:n])
    return path


def plan(exe, work, corpus, golden, device):
    """Every stream of ours to write and have nvCOMP decode."""
    jobs = []
    out = lambda *parts: os.path.join(work, "ours", ".".join(parts) + ".nvc")
    os.makedirs(os.path.join(work, "ours"), exist_ok=True)

    def cli(algo, dtype, path, extra=()):
        name = os.path.basename(path)
        args = [exe, "compress", "--force", device, "--chunk-size", str(CHUNK), "--algorithm", algo, "--data-type", dtype,
                *extra, path, out(name, algo, dtype, *[e.strip("-") for e in extra])]
        jobs.append(Job(algo, dtype, path, args[-1], [], args))

    def bench(algo, dtype, path, options):
        name = os.path.basename(path)
        jobs.append(Job(algo, dtype, path, out(name, algo, dtype, *[o.replace("=", "") for o in options]), options))

    texts = [p for p in (os.path.join(corpus, n) for n in ("lineitem.tbl", "lineitem_comment.txt")) if os.path.exists(p)]
    lz4_inputs = texts + sorted(os.path.join(golden, n) for n in os.listdir(golden)
                                if not n.startswith("ck") and os.path.getsize(os.path.join(golden, n)) > 0)
    lz4_inputs += [os.path.join(golden, n) for n in LZ4_PROBES if os.path.exists(os.path.join(golden, n))]
    for path in lz4_inputs:
        cli("lz4", "char", path)
    # Float types see the float inputs first, the others the integer columns first.
    order = lambda t: sorted(VIEW_INPUTS, key=lambda n: t.startswith("float") != n.endswith((".f16", ".f32")))
    views = {t: [v for v in (typed_view(golden, work, n, t) for n in order(t)) if v] for t in WIDTH}
    columns = {t: [os.path.join(corpus, n) for n, ct in CORPUS_TYPES.items()
                   if ct == t and not n.endswith(".txt") and n != "lineitem.tbl" and os.path.exists(os.path.join(corpus, n))]
               for t in NUMPY}
    for t in INTEGERS:
        for path in views[t] + columns[t]:
            cli("cascaded", t, path)
        for path in views[t][:2]:
            for level in range(4):
                for flags in CASCADED_FLAGS:
                    bench("cascaded", t, path, [f"level={level}", f"flags={flags}"])
    for algo in ("bitcomp", "bitcomp-sparse"):
        for t in BITCOMP_TYPES:
            for path in views[t][:4] + columns[t]:
                cli(algo, t, path)
    ans_corpus = {"uchar": [p for p in texts if p.endswith(".tbl")], "float16": columns["float16"],
                  "float32": columns["float32"], "char": [], "float8": []}
    for t in ANS_TYPES:
        for path in views[t][:4] + ans_corpus[t]:
            cli("ans", t, path)
        for path in views[t][:2]:
            for states in (1, 2):
                for sub in (0, 4, 64):
                    bench("ans", t, path, [f"states={states}"] + ([f"subchunks={sub}"] if sub else []))

    def zstd(name, kind="native", level=3, extra=()):
        path = os.path.join(golden, name)
        options = [f"kind={kind}", f"level={level}", *[e.strip("-") for e in extra]]
        args = [exe, "compress", "--force", device, "--algorithm", "zstd", "--kind", kind, "--level", str(level),
                *(["--chunk-size", str(CHUNK)] if kind == "native" and "--chunk-size" not in extra else []), *extra,
                path, out(name, "zstd", *[o.replace("=", "") for o in options])]
        jobs.append(Job("zstd", "uchar", path, args[-1], options, args))

    for name in ZSTD_INPUTS:
        for kind in ZSTD_KINDS:
            zstd(name, kind)
    for name in ZSTD_LEVEL_INPUTS:
        for kind in ZSTD_KINDS:
            for level in ZSTD_LEVELS:
                zstd(name, kind, level)
    for name in ("text4k.txt", "text.tbl"):
        zstd(name, extra=["--checksums"])
    for chunk in ("4096", "1048576"):
        zstd("text.tbl", extra=["--chunk-size", chunk])
    only = os.environ.get("INTEROP_ALGORITHMS")
    return [j for j in jobs if j.algo in only.split()] if only else jobs


def write_streams(bench_exe, work, jobs):
    """Writes every job's stream: CLI jobs in parallel, BENCH jobs in one `streams` run."""
    with ThreadPoolExecutor(WORKERS) as pool:
        for job, err in zip([j for j in jobs if j.cli_args], pool.map(run, [j.cli_args for j in jobs if j.cli_args])):
            job.error = err and "gpucomp " + err
    variants = [j for j in jobs if not j.cli_args]
    if not variants:
        return
    listing = os.path.join(work, "streams.jobs")
    with open(listing, "w") as f:
        f.writelines(" ".join([j.path, j.out, j.algo, j.dtype, *j.options]) + "\n" for j in variants)
    p = subprocess.run([bench_exe, "streams", listing], capture_output=True, text=True)
    said = {}
    for line in p.stdout.splitlines():
        if line.startswith("ok "):
            said[line.split()[1]] = None
        elif line.startswith("error "):
            out, _, msg = line[6:].partition(": ")
            said[out] = msg
    for j in variants:
        j.error = said.get(j.out, f"bench streams exit {p.returncode}, no line for this job: {p.stderr.strip()[-200:]}")
        j.error = j.error and "bench streams: " + j.error


def check_decodes(local, exe, work, jobs):
    """nvCOMP (or, with --local, our CLI) decodes each stream back to its input: per job, whether
    it did and why not. nvCOMP runs in one worker per algorithm, so that a crash in one cannot
    take the others' results; for each algorithm where nvCOMP crashed, a control: does nvCOMP
    decode its own stream of the first such input with the same options?"""
    results = {}
    if local:
        def ours(j):
            back = j.out + ".back"
            # The CLI detects the container; RAW and WITH_UNCOMPRESSED_SIZE do not name the algorithm.
            how = ["--algorithm", j.algo] if any(o in ("kind=raw", "kind=usize") for o in j.options) else []
            err = run([exe, "decompress", "--force", "--cpu", *how, j.out, back])
            ok = err is None and same_file(back, j.path)
            if os.path.exists(back):
                os.remove(back)
            return ok, "" if ok else (err or "decoded bytes differ")
        todo = [j for j in jobs if not j.error]
        with ThreadPoolExecutor(WORKERS) as pool:
            results = dict(zip(map(id, todo), pool.map(ours, todo)))
    else:
        for algo in dict.fromkeys(j.algo for j in jobs):
            group = [j for j in jobs if j.algo == algo and not j.error]
            items = [{"path": j.path, "stream": j.out, "algorithm": nvcomp_name(algo), "kw": nvcomp_options(algo, j.dtype, j.options)}
                     for j in group]
            got = run_workers(work, "decode", items)
            for j, r in zip(group, got):
                results[id(j)] = (r["ok"], r["why"] and ("nvCOMP crashed: " if r.get("crash") else "") + r["why"])
            crashed = [(j, it) for j, it, r in zip(group, items, got) if r.get("crash")]
            if crashed:
                j, it = crashed[0]
                r = run_workers(work, "control", [it])[0]
                print(f"nvcomp-control-{algo}: nvCOMP lost its CUDA context on {len(crashed)} of our {len(group)} "
                      f"streams; on its own stream of {os.path.basename(j.path)} with {it['kw']} it "
                      + ("decodes fine" if r["ok"] else "fails too: " + r["why"]))
    return [(j, False, j.error) if j.error else (j, *results[id(j)]) for j in jobs]


def check_nvcomp_encoder(exe, work, paths, device):
    """`--encoder nvcomp` against nvCOMP's own LZ4 stream, per file: (path, same, note)."""
    outs = [os.path.join(work, "ours", os.path.basename(p) + ".nvenc.nvc") for p in paths]
    with ThreadPoolExecutor(WORKERS) as pool:
        errors = list(pool.map(run, [[exe, "compress", "--force", device, "--chunk-size", str(CHUNK), "--encoder", "nvcomp", p, o]
                                     for p, o in zip(paths, outs)]))
    todo = [(p, o) for p, o, e in zip(paths, outs, errors) if e is None]
    got = iter(run_workers(work, "nvenc", [{"path": p, "stream": o} for p, o in todo]))
    results = []
    for path, err in zip(paths, errors):
        if err:
            results.append((path, "NO", "gpucomp " + err))
            continue
        r = next(got)
        results.append((path, r.get("same", "NO"), r["why"] if r.get("same") else "nvCOMP's encoder failed: " + r["why"]))
    return results


def check_reverse(exe, work, corpus, anchors):
    """Our CLI decodes nvCOMP's stream of each (algorithm, file, type, chunk) row of the anchors:
    ((algo, file, dtype, chunk), None or the failure)."""
    rows, only = [], os.environ.get("INTEROP_ALGORITHMS")
    with open(anchors) as f:
        for r in csv.DictReader(f):
            key = (r["algo"], r["file"], r["dtype"], int(r["chunk"]))
            if only and r["algo"] not in only.split():
                continue
            if key not in rows and os.path.exists(os.path.join(corpus, r["file"])):
                rows.append(key)
    os.makedirs(os.path.join(work, "theirs"), exist_ok=True)
    items = []
    for algo, name, dtype, chunk in rows:
        kw = {"uncomp_chunk_size": chunk}
        # nvbench's types: LZ4 takes char, its default; ANS uses bytes unless float16.
        if algo in ("cascaded", "bitcomp") or (algo == "ans" and dtype == "float16"):
            kw["data_type"] = NUMPY[dtype]
        items.append({"path": os.path.join(corpus, name), "algorithm": nvcomp_name(algo), "kw": kw,
                      "stream": os.path.join(work, "theirs", f"{name}.{algo}.{dtype}.{chunk}.nvc")})
    encoded = run_workers(work, "encode", items)

    def decode(arg):
        it, enc = arg
        if not enc["ok"]:
            return "nvCOMP could not encode: " + enc["why"]
        back = it["stream"] + ".back"
        err = run([exe, "decompress", "--force", "--gpu", it["stream"], back])
        if err is None and not same_file(back, it["path"]):
            err = "decoded bytes differ from the file"
        for p in (it["stream"], back):
            if os.path.exists(p):
                os.remove(p)
        return err

    with ThreadPoolExecutor(4) as pool:
        return list(zip(rows, pool.map(decode, zip(items, encoded))))


def same_file(a, b):
    if os.path.getsize(a) != os.path.getsize(b):
        return False
    with open(a, "rb") as f, open(b, "rb") as g:
        while True:
            x, y = f.read(1 << 24), g.read(1 << 24)
            if x != y:
                return False
            if not x:
                return True


def verdict(good, total, unit):
    return f"{'yes' if good == total and total else 'no'} ({good}/{total} {unit})"


def main():
    if sys.argv[1:2] == ["--worker"]:
        return worker(*sys.argv[2:4])
    args = [a for a in sys.argv[1:] if a != "--local"]
    local = "--local" in sys.argv[1:]
    if len(args) != 5:
        sys.exit(__doc__)
    exe, bench_exe, work, corpus, golden = args
    anchors = os.path.join(os.path.dirname(os.path.abspath(__file__)), "anchors", "nvcomp6-h200.csv")
    # INTEROP_DEVICE overrides where our CLI runs (tests of this script on a machine without a GPU).
    device = os.environ.get("INTEROP_DEVICE", "--cpu" if local else "--gpu")
    os.makedirs(work, exist_ok=True)
    jobs = plan(exe, work, corpus, golden, device)
    t0 = time.time()
    stamp = lambda: f"[{time.time() - t0:.0f} s]"
    print(f"writing {len(jobs)} streams of ours ({sum(1 for j in jobs if j.cli_args)} with the CLI, "
          f"{sum(1 for j in jobs if not j.cli_args)} option variants with the bench's streams command) ...", flush=True)
    write_streams(bench_exe, work, jobs)
    print(f"{stamp()} {'our CLI' if local else 'nvCOMP'} decoding them ...", flush=True)
    results = check_decodes(local, exe, work, jobs)
    failures = [(j, why) for j, ok, why in results if not ok]
    for algo in dict.fromkeys(j.algo for j, _ in failures):
        mine = [(j, why) for j, why in failures if j.algo == algo]
        for j, why in mine[:8]:
            print(f"  NOT DECODED: {j.label}: {why}")
        if len(mine) > 8:
            print(f"  ... and {len(mine) - 8} more {algo} streams")

    table = defaultdict(lambda: [0, 0, set(), set()])
    for j, ok, _ in results:
        t = table[(j.algo, j.dtype)]
        t[0] += ok
        t[1] += 1
        t[2].add(os.path.basename(j.path).split(".")[0])
        t[3].update(o.split("=")[0] for o in j.options)
    print(f"\n{'algorithm':<16}{'type':<11}{'decoded':>9}  inputs; option variants")
    for (algo, dtype), (good, total, inputs, opts) in table.items():
        print(f"{algo:<16}{dtype:<11}{f'{good}/{total}':>9}  {len(inputs)} inputs"
              + (f"; {', '.join(sorted(opts))}" if opts else "") + ("" if good == total else "   <-- FAILED"))

    all_ok = not failures
    by_algo = defaultdict(lambda: [0, 0])
    for j, ok, _ in results:
        a = "bitcomp" if j.algo.startswith("bitcomp") else j.algo
        by_algo[a][0] += ok
        by_algo[a][1] += 1
    if local:
        print(f"{stamp()} done")
        print(f"\nours-decodes-ours (--local): {verdict(len(results) - len(failures), len(results), 'streams')}")
        sys.exit(0 if all_ok else 1)

    print(f"\n{stamp()} --encoder nvcomp against nvCOMP's LZ4 streams ...", flush=True)
    lz4_paths = [j.path for j in jobs if j.algo == "lz4"]
    same = check_nvcomp_encoder(exe, work, lz4_paths, device)
    notable = [(path, s, note) for path, s, note in same if s != "yes" or note]
    for path, s, note in notable[:30]:
        print(f"  {os.path.basename(path)}: {s}" + (f" ({note})" if note else ""))
    if len(notable) > 30:
        print(f"  ... and {len(notable) - 30} more")
    print(f"\n{stamp()} our CLI decoding nvCOMP's streams of the corpus (every benchmark row) ...", flush=True)
    reverse = check_reverse(exe, work, corpus, anchors)
    for (algo, name, dtype, chunk), err in reverse:
        print(f"  {algo:<9}{name:<28}{dtype:<10}{chunk:>6}  {'yes' if err is None else 'NO: ' + err}")

    total = len(results)
    print(f"{stamp()} done")
    print(f"\nnvcomp-decodes-ours: {verdict(total - len(failures), total, 'streams')}")
    for a in ("lz4", "cascaded", "bitcomp", "ans", "zstd"):
        good, n = by_algo.get(a, (0, 0))
        types = sorted({j.dtype for j in jobs if j.algo.startswith(a)}, key=list(WIDTH).index)
        print(f"nvcomp-decodes-ours-{a}: {verdict(good, n, 'streams')}; types {' '.join(types)}")
    good = sum(s != "NO" for _, s, _ in same)
    starred = sum(s == "yes*" for _, s, _ in same)
    print(f"nvcomp-encoder-identical: {verdict(good, len(same), 'files')}"
          + (f"; {starred} apart from the header bytes nvCOMP leaves unwritten" if starred else ""))
    good = sum(err is None for _, err in reverse)
    print(f"ours-decodes-nvcomp: {verdict(good, len(reverse), 'corpus streams')}")
    all_ok = all_ok and all(s != "NO" for _, s, _ in same) and good == len(reverse)
    sys.exit(0 if all_ok else 1)


if __name__ == "__main__":
    main()

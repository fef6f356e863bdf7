"""nvCOMP and gpucomp alternately on ANS files: the protocol of scripts/gpu/confirm.sh and
scripts/gpu/batch-sizes.sh, which import this (bundled as .gpu/nvcomp/alternate.py).

Each round runs, file by file, nvbench (nvCOMP) and then bench `run` (gpucomp) on the same file,
data type and 64 KiB chunks: one batched call per direction, the median of 15 calls each.
Alternating evens out the drift of one long run (clocks, temperature) that a side-by-side pair
can meet. The CSV keeps every round's rows as `who,round,` and nvbench's columns
(algo,file,dtype,chunk,bytes,comp_bytes,ratio,comp_GBps,decomp_GBps,ok); `rounds` reads it back
and `medians` gives the medians of the rounds."""
import collections
import statistics
import subprocess


def run(nvbench, bench, files, rounds, csv, log):
    """`rounds` rounds over `files` ((path, nvcompType name) pairs): the two tools' ANS rows
    appended to `csv`, their stderr to `log`."""
    with open(csv, "a") as out, open(log, "a") as err:
        for r in range(1, rounds + 1):
            for path, dtype in files:
                print(f"[round {r} of {rounds}] {path} {dtype}: nvCOMP, gpucomp ...", flush=True)
                calls = (
                    ("nvcomp", "ans", [nvbench, "ans", path, dtype, "65536"]),
                    ("gpucomp", "gpucomp-ans", [bench, "run", path, "--algorithm", "ans", "--type", dtype,
                                                "--chunk", "65536", "--baselines", "off"]),
                )
                for who, algo, cmd in calls:
                    res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=err, text=True)
                    for line in res.stdout.splitlines():
                        if line.split(",")[0] == algo:
                            out.write(f"{who},{r},{line}\n")
                    out.flush()


def rounds(csv):
    """{(who, file, dtype): [(bytes, comp GB/s, decomp GB/s) per round]} of a CSV `run` wrote."""
    runs = collections.defaultdict(list)
    for line in open(csv):
        f = line.strip().split(",")
        runs[(f[0], f[3], f[4])].append((int(f[6]), float(f[9]), float(f[10])))
    return runs


def medians(runs, file, dtype):
    """(bytes, compression ours, nvCOMP, decompression ours, nvCOMP), the GB/s medians of the
    rounds; None if either side has no round."""
    ours, nv = runs[("gpucomp", file, dtype)], runs[("nvcomp", file, dtype)]
    if not ours or not nv:
        return None
    m = lambda rs, i: statistics.median(r[i] for r in rs)
    return ours[0][0], m(ours, 1), m(nv, 1), m(ours, 2), m(nv, 2)

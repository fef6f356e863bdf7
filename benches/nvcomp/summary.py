"""The summary of scripts/gpu/run.sh: steps, tests, sanitizer, interop verdicts, and one row per anchor row
(and per extra row) with gpucomp against nvCOMP measured in the same run.

usage: python3 summary.py STEPS TESTS OUT_DIR ANCHORS_CSV BW_GBPS SANITIZE_TESTS EXTRA_ROWS_CSV

STEPS: lines "step<TAB>result"; TESTS: lines "binary<TAB>passed<TAB>failed<TAB>ignored<TAB>exit<TAB>seen";
OUT_DIR holds setup.log, bench.csv, bench.log, sanitizer.log, interop.log; ANCHORS_CSV the matrix
(benches/nvcomp/anchors/nvcomp6-h200.csv; its sibling nvcomp6-h100.csv is used on an H100 to compare
this run's nvCOMP figures with the anchors); EXTRA_ROWS_CSV rows beyond it (algo,file,dtype,chunk:
benches/nvcomp/extra-rows.csv, no anchor figures); BW_GBPS the measured copy bandwidth (read + written) or
empty. In the table, "x" columns are gpucomp / nvCOMP; "bound" is BW / (1 + 1/ratio) with our ratio,
and "% bound" our throughput against it. n/a: not measured, with the reason below the table.
"""
import csv
import math
import os
import re
import sys

NAN = float("nan")


def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def num(row, key):
    try:
        return float(row[key]) if row else NAN
    except (KeyError, TypeError, ValueError):
        return NAN


def fmt(x, spec):
    return "n/a" if x != x else format(x, spec)


def div(a, b):
    return a / b if b and a == a and b == b else NAN


def chunk_name(c):
    c = int(c)
    return f"{c >> 10}K" if c % 1024 == 0 else str(c)


def main():
    steps, tests, out, anchors, bw, san_tests, extra_rows = sys.argv[1:8]
    bw = float(bw) if bw else NAN
    gpu = (read(os.path.join(out, "setup.log")).splitlines() or ["GPU unknown"])[0]
    print(f"\n==== gpucomp on the GPU: {gpu} ====")
    for line in read(steps).splitlines():
        step, result = line.split("\t", 1)
        print(f"  {step:<10} {result}")

    rows = [l.split("\t") for l in read(tests).splitlines() if l]
    p, f, i = (sum(int(r[k]) for r in rows) for k in (1, 2, 3))
    skipped = [r[0] for r in rows if r[4].startswith("skipped")]
    failing = [f"{r[0]} (exit {r[4]}{'' if r[5] == '1' else ', no result line'})" for r in rows
               if (r[4] != "0" or r[5] != "1") and r[0] not in skipped]
    print(f"tests: {len(rows)} binaries, {p} passed, {f} failed, {i} ignored; failing binaries: {', '.join(failing) or 'none'}"
          + (f"; not run (out of time): {', '.join(skipped)}" if skipped else ""))
    san = re.findall(r"^=== (.*): exit (\d+), (\S+) memcheck errors, (\d+) tests passed$", read(os.path.join(out, "sanitizer.log")), re.M)
    print("sanitizer (memcheck): " + ("; ".join(f"'{t}': {e} errors, {n} tests passed, exit {rc}" for t, rc, e, n in san)
                                     or f"no result for '{san_tests}' (see sanitizer.log)"))
    verdicts = re.findall(r"^((?:nvcomp|ours)-[a-z0-9-]+): (.*)$", read(os.path.join(out, "interop.log")), re.M)
    if verdicts:
        for k, v in verdicts:
            print(f"interop {k}: {v}")
    else:
        print("interop: no verdicts (see interop.log)")

    bench = list(csv.DictReader(open(os.path.join(out, "bench.csv")))) if os.path.exists(os.path.join(out, "bench.csv")) else []
    by = {(r["algo"], r["file"], r["dtype"], r["chunk"]): r for r in bench}
    matrix = list(csv.DictReader(open(anchors))) + list(csv.DictReader(open(extra_rows)))
    print(f"\ngpucomp vs nvCOMP 6 in this run, one batched call per direction, median of 15 (GB/s = 10^9 B/s of "
          f"uncompressed data); copy bandwidth {fmt(bw, '.0f')} GB/s; bound = BW/(1+1/ratio ours)")
    head = (f"{'algorithm':<10}{'file':<27}{'dtype':<9}{'chunk':>5} | {'comp ours':>9}{'nvCOMP':>8}{'x':>6} | "
            f"{'dec ours':>9}{'nvCOMP':>8}{'x':>6} | {'ratio ours':>10}{'nvCOMP':>8}{'x':>6} | {'bound':>5}"
            f"{'comp %':>7}{'dec %':>7} | ok")
    print(head)
    print("-" * len(head))
    for a in matrix:
        key = lambda algo: (algo, a["file"], a["dtype"], a["chunk"])
        nv = by.get(key("nvcomp-" + a["algo"]))
        ours_list = [("", by.get(key("gpucomp-" + a["algo"])))]
        if a["algo"] == "lz4":
            ours_list.append((" nvenc", by.get(key("gpucomp-lz4-nvenc"))))
        for tag, ours in ours_list:
            oc, nc, od, nd = num(ours, "comp_GBps"), num(nv, "comp_GBps"), num(ours, "decomp_GBps"), num(nv, "decomp_GBps")
            ro, rn = num(ours, "ratio"), num(nv, "ratio")
            bound = bw / (1 + 1 / ro) if ro == ro and ro > 0 else NAN
            ok = "/".join(x["ok"] for x in (ours, nv) if x) or "missing"
            print(f"{a['algo'] + tag:<10}{a['file']:<27}{a['dtype']:<9}{chunk_name(a['chunk']):>5} | "
                  f"{fmt(oc, '.1f'):>9}{fmt(nc, '.1f'):>8}{fmt(div(oc, nc), '.2f'):>6} | "
                  f"{fmt(od, '.1f'):>9}{fmt(nd, '.1f'):>8}{fmt(div(od, nd), '.2f'):>6} | "
                  f"{fmt(ro, '.3f'):>10}{fmt(rn, '.3f'):>8}{fmt(div(ro, rn), '.3f'):>6} | {fmt(bound, '.0f'):>5}"
                  f"{fmt(100 * div(oc, bound), '.1f'):>7}{fmt(100 * div(od, bound), '.1f'):>7} | {ok}")

    # Why numbers are n/a, and other notes of our bench rows (bench.log's table: "... ok  (note | note)").
    notes = {}
    for algo, note in re.findall(r"^(gpucomp-[a-z0-9-]+)\s.*\s(?:ok|MISMATCH)\s+\((.*)\)$", read(os.path.join(out, "bench.log")), re.M):
        for n in note.split(" | "):
            notes.setdefault(re.sub(r"\d+ of \d+", "N of M", n), (algo, n))
    for algo, n in notes.values():
        print(f"  note, {algo}: {n}")

    # This run's nvCOMP against the anchors of the same GPU model: a large gap means the machine differs.
    ref_path = os.path.join(os.path.dirname(anchors), "nvcomp6-h100.csv" if "H100" in gpu else "nvcomp6-h200.csv")
    if os.path.exists(ref_path):
        off = []
        for a in csv.DictReader(open(ref_path)):
            nv = by.get(("nvcomp-" + a["algo"], a["file"], a["dtype"], a["chunk"]))
            for k, d in (("comp_GBps", "comp"), ("decomp_GBps", "decomp")):
                x, y = num(nv, k), num(a, k)
                if x == x and y == y and abs(math.log(x / y)) > math.log(1.15):
                    off.append(f"{a['algo']} {a['file']} {d} {x:.1f} vs {y:.1f}")
        print(f"nvCOMP vs {os.path.basename(ref_path)}: "
              + (f"{len(off)} figures differ by more than 15%: " + "; ".join(off) if off else "all figures within 15%"))

    threads = re.findall(r"CPU baselines: (\d+) threads", read(os.path.join(out, "bench.log")))
    for fname in dict.fromkeys(r["file"] for r in bench):
        cpu = [f"{a} {fmt(num(r, 'comp_GBps'), '.2f')}/{fmt(num(r, 'decomp_GBps'), '.2f')} GB/s (ratio {fmt(num(r, 'ratio'), '.3f')})"
               for a in ("lz4_flex", "zstd-1") for r in [next((r for r in bench if r["algo"] == a and r["file"] == fname), None)] if r]
        if cpu:
            print(f"CPU, {threads[0] if threads else '?'} threads, comp/decomp, {fname}: " + "; ".join(cpu))
    logs = ["setup.log", "tests.log", "sanitizer.log", "bench.log", "bench.csv", "interop.log", "summary.txt"]
    print(f"logs: {' '.join(sorted(logs))}")


if __name__ == "__main__":
    main()

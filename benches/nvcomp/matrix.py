"""The bench matrix's table (issue 23): gpucomp against nvCOMP per row, and per algorithm and
direction the minimum and median of the throughput ratios, from the CSVs of scripts/gpu/matrix.sh
(one per round).

usage: python3 matrix.py ROUND.csv [ROUND.csv ...] [--plot FILE.svg|png] [--markdown]

A row is one shape file (`NAME.big`: 32 MiB, a large batch; `NAME.small`: 1 MiB), one algorithm
and nvCOMP data type, one chunk size. "x" is gpucomp's throughput over nvCOMP's in the same round;
with several rounds the table shows the lowest round's (a row passes only if every round does).
LZ4 is gpucomp's default encoder (its own format choices and ratio); a CSV with `lz4-nvenc` rows
(nvCOMP's bytes, bench `run --encoder nvcomp`) gets them listed too, apart from the default.
"""
import collections
import csv
import statistics
import sys


def load(paths):
    """{(algo, file, dtype, chunk): {round: (ratio, comp GB/s, decomp GB/s, ok)}} for both sides:
    nvCOMP's rows keyed `nvcomp-ALGO`, ours `gpucomp-ALGO[-variant]`."""
    rows = collections.defaultdict(dict)
    for path in paths:
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                def num(key):
                    try:
                        return float(r[key])
                    except ValueError:
                        return float("nan")

                key = (r["algo"], r["file"], r["dtype"], int(r["chunk"]))
                rows[key][r["round"]] = (num("ratio"), num("comp_GBps"), num("decomp_GBps"), r["ok"] == "ok")
    return rows


def pairs(rows):
    """One entry per gpucomp row with its nvCOMP row: (ours' algo label, file, dtype, chunk,
    [(round, ours, theirs)])."""
    out = []
    for (algo, file, dtype, chunk), ours in sorted(rows.items()):
        if not algo.startswith("gpucomp-"):
            continue
        base = algo.removeprefix("gpucomp-").removesuffix("-nvenc")
        theirs = rows.get((f"nvcomp-{base}", file, dtype, chunk), {})
        rounds = [(k, ours[k], theirs[k]) for k in sorted(ours) if k in theirs]
        out.append((algo.removeprefix("gpucomp-"), file, dtype, chunk, rounds))
    return out


def lowest(rounds, i):
    """The lowest ratio of column i (1 comp, 2 decomp) over the rounds, and how many rounds."""
    xs = [o[i] / t[i] for _, o, t in rounds if o[i] > 0 and t[i] > 0]
    return (min(xs) if xs else float("nan")), len(xs)


def main():
    args = sys.argv[1:]
    plot = None
    if "--plot" in args:
        i = args.index("--plot")
        plot = args[i + 1]
        del args[i:i + 2]
    markdown = "--markdown" in args
    args = [a for a in args if a != "--markdown"]
    if not args:
        sys.exit(__doc__)
    matched = pairs(load(args))
    sep = " | " if markdown else "  "
    head = ["algo", "file", "dtype", "chunk", "ratio ours", "ratio nv", "comp ours", "comp nv", "comp x",
            "dec ours", "dec nv", "dec x", "rounds", "ok"]
    if markdown:
        print("| " + " | ".join(head) + " |")
        print("| " + " | ".join(["---"] * 3 + ["---:"] * 10 + ["---"]) + " |")
    else:
        print(f"{'algo':14} {'file':24} {'dtype':9} {'chunk':>6}  {'ratio':>7} {'nv':>7}  {'comp':>8} {'nv':>8} "
              f"{'x':>6}  {'dec':>8} {'nv':>8} {'x':>6}  rounds")
    summary = collections.defaultdict(list)
    slow = []
    for algo, file, dtype, chunk, rounds in matched:
        if not rounds:
            print(f"{algo:14} {file:24} {dtype:9} {chunk >> 10:5}K  no nvCOMP row to compare")
            continue
        med = lambda side, i: statistics.median(r[side][i] for r in rounds)
        cx, n = lowest(rounds, 1)
        dx, _ = lowest(rounds, 2)
        ok = all(o[3] and t[3] for _, o, t in rounds)
        cells = [algo, file, dtype, f"{chunk >> 10}K", f"{med(1, 0):.3f}", f"{med(2, 0):.3f}", f"{med(1, 1):.1f}",
                 f"{med(2, 1):.1f}", f"{cx:.2f}", f"{med(1, 2):.1f}", f"{med(2, 2):.1f}", f"{dx:.2f}", str(n),
                 "ok" if ok else "FAIL"]
        if markdown:
            print("| " + " | ".join(cells) + " |")
        else:
            print(f"{algo:14} {file:24} {dtype:9} {chunk >> 10:5}K  {cells[4]:>7} {cells[5]:>7}  {cells[6]:>8} "
                  f"{cells[7]:>8} {cells[8]:>6}  {cells[9]:>8} {cells[10]:>8} {cells[11]:>6}  {n}{'' if ok else '  FAIL'}")
        for direction, x in (("compress", cx), ("decompress", dx)):
            if x == x:
                summary[(algo, direction)].append(x)
                if x < 1.0 and not algo.endswith("-nvenc"):
                    slow.append((x, algo, direction, file, dtype, chunk))
    print("\nPer algorithm and direction (x = gpucomp / nvCOMP, the lowest round per row):")
    print(f"{'algo':14} {'direction':10} {'rows':>5} {'min x':>7} {'median x':>9} {'rows < 1.0':>11}")
    for (algo, direction), xs in sorted(summary.items()):
        print(f"{algo:14} {direction:10} {len(xs):5} {min(xs):7.2f} {statistics.median(xs):9.2f} "
              f"{sum(x < 1.0 for x in xs):11}")
    if slow:
        print(f"\nRows below 1.0x ({len(slow)}, default encoders), slowest first:")
        for x, algo, direction, file, dtype, chunk in sorted(slow):
            print(f"  {x:5.2f}x  {algo} {direction} {file} {dtype} {chunk >> 10} KiB")
    if plot:
        draw(summary, plot)


def draw(summary, path):
    """One strip per algorithm and direction: every row's ratio, on a log scale, with 1.0 marked."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("no plot: matplotlib is not installed")
        return
    keys = sorted(summary)
    fig, ax = plt.subplots(figsize=(11, 4.5))
    for i, key in enumerate(keys):
        xs = summary[key]
        jitter = [i + 0.25 * ((k * 0.618) % 1 - 0.5) for k in range(len(xs))]
        ax.scatter(jitter, xs, s=9, alpha=0.6, color="tab:green" if min(xs) >= 1 else "tab:blue")
        ax.plot([i - 0.3, i + 0.3], [statistics.median(xs)] * 2, color="black", linewidth=1.5)
    ax.axhline(1.0, color="tab:red", linewidth=1, linestyle="--")
    ax.set_yscale("log")
    ax.set_xticks(range(len(keys)), [f"{a}\n{'comp' if d == 'compress' else 'decomp'}" for a, d in keys], fontsize=8)
    ax.set_ylabel("gpucomp / nvCOMP throughput")
    ax.set_title("Bench matrix: every shape, chunk size and batch size (bar: median per algorithm)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"plot: {path}")


if __name__ == "__main__":
    main()

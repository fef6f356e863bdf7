# Inputs, gpucomp's spl=1 chunks and the job list for benches/nvcomp/ans_samples.cu (run here).
import os, subprocess, struct
import numpy as np
D = os.path.dirname(os.path.abspath(__file__))
IN = os.path.join(D, "in"); OURS = os.path.join(D, "ours")
os.makedirs(IN, exist_ok=True); os.makedirs(OURS, exist_ok=True)
CLI = "/work/main/target/h-ansfp8/debug/gpucomp"
rng = np.random.default_rng(20261121)

# E4M3 (fn) value table: sign | exp 4 (bias 7) | mantissa 3; 0x7f/0xff NaN.
def e4m3_values():
    v = np.zeros(256)
    for b in range(256):
        s, e, m = b >> 7, (b >> 3) & 15, b & 7
        x = (m / 8) * 2.0 ** -6 if e == 0 else (1 + m / 8) * 2.0 ** (e - 7)
        v[b] = -x if s else x
    v[0x7f] = v[0xff] = np.nan
    return v
VAL = e4m3_values()
POS = np.arange(0, 127)  # 0x00..0x7e: non-negative finite, ascending
def to_e4m3(x):
    a = np.minimum(np.abs(x), 448.0)
    pv = VAL[POS]
    i = np.clip(np.searchsorted(pv, a), 1, len(pv) - 1)
    lo, hi = pv[i - 1], pv[i]
    pick = np.where((a - lo) <= (hi - a), i - 1, i)
    return (POS[pick] | np.where(x < 0, 0x80, 0)).astype(np.uint8)

files = {}
def put(name, data):
    p = os.path.join(IN, name)
    with open(p, "wb") as f: f.write(bytes(data))
    files[name] = p
    return p

for n in (1, 2, 3, 7, 64, 100, 511, 512, 1000, 2048, 4096, 5000, 20000, 65536, 70001, 262144):
    put(f"fp8u{n}", rng.integers(0, 256, n, dtype=np.uint8).tobytes())
for n in (1, 3, 17, 100, 513, 1000, 4096, 8193, 20000, 65536, 131149):
    put(f"fp8n{n}", to_e4m3(rng.normal(0, 1.0, n) * 4).tobytes())
# weights-like: small scale, many subnormals / small exponents
put("fp8w65536", to_e4m3(rng.normal(0, 0.02, 65536) * 16).tobytes())

# Text: the golden TPC-H-like lines repeated/cut, and geometric bytes.
txt = open("/work/main/tests/data/golden/inputs/text.tbl", "rb").read() if os.path.exists("/work/main/tests/data/golden/inputs/text.tbl") else b""
while len(txt) < 400000: txt += txt or b"the quick brown fox jumps over the lazy dog 0123456789|"
for n in (300, 700, 2348, 4396, 20000, 65536, 132072, 262144):
    put(f"txt{n}", txt[:n])
for n in (300, 4396, 65536):
    put(f"geo{n}", np.minimum(rng.geometric(0.08, n), 255).astype(np.uint8).tobytes())
put("f16n65536", rng.normal(0, 0.02, 32768).astype(np.float16).tobytes())
put("f32n20000", np.cumsum(rng.normal(0, 0.1, 20000)).astype(np.float32).tobytes())

jobs = []
def c(name, f, chunk, dt="char", spl=0, msc=0, hrl=0):
    jobs.append(f"c {name} in/{f} {chunk} {dt} {spl} {msc} {hrl}")
K64 = 65536
for f in files:
    if f.startswith("fp8"):
        n = os.path.getsize(files[f])
        c(f"{f}.fp8", f, min(n, K64) if n <= K64 else K64, "fp8")
        c(f"{f}.fp8raw", f, n, "fp8")           # one chunk of the whole file
        c(f"{f}.u8", f, min(n, K64), "uchar")   # the same bytes in byte mode
for f in ("fp8u4096", "fp8n20000", "fp8n65536", "fp8u65536", "fp8n1000", "fp8n17"):
    c(f"{f}.fp8.spl1", f, K64, "fp8", 1)
    c(f"{f}.fp8.spl2", f, K64, "fp8", 2)
for f in ("fp8n65536", "fp8n20000"):
    for msc in (4, 64):
        c(f"{f}.fp8.msc{msc}", f, K64, "fp8", 0, msc)
    c(f"{f}.fp8.hrl2", f, K64, "fp8", 0, 0, 2)
c("fp8n262144.fp8.c256k", "fp8u262144", 262144, "fp8")
for f in files:
    if f.startswith("txt") or f.startswith("geo"):
        n = os.path.getsize(files[f])
        c(f"{f}.spl1", f, min(n, K64), "char", 1)
        c(f"{f}.spl1raw", f, n, "char", 1)
        c(f"{f}.spl2", f, min(n, K64), "char", 2)
c("txt262144.spl1.c256k", "txt262144", 262144, "char", 1)
c("txt65536.spl1.msc64", "txt65536", K64, "char", 1, 64)
c("txt65536.spl1.msc4", "txt65536", K64, "char", 1, 4)
c("txt65536.spl1.c4k", "txt65536", 4096, "char", 1)
c("f16n65536.spl1", "f16n65536", K64, "float16", 1)
c("f32n20000.spl1", "f32n20000", K64, "float32", 1)

# gpucomp's spl=1 chunks: RAW chunks (= one chunk each) of 64 KiB pieces and of whole files.
def ours(f, piece):
    data = open(files[f], "rb").read()
    chunks = []
    for i in range(0, len(data), piece):
        p = os.path.join(OURS, "piece"); q = p + ".raw"
        open(p, "wb").write(data[i:i + piece])
        subprocess.run([CLI, "compress", "--cpu", "--algorithm", "ans", "--kind", "raw", "--states-per-lane", "1", p, q], check=True, capture_output=True)
        chunks.append(open(q, "rb").read())
    name = f"{f}.ours{piece}"
    with open(os.path.join(OURS, name + ".chunks"), "wb") as o:
        o.write(struct.pack("<Q", len(chunks)))
        for ch in chunks: o.write(struct.pack("<Q", len(ch)))
        for ch in chunks: o.write(ch)
    jobs.append(f"d {name} ours/{name}.chunks in/{f} {piece}")
for f in ("txt300", "txt700", "txt2348", "txt4396", "txt20000", "txt65536", "txt132072", "geo300", "geo4396", "geo65536"):
    ours(f, K64)
ours("txt262144", 262144)
for p in ("piece", "piece.raw"): os.remove(os.path.join(OURS, p))
open(os.path.join(D, "jobs.txt"), "w").write("\n".join(jobs) + "\n")
print(len(files), "inputs,", len(jobs), "jobs")

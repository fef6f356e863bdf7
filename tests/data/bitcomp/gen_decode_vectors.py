"""Writes Bitcomp chunks with non-canonical but legal block codings, decoded by nvCOMP's host decoder:
default-algorithm blocks re-tokenized at random (runs split or merged into literals, long forms for short
lengths, class-6 runs of 0x00/0xff, junk padding) and sparse blocks with extra L1/L2 bits whose L3 bytes
are zero, junk padding. Each record's input is what nvCOMP's bitcompHostUncompress returns for the chunk
(the script checks it equals the data the chunk was made from).
usage: python3 gen_decode_vectors.py MODEL_DIR LIBNVCOMP N SEED OUT [MAX_BYTES]   (format as gen_vectors.py)"""
import os, random, struct, sys
sys.path.insert(0, sys.argv[1]); os.environ['NVCOMP_LIB'] = sys.argv[2]
import bitcomp, oracle
N, seed, out = int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
MAXN = int(sys.argv[6]) if len(sys.argv) > 6 else 30000
random.seed(seed)
B = bitcomp.BLOCK

def retokenize(bm):
    """a random legal token sequence for bitmap bm -> payload bytes (or None if >= 8192)"""
    ops, lows, lits = [], [], bytearray()
    def op(cls, x):
        if x >= 32 or random.random() < 0.2:
            ops.append(((cls | 1) << 5) | (x >> 8)); lows.append(x & 255)
        else:
            ops.append((cls << 5) | x)
    i = 0
    while i < len(bm):
        b = bm[i]; j = i + 1
        while j < len(bm) and bm[j] == b: j += 1
        r = j - i
        if r >= 3 and random.random() < 0.8:
            while r > 0:                        # split the run at random
                k = r if r < 6 or random.random() < 0.5 else random.randint(3, r - 3)
                if k > 8194: k = 8194
                cls = 2 if b == 0 else 4 if b == 255 else 6
                if cls != 6 and random.random() < 0.2: cls = 6
                if cls == 6: lits.append(b)
                op(cls & 6, k - 3); r -= k
            i = j
        else:                                   # literal run of random length (may swallow runs)
            k = random.randint(1, min(len(bm) - i, 64))
            lits.extend(bm[i:i + k]); op(0, k - 1); i += k
    body = 2 + len(lits) + len(lows) + len(ops)
    padn = -body % 4
    if body + padn >= B or len(ops) > 65535: return None
    return bytes([len(ops) >> 8, len(ops) & 255]) + bytes(lits) + bytes(random.getrandbits(8) for _ in range(padn)) \
        + bytes(reversed(lows)) + bytes(reversed(ops))

def sparse_variant(bm):
    """sparse payload with random extra L1/L2 bits (their L3 bytes zero) and junk padding"""
    L0 = 0; l1 = []; l2 = bytearray(); l3 = bytearray()
    for j in range(32):
        w = 0
        for m in range(32):
            g = bm[j * 256 + m * 8: j * 256 + m * 8 + 8]
            if any(g) or random.random() < 0.01: w |= 1 << m
        if w or random.random() < 0.05:
            L0 |= 1 << j; l1.append(w)
            for m in range(32):
                if w >> m & 1:
                    g = bm[j * 256 + m * 8: j * 256 + m * 8 + 8]; b2 = 0
                    for t in range(8):
                        if g[t] or random.random() < 0.05: b2 |= 1 << t; l3.append(g[t])
                    l2.append(b2)
    p = struct.pack('<I', L0) + b''.join(struct.pack('<I', w) for w in l1) + bytes(l2) + bytes(l3)
    p += bytes(random.getrandbits(8) for _ in range(-len(p) % 4))
    return p if len(p) < B else None

def gen(dt, n):
    es = bitcomp.ESIZE[dt]; kind = random.choice(['runs', 'small', 'sparse', 'ramp'])
    if kind == 'sparse': return bytes(random.getrandbits(8) if random.random() < 0.03 else 0 for _ in range(n))
    ne = n // es; vals = []
    if kind == 'runs':
        while len(vals) < ne: vals += [random.getrandbits(random.randint(0, es * 8))] * random.randint(1, 300)
    elif kind == 'small':
        b = random.randint(1, es * 8); vals = [random.getrandbits(b) for _ in range(ne)]
    else:
        s0 = random.getrandbits(es * 8); vals = [s0 + random.randint(1, 3) * i for i in range(ne)]
    M = 1 << (es * 8)
    return b''.join((v % M).to_bytes(es, 'little') for v in vals[:ne]) + bytes(n - ne * es)

recs = []
while len(recs) < N:
    dt, algo = random.randint(0, 7), random.randint(0, 1)
    n = min(MAXN, random.choice([random.randint(1, 9000), random.randint(8000, 30000)]))
    d = gen(dt, n); es = bitcomp.ESIZE[dt]; signed = dt in bitcomp.SIGNED
    nb = (n + B - 1) // B
    table = bytearray(); payload = bytearray()
    for b in range(nb):
        blk = d[b * B:(b + 1) * B]
        bm = bitcomp.block_to_bitmap(blk, es, signed)
        p = sparse_variant(bm) if algo else retokenize(bm)
        flag = 0
        if p is None: p = blk + bytes(B - len(blk)); flag = 1 << 31
        table += struct.pack('<II', len(payload) // 4, flag | (len(p) // 4) << 19); payload += p
    c = b'NVZ' + bytes([dt, 0x10 if algo else 0, 1 if signed else 0, 0, 0]) + struct.pack('<QQQ', len(payload) // 4, n, 0) + table + payload
    rc, back = oracle.decompress(c)
    assert rc == 0 and back == d, (rc, dt, algo, n)
    recs.append((dt, algo, back, c))
with open(out, 'wb') as f:
    f.write(b'BCV1' + struct.pack('<I', len(recs)))
    for dt, algo, d, c in recs:
        f.write(struct.pack('<BBI', dt, algo, len(d)) + d + struct.pack('<I', len(c)) + c)
print(len(recs), 'chunks with non-canonical codings, all decoded by nvCOMP to the data they were made from')

"""Writes vectors.bin: inputs and the chunks the clean-room Bitcomp model (bitcomp.py, which is
byte-identical to nvCOMP 6.0.0.12's host compressor) writes for them.
usage: python3 gen_vectors.py PATH_TO_DIR_WITH_bitcomp.py [OUT]
Record format (little-endian): b'BCV1', u32 count, then per record:
  u8 dtype (bitcompDataType_t 0..7), u8 algo (0/1), u32 n, n input bytes, u32 m, m chunk bytes."""
import sys, random, struct
sys.path.insert(0, sys.argv[1])
import bitcomp
out = sys.argv[2] if len(sys.argv) > 2 else 'vectors.bin'
random.seed(20261121)

def gen(dt, n, kind):
    es = bitcomp.ESIZE[dt]; ne = n // es
    tail = bytes(random.getrandbits(8) for _ in range(n - ne * es))
    if kind == 'rand': return bytes(random.getrandbits(8) for _ in range(n))
    if kind == 'sparse': return bytes(random.getrandbits(8) if random.random() < 0.03 else 0 for _ in range(n))
    M = 1 << (es * 8)
    if kind == 'small':
        b = random.randint(1, es * 8)
        vals = [random.getrandbits(b) for _ in range(ne)]
        if dt in bitcomp.SIGNED: vals = [v - (1 << (b - 1)) for v in vals]
    elif kind == 'ramp':
        st = random.randint(-5, 5); s0 = random.getrandbits(es * 8); vals = [s0 + st * i for i in range(ne)]
    elif kind == 'runs':
        vals = []
        while len(vals) < ne: vals += [random.getrandbits(random.randint(0, es * 8))] * random.randint(1, 300)
        vals = vals[:ne]
    else:
        vals = [random.getrandbits(es * 8)] * ne
    return b''.join((v % M).to_bytes(es, 'little') for v in vals) + tail

KINDS = ['rand', 'sparse', 'small', 'ramp', 'runs', 'const', 'small', 'sparse']
cases = []
for algo in (0, 1):
    for dt in range(8):
        for i, kind in enumerate(KINDS):
            r = i % 3
            n = random.randint(0, 40) if r == 0 else random.randint(40, 9000) if r == 1 else random.randint(8000, 20000)
            cases.append((dt, algo, gen(dt, n, kind)))
        cases.append((dt, algo, b''))
        cases.append((dt, algo, bytes([random.getrandbits(8)])))
with open(out, 'wb') as f:
    f.write(b'BCV1' + struct.pack('<I', len(cases)))
    for dt, algo, d in cases:
        c = bitcomp.encode(d, dt, algo)
        assert bitcomp.decode(c) == d
        f.write(struct.pack('<BBI', dt, algo, len(d)) + d + struct.pack('<I', len(c)) + c)
print(len(cases), 'cases')

"""Writes Bitcomp test vectors: inputs and the chunks written for them by the clean-room Bitcomp model
(bitcomp.py, byte-identical to nvCOMP 6.0.0.12's host compressor) or by nvCOMP's host compressor itself.

usage: python3 gen_vectors.py MODEL_DIR [--out vectors.bin] [--host LIBNVCOMP] [--random N] [--seed S]
  MODEL_DIR  the directory holding bitcomp.py (and oracle.py for --host): shared/nvcomp/bitcomp
  --host     write the chunks with nvCOMP's bitcompHostCompressLossless (libnvcomp.so.6) and check
             that the model writes the same bytes
  --random N instead of the fixed set (8 kinds x 8 types x 2 algorithms + empty + 1 byte), N random cases
Record format (little-endian): b'BCV1', u32 count, then per record:
  u8 dtype (bitcompDataType_t 0..7), u8 algo (0/1), u32 n, n input bytes, u32 m, m chunk bytes."""
import argparse, os, random, struct, sys
ap = argparse.ArgumentParser()
ap.add_argument('model_dir'); ap.add_argument('--out', default='vectors.bin'); ap.add_argument('--host')
ap.add_argument('--random', type=int, default=0); ap.add_argument('--seed', type=int, default=20261121)
a = ap.parse_args()
sys.path.insert(0, a.model_dir)
import bitcomp
if a.host:
    os.environ['NVCOMP_LIB'] = a.host
    import oracle
random.seed(a.seed)

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
if a.random:
    for _ in range(a.random):
        dt, algo = random.randint(0, 7), random.randint(0, 1)
        n = random.choice([random.randint(0, 40), random.randint(0, 9000), random.randint(8000, 40000), 65536])
        cases.append((dt, algo, gen(dt, n, random.choice(KINDS))))
else:
    for algo in (0, 1):
        for dt in range(8):
            for i, kind in enumerate(KINDS):
                r = i % 3
                n = random.randint(0, 40) if r == 0 else random.randint(40, 9000) if r == 1 else random.randint(8000, 20000)
                cases.append((dt, algo, gen(dt, n, kind)))
            cases.append((dt, algo, b''))
            cases.append((dt, algo, bytes([random.getrandbits(8)])))
same = 0
with open(a.out, 'wb') as f:
    f.write(b'BCV1' + struct.pack('<I', len(cases)))
    for dt, algo, d in cases:
        c = bitcomp.encode(d, dt, algo)
        if a.host:
            h = oracle.compress(d, dt, algo)
            same += h == c
            c = h
        assert bitcomp.decode(c) == d
        f.write(struct.pack('<BBI', dt, algo, len(d)) + d + struct.pack('<I', len(c)) + c)
print(len(cases), 'cases', f'(host compressor == model: {same}/{len(cases)})' if a.host else '(model)')

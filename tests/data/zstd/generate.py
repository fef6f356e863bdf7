"""Writes nvCOMP 6 Zstd streams, the golden vectors of tests/data/zstd/ (issue 24).

usage: python3 generate.py INPUT_DIR OUT_DIR     (python3 generate.py --foreign FRAME: one frame alone)
For each input (tests/data/golden/inputs, named below), writes OUT_DIR/<input>.zstd.<kind>[.<opts>].nvc
with nvCOMP's Python API in the three bitstream kinds, decodes each again with nvCOMP, and prints a
CSV line: name,input_bytes,stream_bytes,roundtrip_ok,sha256 (or name,ERROR,message). It also decodes
frames that nvCOMP did not write (OUT_DIR/foreign/*.zst, if any: frames of the `zstd` tool) as RAW
streams, each in a process of its own (a frame that makes nvCOMP fault leaves the CUDA context
unusable), and prints name,foreign,ok,size,sha256 or name,foreign,ERROR,message.
Needs a CUDA GPU, cupy and the wheels nvidia-libnvcomp-cu13 / nvidia-nvcomp-cu13 6.0.0.12.
"""
import hashlib
import os
import subprocess
import sys

import cupy as cp
import numpy as np
from nvidia import nvcomp

INPUTS = ["empty.bin", "one.bin", "tiny32.bin", "text4k.txt", "text.tbl", "orderkey.i64", "quantity.i32",
          "discount.u8", "f32walk.f32", "w.f16", "one65536.u8", "two65536.u8", "mixed.u8", "runs.u16"]
KINDS = {"native": nvcomp.BitstreamKind.NVCOMP_NATIVE, "raw": nvcomp.BitstreamKind.RAW,
         "usize": nvcomp.BitstreamKind.WITH_UNCOMPRESSED_SIZE}


def host(array):
    return bytes(cp.asnumpy(cp.asarray(array.cuda())).view(np.uint8).tobytes())


def encode(data, kind, **kw):
    codec = nvcomp.Codec(algorithm="Zstd", bitstream_kind=KINDS[kind], **kw)
    enc = codec.encode(nvcomp.as_array(cp.asarray(np.frombuffer(data, dtype=np.uint8))))
    out = host(enc)
    return out, host(codec.decode(enc)) == data


def main():
    src, dst = sys.argv[1], sys.argv[2]
    os.makedirs(dst, exist_ok=True)
    cases = [(name, kind, {}) for name in INPUTS for kind in KINDS]
    cases += [("text.tbl", "native", {"uncomp_chunk_size": 4096}),
              ("text.tbl", "native", {"uncomp_chunk_size": 262144}),
              ("orderkey.i64", "native", {"uncomp_chunk_size": 16384})]
    for pol in [m for m in dir(nvcomp.ChecksumPolicy) if m.isupper() and m != "NO_COMPUTE_NO_VERIFY"]:
        cases += [("text4k.txt", "native", {"checksum_policy": getattr(nvcomp.ChecksumPolicy, pol)})]
    for name, kind, kw in cases:
        data = open(os.path.join(src, name), "rb").read()
        tag = ".".join(f"{k}={getattr(v, 'name', v)}" for k, v in sorted(kw.items()))
        fn = f"{name}.zstd.{kind}" + (f".{tag}" if tag else "") + ".nvc"
        try:
            out, ok = encode(data, kind, **kw)
        except Exception as e:  # noqa: BLE001 (nvCOMP's refusals are results too)
            print(f"{fn},ERROR,{type(e).__name__}: {e}".replace("\n", " "), flush=True)
            continue
        with open(os.path.join(dst, fn), "wb") as f:
            f.write(out)
        print(f"{fn},{len(data)},{len(out)},{ok},{hashlib.sha256(out).hexdigest()}", flush=True)
    foreign = os.path.join(dst, "foreign")
    for fn in sorted(os.listdir(foreign)) if os.path.isdir(foreign) else []:
        res = subprocess.run([sys.executable, __file__, "--foreign", os.path.join(foreign, fn)],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        lines = res.stdout.strip().splitlines() or [f"no output, exit {res.returncode}"]
        print(lines[-1] if lines[-1].startswith(f"{fn},") else f"{fn},foreign,ERROR,{lines[-1]}", flush=True)


def decode_foreign(path):
    fn = os.path.basename(path)
    frame = open(path, "rb").read()
    codec = nvcomp.Codec(algorithm="Zstd", bitstream_kind=nvcomp.BitstreamKind.RAW)
    try:
        back = host(codec.decode(nvcomp.as_array(cp.asarray(np.frombuffer(frame, dtype=np.uint8)))))
        cp.cuda.runtime.deviceSynchronize()
        print(f"{fn},foreign,ok,{len(back)},{hashlib.sha256(back).hexdigest()}", flush=True)
    except Exception as e:  # noqa: BLE001
        print(f"{fn},foreign,ERROR,{type(e).__name__}: {e}".replace("\n", " "), flush=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--foreign"]:
        decode_foreign(sys.argv[2])
    else:
        main()

//! Help texts: `gpucomp help`, `gpucomp help COMMAND`, `gpucomp COMMAND --help`.

/// Overview: the zstd-style use, then the commands.
pub const MAIN: &str = "\
gpucomp: GPU compression with nvCOMP 6-compatible streams (CPU fallback)

usage: gpucomp [OPTIONS] FILE...            compress each FILE to FILE.nvc
       gpucomp -d [OPTIONS] FILE.nvc...     decompress each FILE.nvc to FILE
       gpucomp COMMAND [OPTIONS] ARGS...    run a command (below)

  -d, --decompress         decompress (the container and, for NVCOMP_NATIVE, the algorithm are
                           detected)
  -o, --output OUT         write to OUT (one FILE only)
  -c, --stdout             write to stdout; `-` or no FILE reads stdin
  -k, --keep               keep the input files (the default)
      --rm                 remove each input file once its output is written
  -f, --force              overwrite existing outputs; write compressed data to a terminal
  -q, --quiet              print errors only
  -v, --verbose            also show the phases of small files
  -h, --help               show this help; -V, --version: show the version
  the options of `gpucomp compress` (--algorithm, --data-type, --cpu, ...) when compressing,
  of `gpucomp decompress` (--verify-checksums, --max-size, ...) with -d

commands:
  compress    compress a file into an nvCOMP stream
  decompress  decompress an nvCOMP stream (container detected)
  inspect     show a stream's container, header fields, chunk table and inside a chunk
  verify      check that GPU and CPU write identical streams that decode to the input
  bench       end-to-end throughput of compression and decompression
  help        show this help, or a command's help: gpucomp help COMMAND

A FILE named like a command is given as ./compress. Runs on GPU 0 when it can be opened,
otherwise on the CPU (with a note saying why). An existing file is never overwritten without
-f. Files of 64 MiB or more show their phases on stderr.
`gpucomp COMMAND --help` describes each command's options, with examples.

examples:
  gpucomp lineitem.tbl                                   # writes lineitem.tbl.nvc
  gpucomp -d lineitem.tbl.nvc -o copy.tbl
  gpucomp --algorithm ans --data-type float16 weights.f16
  cat data.bin | gpucomp -c > data.nvc

exit status: 0 success, 1 failure (I/O, stream, verification, refusal to overwrite),
2 bad arguments (also when run without arguments).
";

const CODEC_OPTIONS: &str =
    "  --algorithm ALG          lz4 (default), ans, bitcomp, bitcomp-sparse, cascaded or zstd; all
                           run on the GPU when there is one (zstd compresses on the CPU)
  --chunk-size SIZE        uncompressed bytes per chunk, e.g. 4096, 64K, 1M (default 64K,
                           a multiple of the data type's width, at most 16M)
  --data-type TYPE         LZ4: char, uchar, short, ushort, int, uint (default char);
                           ANS: char, uchar, float16, float32, float8 (default char); Bitcomp: any
                           integer type or float16/32/64 (default uchar); Cascaded: any
                           integer type (default uint)
  --bitshuffle MODE        LZ4: none, msb, lsb: bit-transpose before compressing (default none)
  --encoder ENC            LZ4: gpucomp (default, better ratio) or nvcomp (nvCOMP 6's GPU
                           output, byte for byte)
  --kind KIND              native (NVCOMP_NATIVE, default), raw (RAW: one chunk of at most 16M,
                           no header), usize (WITH_UNCOMPRESSED_SIZE: size + RAW) or zst (Zstd:
                           a plain zstd file of any size, frames of --chunk-size)
  --checksums              store nvCOMP's checksums (native streams)
  --level N                Cascaded: compression level 0-255, how many RLE/DELTA stage slots a
                           block may use, min(N, 3) (default 3); Zstd: libzstd's level -7 to
                           22 (default 3)
  --stages S               Cascaded: stages allowed, rle+delta (default), rle, delta or none
  --states-per-lane N      ANS: rANS states per lane, 1, 2 or 0 (default 0: nvCOMP's choice, 2)
  --sub-chunks N           ANS: max_sub_chunk_count, 0 (default: 8), 4, 8, 16, 32 or 64
  --histogram-reduction N  ANS: histogram_reduction_log2 0-8 (default 0: exact histogram)
";

const DEVICE_OPTIONS: &str = "  --cpu                    run on the CPU even when a GPU is present
  --gpu                    require GPU 0 (error if none can be opened)
";

const FORCE_OPTION: &str = "  -f, --force              overwrite OUTPUT if it exists
";

/// The help of one command, if it exists.
pub fn command(name: &str) -> Option<String> {
    Some(match name {
        "compress" => format!(
            "\
usage: gpucomp compress [OPTIONS] INPUT OUTPUT

Compresses INPUT into OUTPUT (`-` for stdin / stdout); an existing OUTPUT is kept unless -f.
A one-line summary (sizes, ratio, device, time, GB/s) goes to stderr; files of 64 MiB or more
also show their phases there. Exit status 0, 1 on failure, 2 for bad arguments.

options:
{CODEC_OPTIONS}{DEVICE_OPTIONS}{FORCE_OPTION}
examples:
  gpucomp compress data.bin data.nvc
  gpucomp compress --data-type uint --bitshuffle msb --chunk-size 1M col.u32 col.nvc
  gpucomp compress --kind raw --encoder nvcomp --cpu small.bin small.raw
  gpucomp compress --algorithm zstd --kind zst --chunk-size 16M big.bin big.zst
  cat data.bin | gpucomp compress - - > data.nvc
"
        ),
        "decompress" => format!(
            "\
usage: gpucomp decompress [OPTIONS] INPUT OUTPUT

Decompresses INPUT into OUTPUT (`-` for stdin / stdout), detecting the container:
NVCOMP_NATIVE streams record their algorithm; RAW and WITH_UNCOMPRESSED_SIZE streams are
read with the algorithm options given here (LZ4 char by default); a RAW stream that starts
with a zstd magic number (a plain .zst file: every frame is decoded) is read as Zstd when no
algorithm is given. An existing OUTPUT is kept unless -f. A one-line summary goes to stderr. Exit status 0, 1 on failure, 2 for bad arguments.

options:
  --verify-checksums       check the checksums an NVCOMP_NATIVE stream stores
  --algorithm ALG          algorithm of RAW / WITH_UNCOMPRESSED_SIZE streams (lz4, ans, bitcomp,
                           cascaded, zstd)
  --data-type TYPE         their data type (as for compress)
  --bitshuffle MODE        their bitshuffle mode (none, msb, lsb)
  --max-size SIZE          refuse a stream that declares more than SIZE uncompressed bytes
                           (e.g. 512M; default: only the format's bound on its expansion)
{DEVICE_OPTIONS}{FORCE_OPTION}
examples:
  gpucomp decompress data.nvc data.bin
  gpucomp decompress --verify-checksums --cpu data.nvc - | sha256sum
  gpucomp decompress --data-type uint --bitshuffle msb col.usize col.u32
"
        ),
        "inspect" => "\
usage: gpucomp inspect [OPTIONS] STREAM

Describes a stream: its container kind, the NVCOMP_NATIVE header fields, the decoded spec
header, checksums, and the chunk table (index, offset, compressed and uncompressed size,
ratio) with totals and the min / median / max chunk ratio. A RAW or WITH_UNCOMPRESSED_SIZE
stream records no algorithm: its chunk is tried as Zstd, Bitcomp, Cascaded, ANS and LZ4 (in
that order; or as --algorithm) and the first that decodes is named.

With --chunk I, the inside of chunk I (0 for RAW / WITH_UNCOMPRESSED_SIZE streams): whether
it decodes, then Cascaded: mode, type and one row per block (4 KiB asymmetric blocks: offset,
bytes, elements, stage slots, pipeline such as DELTA → FOR+bitpack(3 bits), reference, RLE
runs; 8 KiB symmetric blocks: sub-streams and their forms); Bitcomp: header fields and one row
per 8 KiB block (word offset, words, bytes, padding, mode raw / default / sparse, ratio); ANS:
mode, sub-chunk size, states per lane, layout, frequency table summary (range, symbols used,
table log, entropy, top symbols), one row per sub-chunk (offset, bytes, symbols, words,
bits/symbol, final states); Zstd: one line per frame (zstd or skippable: offset, length,
window, content size, checksum) and one row per block (offset, kind raw / RLE / compressed,
bytes, bytes out). A chunk that does not decode or parse is shown with the reason.

options:
  --chunks N               show the first and last N chunks of longer tables (default 8)
  --chunk I                show the inside of chunk I
  --blocks N               show the first and last N rows of longer block / sub-chunk tables
                           (default 8)
  --algorithm ALG          read a RAW / WITH_UNCOMPRESSED_SIZE stream as ALG (lz4, ans, bitcomp,
                           cascaded, zstd) instead of trying each
  --data-type TYPE         with --algorithm lz4: the data type (as for compress)
  --bitshuffle MODE        with --algorithm lz4: the bitshuffle mode (none, msb, lsb)

examples:
  gpucomp inspect data.nvc
  gpucomp inspect --chunks 100 data.nvc
  gpucomp inspect --chunk 3 --blocks 4 column.cascaded.nvc
  gpucomp inspect --chunk 0 weights.ans.raw
"
        .into(),
        "verify" => format!(
            "\
usage: gpucomp verify [OPTIONS] INPUT

Compresses INPUT on the GPU (when present) and on the CPU, checks that both streams are
byte-identical, decompresses each on both devices and checks the output equals INPUT.
Prints a table of the checks; exit status 1 if any fails. Without a GPU the GPU checks are
skipped (the reason is shown) and the CPU checks still run.

options:
{CODEC_OPTIONS}{DEVICE_OPTIONS}
examples:
  gpucomp verify data.bin
  gpucomp verify --encoder nvcomp --kind usize --chunk-size 4K data.bin
"
        ),
        "bench" => format!(
            "\
usage: gpucomp bench [OPTIONS] INPUT

Quick end-to-end throughput of the high-level API on the chosen device: INPUT is compressed
and decompressed --runs times (after one untimed warm-up), and the median, min and max wall
clock of each call are shown with throughput (uncompressed GB/s, GB = 10^9 bytes) and the
ratio. Times include host<->device copies. Kernel-level numbers (batched API, CUDA events)
come from `cargo bench --bench throughput -- run FILE --algorithm ALG`.

options:
  --runs N                 timed runs per direction (default 10)
{CODEC_OPTIONS}{DEVICE_OPTIONS}
examples:
  gpucomp bench data.bin
  gpucomp bench --chunk-size 1M --runs 20 --encoder nvcomp data.bin
"
        ),
        "help" => MAIN.into(),
        _ => return None,
    })
}

"""gpucomp.batched: the host queries everywhere; the launches on a GPU (skipped without one)."""
import numpy as np
import pytest

import gpucomp
from gpucomp import batched
from conftest import sample


@pytest.mark.parametrize("algorithm", ["LZ4", "Cascaded", "ANS", "Bitcomp", "Zstd"])
def test_queries(algorithm):
    bound = batched.compress_get_max_output_chunk_size(algorithm, 65536)
    assert bound >= 65536
    for q in (batched.compress_get_required_alignments, batched.decompress_get_required_alignments):
        a = q(algorithm)
        assert set(a) == {"input", "output", "temp"} and all(v >= 1 for v in a.values())
    assert batched.compress_get_temp_size(algorithm, 100, 65536) >= 0
    assert batched.decompress_get_temp_size(algorithm, 100, 65536) >= 0
    alias = getattr(batched, f"{algorithm.lower()}_compress_get_max_output_chunk_size")
    assert alias(65536) == bound


def test_query_options_and_errors():
    assert batched.lz4_compress_get_temp_size(10, 4096, bitshuffle_mode=1, data_type="<u2") >= 0
    assert batched.decompress_get_temp_size("LZ4", 10, 4096, bitshuffle_mode=1, data_type="<u2") == 80
    with pytest.raises(TypeError, match="unexpected keyword"):
        batched.compress_get_temp_size("LZ4", 10, 4096, algorithm_type=1)
    with pytest.raises(ValueError, match="chunk size"):
        batched.compress_get_max_output_chunk_size("LZ4", 1 << 30)
    with pytest.raises(ValueError, match="does not implement"):
        batched.compress_get_temp_size("Snappy", 1, 1)
    with pytest.raises(ValueError, match="level"):
        batched.zstd_compress_get_temp_size(1, 1, level=23)


@pytest.mark.skipif(gpucomp.cuda_available(), reason="checks the error without a GPU")
def test_launch_without_gpu_is_a_cuda_error():
    with pytest.raises(gpucomp.CudaError):
        # 4 KiB chunks: no temp buffer needed (the default encoder's segments start above 16 KiB).
        batched.lz4_compress_async(1 << 40, 1 << 40, 4096, 1, 0, 0, 1 << 40, 1 << 40)


@pytest.mark.skipif(not gpucomp.cuda_available(), reason="needs a CUDA device (gpucomp.cuda_available() is False)")
@pytest.mark.parametrize("algorithm,typestr", [("LZ4", "|u1"), ("Cascaded", "<i4"), ("ANS", "|u1"), ("Bitcomp", "<u2")])
def test_batched_round_trip_on_cupy(algorithm, typestr):
    cp = pytest.importorskip("cupy", reason="needs CuPy")
    chunk = 65536
    data = sample(typestr, 10 * chunk // np.dtype(typestr).itemsize + 7)
    raw = cp.asarray(data.view(np.uint8))
    n = -(-raw.nbytes // chunk)
    sizes = cp.asarray([min(chunk, raw.nbytes - i * chunk) for i in range(n)], cp.uint64)
    in_ptrs = cp.asarray([raw.data.ptr + i * chunk for i in range(n)], cp.uint64)
    bound = batched.compress_get_max_output_chunk_size(algorithm, chunk, data_type=typestr)
    slot = -(-bound // 16) * 16
    comp = cp.zeros(n * slot, cp.uint8)
    out_ptrs = cp.asarray([comp.data.ptr + i * slot for i in range(n)], cp.uint64)
    comp_bytes = cp.zeros(n, cp.uint64)
    statuses = cp.full(n, -1, cp.int32)
    temp_bytes = batched.compress_get_temp_size(algorithm, n, chunk, data_type=typestr)
    temp = cp.zeros(max(temp_bytes, 1), cp.uint8)
    stream = cp.cuda.get_current_stream()
    batched.compress_async(algorithm, in_ptrs, sizes, chunk, n, temp.data.ptr, temp_bytes, out_ptrs, comp_bytes,
                           statuses, stream=stream.ptr, data_type=typestr)
    stream.synchronize()
    assert (statuses == 0).all()
    # Full chunks are the CPU codec's RAW streams of the same data (a RAW stream of a short chunk
    # is sized by that chunk, not by the batch's largest).
    cpu = gpucomp.Codec(algorithm=algorithm, data_type=typestr, device="cpu", bitstream_kind="RAW")
    host_sizes = cp.asnumpy(comp_bytes)
    for i in (0, n - 2):
        got = cp.asnumpy(comp[i * slot:i * slot + int(host_sizes[i])]).tobytes()
        want = bytes(cpu.encode(data.view(np.uint8)[i * chunk:(i + 1) * chunk]))
        assert got == want
    out = cp.zeros(raw.nbytes, cp.uint8)
    out_ptrs2 = cp.asarray([out.data.ptr + i * chunk for i in range(n)], cp.uint64)
    actual = cp.zeros(n, cp.uint64)
    queried = cp.zeros(n, cp.uint64)
    batched.get_decompress_size_async(algorithm, out_ptrs, comp_bytes, queried, n, stream=stream, data_type=typestr)
    dtemp_bytes = batched.decompress_get_temp_size(algorithm, n, chunk, data_type=typestr)
    dtemp = cp.zeros(max(dtemp_bytes, 1), cp.uint8)
    batched.decompress_async(algorithm, out_ptrs, comp_bytes, sizes, actual, n, dtemp.data.ptr, dtemp_bytes, out_ptrs2,
                             statuses, stream=stream, data_type=typestr)
    stream.synchronize()
    assert (statuses == 0).all()
    cp.testing.assert_array_equal(actual, sizes)
    cp.testing.assert_array_equal(queried, sizes)
    cp.testing.assert_array_equal(out, raw)


@pytest.mark.skipif(not gpucomp.cuda_available(), reason="needs a CUDA device (gpucomp.cuda_available() is False)")
def test_batched_zstd_decompresses_on_cupy_and_refuses_compression():
    cp = pytest.importorskip("cupy", reason="needs CuPy")
    from gpucomp._gpucomp import zstd_compress_frames

    data = sample("<i4", 200_000).view(np.uint8)
    chunk = 65536
    pieces = [data[i:i + chunk] for i in range(0, data.size, chunk)]
    frames = [np.asarray(f) for f in zstd_compress_frames(pieces, 3, True)]  # checksummed frames
    n = len(frames)
    comp = cp.asarray(np.concatenate(frames))
    starts = np.concatenate([[0], np.cumsum([f.size for f in frames])[:-1]])
    comp_ptrs = cp.asarray([comp.data.ptr + int(s) for s in starts], cp.uint64)
    comp_bytes = cp.asarray([f.size for f in frames], cp.uint64)
    sizes = cp.asarray([p.size for p in pieces], cp.uint64)
    out = cp.zeros(data.size, cp.uint8)
    out_ptrs = cp.asarray([out.data.ptr + i * chunk for i in range(n)], cp.uint64)
    actual, queried = cp.zeros(n, cp.uint64), cp.zeros(n, cp.uint64)
    statuses = cp.full(n, -1, cp.int32)
    stream = cp.cuda.get_current_stream()
    batched.zstd_get_decompress_size_async(comp_ptrs, comp_bytes, queried, n, stream=stream)
    temp_bytes = batched.zstd_decompress_get_temp_size(n, chunk)
    temp = cp.zeros(max(temp_bytes, 1), cp.uint8)
    batched.zstd_decompress_async(comp_ptrs, comp_bytes, sizes, actual, n, temp.data.ptr, temp_bytes, out_ptrs,
                                  statuses, stream=stream)
    stream.synchronize()
    assert (statuses == 0).all()
    cp.testing.assert_array_equal(actual, sizes)
    cp.testing.assert_array_equal(queried, sizes)
    assert cp.asnumpy(out).tobytes() == data.tobytes()
    with pytest.raises(ValueError, match="(?i)zstd"):
        batched.zstd_compress_async(out_ptrs, sizes, chunk, n, temp.data.ptr, temp_bytes, comp_ptrs, comp_bytes,
                                    statuses, stream=stream)

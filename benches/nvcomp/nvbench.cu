// Copied from the team's shared/tools/nvbench/nvbench.cu (the program that measured the nvCOMP
// anchors in shared/anchors/), for the side-by-side runs of scripts/gpu/run.sh; two changes: the
// float8 data type (NVCOMP_TYPE_FLOAT8_E4M3), which ANS takes as it is (the original passes ANS
// only float16 through, every other type as uchar), for the rows of extra-rows.csv; throughputs
// printed to 3 decimals (the bench matrix's 1 MiB batches of large chunks run below 0.05 GB/s).
//
// Anchor benchmark: nvCOMP 6 low-level batched API on one file.
// usage: nvbench ALGO FILE DTYPE CHUNK [DUMP_PREFIX]
//   ALGO: lz4 | cascaded | ans | bitcomp   DTYPE: char|uchar|short|ushort|int|uint|longlong|ulonglong|float16|float32|float8
// Prints one CSV line: algo,file,dtype,chunk,bytes,comp_bytes,ratio,comp_GBps,decomp_GBps,ok
// With DUMP_PREFIX, writes PREFIX.chunks (u64 count, u64 sizes[count], then payloads) of the compressed chunks.
#include <nvcomp/lz4.h>
#include <nvcomp/cascaded.h>
#include <nvcomp/ans.h>
#include <nvcomp/bitcomp.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(2);} } while (0)
#define NK(x) do { nvcompStatus_t s = (x); if (s != nvcompSuccess) { fprintf(stderr, "%s:%d nvcomp status %d\n", __FILE__, __LINE__, (int)s); exit(2);} } while (0)

static nvcompType_t parse_type(const char* s) {
  struct { const char* n; nvcompType_t t; } m[] = {{"char", NVCOMP_TYPE_CHAR}, {"uchar", NVCOMP_TYPE_UCHAR}, {"short", NVCOMP_TYPE_SHORT},
    {"ushort", NVCOMP_TYPE_USHORT}, {"int", NVCOMP_TYPE_INT}, {"uint", NVCOMP_TYPE_UINT}, {"longlong", NVCOMP_TYPE_LONGLONG},
    {"ulonglong", NVCOMP_TYPE_ULONGLONG}, {"float16", NVCOMP_TYPE_FLOAT16}, {"float32", NVCOMP_TYPE_FLOAT32},
    {"float8", NVCOMP_TYPE_FLOAT8_E4M3}};
  for (auto& e : m) if (!strcmp(e.n, s)) return e.t;
  fprintf(stderr, "bad dtype %s\n", s); exit(2);
}

struct Algo {
  nvcompStatus_t (*ctemp)(size_t, size_t, size_t*, size_t);
  nvcompStatus_t (*cmax)(size_t, size_t*);
  nvcompStatus_t (*comp)(const void* const*, const size_t*, size_t, size_t, void*, size_t, void* const*, size_t*, nvcompStatus_t*, cudaStream_t);
  nvcompStatus_t (*dtemp)(size_t, size_t, size_t*, size_t);
  nvcompStatus_t (*decomp)(const void* const*, const size_t*, const size_t*, size_t*, size_t, void*, size_t, void* const*, nvcompStatus_t*, cudaStream_t);
};

static nvcompType_t g_type;
#define DEFINE_ALGO(NAME, COPTS_T, CDEF, DOPTS_T, DDEF, SETC, SETD) \
  static COPTS_T copts_##NAME() { COPTS_T o = CDEF; SETC; return o; } \
  static DOPTS_T dopts_##NAME() { DOPTS_T o = DDEF; SETD; return o; } \
  static Algo algo_##NAME = { \
    [](size_t n, size_t mx, size_t* t, size_t tot) { return nvcompBatched##NAME##CompressGetTempSize(n, mx, copts_##NAME(), t, tot, 0); }, \
    [](size_t mx, size_t* o) { return nvcompBatched##NAME##CompressGetMaxOutputChunkSize(mx, copts_##NAME(), o); }, \
    [](const void* const* ip, const size_t* ib, size_t mx, size_t n, void* t, size_t tb, void* const* op, size_t* ob, nvcompStatus_t* st, cudaStream_t s) { \
       return nvcompBatched##NAME##CompressAsync(ip, ib, mx, n, t, tb, op, ob, copts_##NAME(), st, s); }, \
    [](size_t n, size_t mx, size_t* t, size_t tot) { return nvcompBatched##NAME##DecompressGetTempSize(n, mx, dopts_##NAME(), t, tot, 0); }, \
    [](const void* const* ip, const size_t* ib, const size_t* bb, size_t* ub, size_t n, void* t, size_t tb, void* const* op, nvcompStatus_t* st, cudaStream_t s) { \
       return nvcompBatched##NAME##DecompressAsync(ip, ib, bb, ub, n, t, tb, op, dopts_##NAME(), st, s); } };

DEFINE_ALGO(LZ4, nvcompBatchedLZ4CompressOpts_t, nvcompBatchedLZ4CompressDefaultOpts, nvcompBatchedLZ4DecompressOpts_t, nvcompBatchedLZ4DecompressDefaultOpts,
            o.data_type = g_type, o.data_type = g_type)
DEFINE_ALGO(Cascaded, nvcompBatchedCascadedCompressOpts_t, nvcompBatchedCascadedCompressDefaultOpts, nvcompBatchedCascadedDecompressOpts_t, nvcompBatchedCascadedDecompressDefaultOpts,
            o.common_opts.data_type = g_type, o.common_opts.data_type = g_type)
DEFINE_ALGO(ANS, nvcompBatchedANSCompressOpts_t, nvcompBatchedANSCompressDefaultOpts, nvcompBatchedANSDecompressOpts_t, nvcompBatchedANSDecompressDefaultOpts,
            o.data_type = (g_type == NVCOMP_TYPE_FLOAT16 || g_type == NVCOMP_TYPE_FLOAT8_E4M3 ? g_type : NVCOMP_TYPE_UCHAR),
            o.data_type = (g_type == NVCOMP_TYPE_FLOAT16 || g_type == NVCOMP_TYPE_FLOAT8_E4M3 ? g_type : NVCOMP_TYPE_UCHAR))
DEFINE_ALGO(Bitcomp, nvcompBatchedBitcompCompressOpts_t, nvcompBatchedBitcompCompressDefaultOpts, nvcompBatchedBitcompDecompressOpts_t, nvcompBatchedBitcompDecompressDefaultOpts,
            o.data_type = g_type, (void)0)

static float median(std::vector<float> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }

int main(int argc, char** argv) {
  if (argc < 5) { fprintf(stderr, "usage: nvbench ALGO FILE DTYPE CHUNK [DUMP_PREFIX]\n"); return 2; }
  std::string an = argv[1];
  g_type = parse_type(argv[3]);
  size_t chunk = strtoull(argv[4], 0, 10);
  Algo* a = an == "lz4" ? &algo_LZ4 : an == "cascaded" ? &algo_Cascaded : an == "ans" ? &algo_ANS : an == "bitcomp" ? &algo_Bitcomp : nullptr;
  if (!a) { fprintf(stderr, "bad algo\n"); return 2; }
  FILE* f = fopen(argv[2], "rb"); if (!f) { perror(argv[2]); return 2; }
  fseek(f, 0, SEEK_END); size_t n = ftell(f); fseek(f, 0, SEEK_SET);
  std::vector<char> h(n); if (fread(h.data(), 1, n, f) != n) return 2; fclose(f);
  size_t nchunks = (n + chunk - 1) / chunk;
  char* din; CK(cudaMalloc(&din, n)); CK(cudaMemcpy(din, h.data(), n, cudaMemcpyHostToDevice));
  std::vector<void*> hin(nchunks); std::vector<size_t> hinb(nchunks);
  for (size_t i = 0; i < nchunks; i++) { hin[i] = din + i * chunk; hinb[i] = std::min(chunk, n - i * chunk); }
  size_t maxout; NK(a->cmax(chunk, &maxout)); maxout = (maxout + 15) / 16 * 16;
  char* dout; CK(cudaMalloc(&dout, maxout * nchunks));
  std::vector<void*> hout(nchunks); for (size_t i = 0; i < nchunks; i++) hout[i] = dout + i * maxout;
  char* ddec; CK(cudaMalloc(&ddec, nchunks * chunk));
  std::vector<void*> hdec(nchunks); for (size_t i = 0; i < nchunks; i++) hdec[i] = ddec + i * chunk;
  void **d_in, **d_out, **d_dec; size_t *d_inb, *d_outb, *d_decb; nvcompStatus_t* d_st;
  CK(cudaMalloc(&d_in, 8 * nchunks)); CK(cudaMalloc(&d_out, 8 * nchunks)); CK(cudaMalloc(&d_dec, 8 * nchunks));
  CK(cudaMalloc(&d_inb, 8 * nchunks)); CK(cudaMalloc(&d_outb, 8 * nchunks)); CK(cudaMalloc(&d_decb, 8 * nchunks));
  CK(cudaMalloc(&d_st, sizeof(nvcompStatus_t) * nchunks));
  CK(cudaMemcpy(d_in, hin.data(), 8 * nchunks, cudaMemcpyHostToDevice)); CK(cudaMemcpy(d_out, hout.data(), 8 * nchunks, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_dec, hdec.data(), 8 * nchunks, cudaMemcpyHostToDevice)); CK(cudaMemcpy(d_inb, hinb.data(), 8 * nchunks, cudaMemcpyHostToDevice));
  size_t ctb, dtb; NK(a->ctemp(nchunks, chunk, &ctb, n)); NK(a->dtemp(nchunks, chunk, &dtb, n));
  void *ct = 0, *dt = 0; if (ctb) CK(cudaMalloc(&ct, ctb)); if (dtb) CK(cudaMalloc(&dt, dtb));
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  const int reps = 15;
  std::vector<float> tc, td;
  for (int r = 0; r < reps + 2; r++) {
    CK(cudaEventRecord(e0));
    NK(a->comp((const void* const*)d_in, d_inb, chunk, nchunks, ct, ctb, (void* const*)d_out, d_outb, d_st, 0));
    CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1));
    float ms; CK(cudaEventElapsedTime(&ms, e0, e1)); if (r >= 2) tc.push_back(ms);
  }
  std::vector<size_t> houtb(nchunks); CK(cudaMemcpy(houtb.data(), d_outb, 8 * nchunks, cudaMemcpyDeviceToHost));
  std::vector<nvcompStatus_t> hst(nchunks); CK(cudaMemcpy(hst.data(), d_st, sizeof(nvcompStatus_t) * nchunks, cudaMemcpyDeviceToHost));
  for (auto s : hst) if (s != nvcompSuccess) { fprintf(stderr, "compress chunk status %d\n", (int)s); return 3; }
  size_t comp = 0; for (auto b : houtb) comp += b;
  std::vector<size_t> hcap(nchunks, chunk); size_t* d_cap; CK(cudaMalloc(&d_cap, 8 * nchunks)); CK(cudaMemcpy(d_cap, hcap.data(), 8 * nchunks, cudaMemcpyHostToDevice));
  for (int r = 0; r < reps + 2; r++) {
    CK(cudaMemset(ddec, 0xA5, nchunks * chunk));
    CK(cudaEventRecord(e0));
    NK(a->decomp((const void* const*)d_out, d_outb, d_cap, d_decb, nchunks, dt, dtb, (void* const*)d_dec, d_st, 0));
    CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1));
    float ms; CK(cudaEventElapsedTime(&ms, e0, e1)); if (r >= 2) td.push_back(ms);
  }
  CK(cudaMemcpy(hst.data(), d_st, sizeof(nvcompStatus_t) * nchunks, cudaMemcpyDeviceToHost));
  bool ok = true; for (auto s : hst) if (s != nvcompSuccess) ok = false;
  std::vector<char> back(nchunks * chunk); CK(cudaMemcpy(back.data(), ddec, nchunks * chunk, cudaMemcpyDeviceToHost));
  for (size_t i = 0; i < nchunks && ok; i++) if (memcmp(back.data() + i * chunk, h.data() + i * chunk, hinb[i])) ok = false;
  double gc = n / (median(tc) * 1e6), gd = n / (median(td) * 1e6);
  const char* base = strrchr(argv[2], '/'); base = base ? base + 1 : argv[2];
  printf("%s,%s,%s,%zu,%zu,%zu,%.3f,%.3f,%.3f,%s\n", argv[1], base, argv[3], chunk, n, comp, (double)n / comp, gc, gd, ok ? "ok" : "MISMATCH");
  if (argc > 5) {
    std::string p = std::string(argv[5]) + ".chunks"; FILE* o = fopen(p.c_str(), "wb");
    uint64_t c = nchunks; fwrite(&c, 8, 1, o);
    for (auto b : houtb) { uint64_t x = b; fwrite(&x, 8, 1, o); }
    std::vector<char> buf(maxout);
    for (size_t i = 0; i < nchunks; i++) { CK(cudaMemcpy(buf.data(), hout[i], houtb[i], cudaMemcpyDeviceToHost)); fwrite(buf.data(), 1, houtb[i], o); }
    fclose(o);
  }
  return ok ? 0 : 1;
}

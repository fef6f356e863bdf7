// ANS format samples from nvCOMP 6 (gpucomp issue 5): nvCOMP's low-level batched ANS API compresses
// files with chosen options and chunk sizes, dumps every chunk, and checks that nvCOMP decodes its
// own chunks; it also decodes chunks written elsewhere (gpucomp's CPU codec) and reports each
// chunk's status. Built like nvbench.cu (scripts/gpu/run.sh):
//   nvcc -O2 -std=c++17 -arch=sm_90 -I$NVC/nvidia/libnvcomp/include ans_samples.cu -L$NVLIB -lnvcomp
//
// usage: ans_samples OUTDIR < JOBS
// JOBS: one job per line, fields separated by spaces:
//   c NAME FILE CHUNK DTYPE SPL MSC HRL   compress FILE in chunks of CHUNK bytes (one batch) with
//                                         data_type DTYPE (char|uchar|float16|float32|fp8),
//                                         states_per_lane SPL, max_sub_chunk_count MSC,
//                                         histogram_reduction_log2 HRL; writes OUTDIR/NAME.chunks
//   d NAME CHUNKS FILE CHUNK              decode the chunks of CHUNKS (a .chunks file, chunk i being
//                                         bytes [i·CHUNK, (i+1)·CHUNK) of FILE) and compare
// A .chunks file is: u64 count, u64 size[count], then the chunks back to back.
// Every decode runs with three decompression option sets: default (type and states from the
// stream), states_per_lane from the stream's header, and data_type + states_per_lane both named
// (nvCOMP's "specialised kernel"). One line per job on stdout:
//   c NAME n=.. chunks=.. comp=.. status=.. | dec default: ok ... | dec spl: ... | dec typed: ...
// where each decode reports "ok" or the failing chunks with their status and first bad byte.
#include <nvcomp/ans.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(2); } } while (0)

static bool read_file(const std::string& p, std::vector<char>& out) {
  FILE* f = fopen(p.c_str(), "rb");
  if (!f) return false;
  fseek(f, 0, SEEK_END);
  size_t n = ftell(f);
  fseek(f, 0, SEEK_SET);
  out.resize(n);
  bool ok = fread(out.data(), 1, n, f) == n;
  fclose(f);
  return ok;
}

static bool parse_type(const std::string& s, nvcompType_t* t) {
  if (s == "char") *t = NVCOMP_TYPE_CHAR;
  else if (s == "uchar") *t = NVCOMP_TYPE_UCHAR;
  else if (s == "float16") *t = NVCOMP_TYPE_FLOAT16;
  else if (s == "float32") *t = NVCOMP_TYPE_FLOAT32;
  else if (s == "fp8") *t = NVCOMP_TYPE_FLOAT8_E4M3;
  else return false;
  return true;
}

// Device copies of a list of host buffers, each 16-aligned, and the pointer / size arrays.
struct Batch {
  char* data = nullptr;
  void** d_ptrs = nullptr;
  size_t* d_sizes = nullptr;
  std::vector<void*> ptrs;
  std::vector<size_t> sizes;
  Batch(const std::vector<std::pair<const char*, size_t>>& parts, size_t slot) {
    size_t n = parts.size();
    CK(cudaMalloc(&data, std::max<size_t>(1, slot * n)));
    CK(cudaMemset(data, 0, std::max<size_t>(1, slot * n)));
    for (size_t i = 0; i < n; i++) {
      ptrs.push_back(data + i * slot);
      sizes.push_back(parts[i].second);
      if (parts[i].first && parts[i].second) CK(cudaMemcpy(ptrs[i], parts[i].first, parts[i].second, cudaMemcpyHostToDevice));
    }
    CK(cudaMalloc(&d_ptrs, 8 * n + 8));
    CK(cudaMalloc(&d_sizes, 8 * n + 8));
    CK(cudaMemcpy(d_ptrs, ptrs.data(), 8 * n, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_sizes, sizes.data(), 8 * n, cudaMemcpyHostToDevice));
  }
  ~Batch() { cudaFree(data); cudaFree(d_ptrs); cudaFree(d_sizes); }
};

// Decodes the chunks (host copies) with one option set; returns "ok" or the failures.
static std::string decode(const std::vector<std::vector<char>>& chunks, const std::vector<char>& orig, size_t chunk,
                          nvcompBatchedANSDecompressOpts_t o) {
  size_t n = chunks.size();
  std::vector<std::pair<const char*, size_t>> parts;
  size_t maxc = 16;
  for (auto& c : chunks) { parts.push_back({c.data(), c.size()}); maxc = std::max(maxc, c.size()); }
  Batch in(parts, (maxc + 15) / 16 * 16);
  std::vector<std::pair<const char*, size_t>> outs(n, {nullptr, chunk});
  Batch out(outs, (chunk + 15) / 16 * 16 + 16);
  CK(cudaMemset(out.data, 0xA5, ((chunk + 15) / 16 * 16 + 16) * n));
  size_t* d_actual; nvcompStatus_t* d_st;
  CK(cudaMalloc(&d_actual, 8 * n + 8)); CK(cudaMalloc(&d_st, sizeof(nvcompStatus_t) * n + 8));
  CK(cudaMemset(d_st, 0xFF, sizeof(nvcompStatus_t) * n));
  size_t tb = 0;
  nvcompStatus_t s = nvcompBatchedANSDecompressGetTempSize(n, chunk, o, &tb, chunk * n, 0);
  if (s != nvcompSuccess) return "temp-size status " + std::to_string((int)s);
  void* t = nullptr;
  if (tb) CK(cudaMalloc(&t, tb));
  s = nvcompBatchedANSDecompressAsync((const void* const*)in.d_ptrs, in.d_sizes, out.d_sizes, d_actual, n, t, tb,
                                      (void* const*)out.d_ptrs, o, d_st, 0);
  cudaError_t ce = cudaStreamSynchronize(0);
  if (t) cudaFree(t);
  if (s != nvcompSuccess || ce != cudaSuccess) {
    cudaFree(d_actual); cudaFree(d_st);
    return "call status " + std::to_string((int)s) + " cuda " + cudaGetErrorString(ce);
  }
  std::vector<nvcompStatus_t> st(n); std::vector<size_t> act(n);
  CK(cudaMemcpy(st.data(), d_st, sizeof(nvcompStatus_t) * n, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(act.data(), d_actual, 8 * n, cudaMemcpyDeviceToHost));
  std::ostringstream r;
  int bad = 0;
  std::vector<char> back(chunk);
  for (size_t i = 0; i < n; i++) {
    size_t want = std::min(chunk, orig.size() - i * chunk);
    CK(cudaMemcpy(back.data(), out.ptrs[i], want, cudaMemcpyDeviceToHost));
    long diff = -1;
    for (size_t k = 0; k < want; k++) if (back[k] != orig[i * chunk + k]) { diff = (long)k; break; }
    if (st[i] != nvcompSuccess || act[i] != want || diff >= 0) {
      if (bad++ < 4) r << " chunk" << i << ":status=" << (int)st[i] << ",bytes=" << act[i] << "/" << want << ",diff@" << diff;
    }
  }
  cudaFree(d_actual); cudaFree(d_st);
  if (!bad) return "ok";
  return "FAIL " + std::to_string(bad) + "/" + std::to_string(n) + r.str();
}

static void decode_all(const std::vector<std::vector<char>>& chunks, const std::vector<char>& orig, size_t chunk) {
  nvcompBatchedANSDecompressOpts_t o = nvcompBatchedANSDecompressDefaultOpts;
  printf(" | dec default: %s", decode(chunks, orig, chunk, o).c_str());
  // The stream's own mode and states, named in the options.
  uint8_t mode = chunks.empty() || chunks[0].size() < 16 ? 0 : (uint8_t)chunks[0][11];
  uint32_t spl = 0;
  if (!chunks.empty() && chunks[0].size() >= 16) memcpy(&spl, chunks[0].data() + 12, 4);
  o.states_per_lane = (uint8_t)spl;
  printf(" | dec spl=%u: %s", spl, decode(chunks, orig, chunk, o).c_str());
  nvcompType_t types[] = {NVCOMP_TYPE_UCHAR, NVCOMP_TYPE_FLOAT16, NVCOMP_TYPE_FLOAT8_E4M3, NVCOMP_TYPE_FLOAT32};
  o.data_type = mode < 4 ? types[mode] : NVCOMP_TYPE_BITS;
  printf(" | dec typed(%d): %s", (int)o.data_type, decode(chunks, orig, chunk, o).c_str());
}

static void write_chunks(const std::string& path, const std::vector<std::vector<char>>& chunks) {
  FILE* f = fopen(path.c_str(), "wb");
  if (!f) { perror(path.c_str()); return; }
  uint64_t c = chunks.size();
  fwrite(&c, 8, 1, f);
  for (auto& x : chunks) { uint64_t s = x.size(); fwrite(&s, 8, 1, f); }
  for (auto& x : chunks) fwrite(x.data(), 1, x.size(), f);
  fclose(f);
}

static bool read_chunks(const std::string& path, std::vector<std::vector<char>>& chunks) {
  std::vector<char> b;
  if (!read_file(path, b) || b.size() < 8) return false;
  uint64_t c; memcpy(&c, b.data(), 8);
  if (c > 1000000 || b.size() < 8 + 8 * c) return false;
  size_t off = 8 + 8 * c;
  for (uint64_t i = 0; i < c; i++) {
    uint64_t s; memcpy(&s, b.data() + 8 + 8 * i, 8);
    if (off + s > b.size()) return false;
    chunks.emplace_back(b.begin() + off, b.begin() + off + s);
    off += s;
  }
  return true;
}

static void compress_job(const std::string& outdir, const std::string& name, const std::string& file, size_t chunk,
                         const std::string& dtype, int spl, int msc, int hrl) {
  printf("c %s", name.c_str());
  std::vector<char> h;
  nvcompBatchedANSCompressOpts_t o = nvcompBatchedANSCompressDefaultOpts;
  if (!read_file(file, h)) { printf(" cannot read %s\n", file.c_str()); return; }
  if (!parse_type(dtype, &o.data_type)) { printf(" bad dtype %s\n", dtype.c_str()); return; }
  o.states_per_lane = (uint8_t)spl;
  o.max_sub_chunk_count = (uint8_t)msc;
  o.histogram_reduction_log2 = (uint8_t)hrl;
  size_t n = h.size(), nchunks = (n + chunk - 1) / chunk;
  size_t maxout = 0, tb = 0;
  nvcompStatus_t s = nvcompBatchedANSCompressGetMaxOutputChunkSize(chunk, o, &maxout);
  if (s != nvcompSuccess) { printf(" max-size status %d\n", (int)s); return; }
  s = nvcompBatchedANSCompressGetTempSize(nchunks, chunk, o, &tb, n, 0);
  if (s != nvcompSuccess) { printf(" temp-size status %d\n", (int)s); return; }
  std::vector<std::pair<const char*, size_t>> parts;
  for (size_t i = 0; i < nchunks; i++) parts.push_back({h.data() + i * chunk, std::min(chunk, n - i * chunk)});
  Batch in(parts, (chunk + 15) / 16 * 16);
  size_t slot = (maxout + 15) / 16 * 16;
  std::vector<std::pair<const char*, size_t>> outs(nchunks, {nullptr, 0});
  Batch out(outs, slot);
  void* t = nullptr;
  if (tb) CK(cudaMalloc(&t, tb));
  nvcompStatus_t* d_st;
  CK(cudaMalloc(&d_st, sizeof(nvcompStatus_t) * nchunks + 8));
  s = nvcompBatchedANSCompressAsync((const void* const*)in.d_ptrs, in.d_sizes, chunk, nchunks, t, tb,
                                    (void* const*)out.d_ptrs, out.d_sizes, o, d_st, 0);
  cudaError_t ce = cudaStreamSynchronize(0);
  if (t) cudaFree(t);
  if (s != nvcompSuccess || ce != cudaSuccess) {
    printf(" compress call status %d cuda %s\n", (int)s, cudaGetErrorString(ce));
    cudaFree(d_st);
    if (ce != cudaSuccess) exit(3);
    return;
  }
  std::vector<nvcompStatus_t> st(nchunks);
  std::vector<size_t> sizes(nchunks);
  CK(cudaMemcpy(st.data(), d_st, sizeof(nvcompStatus_t) * nchunks, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(sizes.data(), out.d_sizes, 8 * nchunks, cudaMemcpyDeviceToHost));
  cudaFree(d_st);
  int bad = 0;
  for (auto x : st) bad += x != nvcompSuccess;
  std::vector<std::vector<char>> chunks(nchunks);
  size_t comp = 0;
  for (size_t i = 0; i < nchunks; i++) {
    size_t b = std::min(sizes[i], slot);
    chunks[i].resize(b);
    CK(cudaMemcpy(chunks[i].data(), out.ptrs[i], b, cudaMemcpyDeviceToHost));
    comp += b;
  }
  printf(" n=%zu chunk=%zu chunks=%zu maxout=%zu comp=%zu bad_status=%d(first %d)", n, chunk, nchunks, maxout, comp, bad,
         (int)st[0]);
  write_chunks(outdir + "/" + name + ".chunks", chunks);
  if (!bad) decode_all(chunks, h, chunk);
  printf("\n");
}

static void decode_job(const std::string& name, const std::string& cfile, const std::string& file, size_t chunk) {
  printf("d %s", name.c_str());
  std::vector<char> h;
  std::vector<std::vector<char>> chunks;
  if (!read_file(file, h) || !read_chunks(cfile, chunks)) { printf(" cannot read %s / %s\n", file.c_str(), cfile.c_str()); return; }
  printf(" n=%zu chunks=%zu", h.size(), chunks.size());
  decode_all(chunks, h, chunk);
  printf("\n");
}

int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: ans_samples OUTDIR < JOBS\n"); return 2; }
  std::string outdir = argv[1], line;
  char buf[4096];
  while (fgets(buf, sizeof buf, stdin)) {
    std::istringstream ls(buf);
    std::string kind, name, a, b;
    if (!(ls >> kind)) continue;
    if (kind == "c") {
      size_t chunk; std::string dt; int spl, msc, hrl;
      if (!(ls >> name >> a >> chunk >> dt >> spl >> msc >> hrl)) { printf("bad job: %s", buf); continue; }
      compress_job(outdir, name, a, chunk, dt, spl, msc, hrl);
    } else if (kind == "d") {
      size_t chunk;
      if (!(ls >> name >> a >> b >> chunk)) { printf("bad job: %s", buf); continue; }
      decode_job(name, a, b, chunk);
    }
    fflush(stdout);
  }
  return 0;
}

// The CUB peers of the block_io and reduce benchmarks (src/gpu_suite/block_io.rs): the same
// round trip (one tile of 256 threads x 8 i32 per block, load then store with the same method)
// and the same block reduction, compiled with nvcc on the GPU machine. Prints JSON on stdout:
// {"device": ..., "figures": [{"what": ..., "value": ..., "unit": "TB/s"}, ...]}.
//   nvcc -O3 -std=c++17 -arch=sm_90 cub_peers.cu -o cub_peers && ./cub_peers
#include <cub/cub.cuh>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
  fprintf(stderr, "%s failed: %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)

constexpr int THREADS = 256, ITEMS = 8, TILE = THREADS * ITEMS;
constexpr size_t ELEMS = size_t(1) << 26;  // 2^28 bytes of 4-byte elements

template <cub::BlockLoadAlgorithm L, cub::BlockStoreAlgorithm S>
__global__ void round_trip(const int* in, int* out) {
  using Load = cub::BlockLoad<int, THREADS, ITEMS, L>;
  using Store = cub::BlockStore<int, THREADS, ITEMS, S>;
  __shared__ union { typename Load::TempStorage load; typename Store::TempStorage store; } tmp;
  int items[ITEMS];
  size_t base = size_t(blockIdx.x) * TILE;
  Load(tmp.load).Load(in + base, items);
  __syncthreads();
  Store(tmp.store).Store(out + base, items);
}

__global__ void reduce_sum(const float* in, float* out) {
  using Load = cub::BlockLoad<float, THREADS, ITEMS, cub::BLOCK_LOAD_VECTORIZE>;
  using Reduce = cub::BlockReduce<float, THREADS, cub::BLOCK_REDUCE_WARP_REDUCTIONS>;
  __shared__ union { typename Load::TempStorage load; typename Reduce::TempStorage reduce; } tmp;
  float items[ITEMS];
  size_t base = size_t(blockIdx.x) * TILE;
  Load(tmp.load).Load(in + base, items);
  float s = 0;
  for (int i = 0; i < ITEMS; ++i) s += items[i];
  float total = Reduce(tmp.reduce).Sum(s);
  if (threadIdx.x == 0) atomicAdd(out, total);
}

template <class F>
float median_ms(F f) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i) f();
  std::vector<float> t;
  for (int i = 0; i < 20; ++i) {
    CHECK(cudaEventRecord(a));
    f();
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

static bool first = true;
static void figure(const char* what, double value, const char* unit) {
  printf("%s\n    {\"what\": \"%s\", \"value\": %.6f, \"unit\": \"%s\"}", first ? "" : ",", what, value, unit);
  first = false;
}

template <cub::BlockLoadAlgorithm L, cub::BlockStoreAlgorithm S>
void bench(const char* name, const int* in, int* out, const std::vector<int>& host) {
  CHECK(cudaMemset(out, 0xff, ELEMS * 4));
  round_trip<L, S><<<ELEMS / TILE, THREADS>>>(in, out);
  CHECK(cudaGetLastError());
  std::vector<int> got(ELEMS);
  CHECK(cudaMemcpy(got.data(), out, ELEMS * 4, cudaMemcpyDeviceToHost));
  if (got != host) { fprintf(stderr, "CUB %s round trip is wrong\n", name); exit(1); }
  float ms = median_ms([&] { round_trip<L, S><<<ELEMS / TILE, THREADS>>>(in, out); });
  char what[128];
  snprintf(what, sizeof what, "cub %s", name);
  figure(what, 2.0 * ELEMS * 4 / (ms * 1e-3) / 1e12, "TB/s");
}

int main() {
  cudaDeviceProp p;
  CHECK(cudaGetDeviceProperties(&p, 0));
  std::vector<int> host(ELEMS);
  for (size_t i = 0; i < ELEMS; ++i) host[i] = int(i * 2654435761u);
  int *in, *out;
  CHECK(cudaMalloc(&in, ELEMS * 4));
  CHECK(cudaMalloc(&out, ELEMS * 4));
  CHECK(cudaMemcpy(in, host.data(), ELEMS * 4, cudaMemcpyHostToDevice));
  printf("{\"device\": \"%s\", \"figures\": [", p.name);
  bench<cub::BLOCK_LOAD_DIRECT, cub::BLOCK_STORE_DIRECT>("direct", in, out, host);
  bench<cub::BLOCK_LOAD_STRIPED, cub::BLOCK_STORE_STRIPED>("striped", in, out, host);
  bench<cub::BLOCK_LOAD_VECTORIZE, cub::BLOCK_STORE_VECTORIZE>("vectorize", in, out, host);
  bench<cub::BLOCK_LOAD_TRANSPOSE, cub::BLOCK_STORE_TRANSPOSE>("transpose", in, out, host);
  bench<cub::BLOCK_LOAD_WARP_TRANSPOSE, cub::BLOCK_STORE_WARP_TRANSPOSE>("warp_transpose", in, out, host);
  bench<cub::BLOCK_LOAD_WARP_TRANSPOSE_TIMESLICED, cub::BLOCK_STORE_WARP_TRANSPOSE_TIMESLICED>(
      "warp_transpose_timesliced", in, out, host);
  float ms = median_ms([&] { CHECK(cudaMemcpyAsync(out, in, ELEMS * 4, cudaMemcpyDeviceToDevice)); });
  figure("cudaMemcpy DtoD", 2.0 * ELEMS * 4 / (ms * 1e-3) / 1e12, "TB/s");
  float* sum;
  CHECK(cudaMalloc(&sum, 4));
  CHECK(cudaMemset(sum, 0, 4));
  ms = median_ms([&] { reduce_sum<<<ELEMS / TILE, THREADS>>>((const float*)in, sum); });
  figure("cub block_reduce_sum_f32", double(ELEMS) * 4 / (ms * 1e-3) / 1e12, "TB/s");
  printf("\n]}\n");
  return 0;
}

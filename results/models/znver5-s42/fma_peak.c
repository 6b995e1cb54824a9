/* Peak fp32 FMA throughput of this CPU: every thread runs 16 independent FMA chains on 512-bit vectors
   (or 256-bit with -DW256) in registers, no memory traffic. Prints GFLOP/s per thread count, best of 5.
   Build: gcc -O2 -march=native -fopenmp fma_peak.c -o fma_peak  (add -DW256 for AVX2 vectors) */
#include <immintrin.h>
#include <omp.h>
#include <stdio.h>
#ifdef W256
typedef __m256 V; 
#define SET1 _mm256_set1_ps
#define FMA _mm256_fmadd_ps
#define ADD _mm256_add_ps
#define LANES 8
#define HSUM(v) ({ float t[8]; _mm256_storeu_ps(t, v); t[0]+t[1]+t[2]+t[3]+t[4]+t[5]+t[6]+t[7]; })
#else
typedef __m512 V;
#define SET1 _mm512_set1_ps
#define FMA _mm512_fmadd_ps
#define ADD _mm512_add_ps
#define LANES 16
#define HSUM(v) _mm512_reduce_add_ps(v)
#endif
#define CH 16
static float run(long iters) {
  V a = SET1(0.999999f), b = SET1(1e-7f), acc[CH];
  for (int i = 0; i < CH; i++) acc[i] = SET1((float)i);
  for (long it = 0; it < iters; it++) {
#pragma GCC unroll 16
    for (int i = 0; i < CH; i++) acc[i] = FMA(acc[i], a, b);
  }
  V s = acc[0];
  for (int i = 1; i < CH; i++) s = ADD(s, acc[i]);
  return HSUM(s);
}
int main(void) {
  long iters = 200000000L / CH * 4;
  int maxt = omp_get_max_threads();
  volatile float sink = 0;
  for (int nt = 1; nt <= maxt; nt++) {
    double best = 0;
    for (int rep = 0; rep < 5; rep++) {
      double t0 = omp_get_wtime();
#pragma omp parallel num_threads(nt)
      { float r = run(iters); 
#pragma omp atomic
        sink += r; }
      double dt = omp_get_wtime() - t0;
      double gf = (double)nt * iters * CH * LANES * 2 / dt / 1e9;
      if (gf > best) best = gf;
    }
    printf("%d thread(s), %d-bit FMA: %.1f GFLOP/s\n", nt, LANES * 32, best);
  }
  return 0;
}

// Tensor-parallel building blocks: GEMM, all-reduce, and the row-parallel projection with
// its optional overlap of slice i's all-reduce under slice i+1's GEMM.
#pragma once

#include <cstddef>

#include <mpi.h>

#include "config.h"
#include "link.h"

// A forced slice count whose slices would hold fewer rows than this falls back to the serial
// path: below it the per-call fixed cost of the extra collectives cannot be won back (the
// study's gate; its 8-slice control at 512 rows is refused by it).
constexpr int kMinRowsPerForcedSlice = 96;

// The rule: double the slice count while every slice keeps at least `min_rows_per_slice`
// rows, up to `ceiling`. A ceiling of 0 or 1 disables slicing.
int slices_for_rows(int rows, int min_rows_per_slice, int ceiling);

// The slice count a prefill of `rows` rows actually uses: the forced count if set, else the
// rule, then the fallback gate. 1 means the serial path.
int resolve_slices(int rows, const SlicePolicy& policy);

// out[rows x n] = a[rows x k] * w[k x n] (row-major), timed as `projections`.
void gemm(const float* a, int rows, int k, const float* w, int n, float* out);

// Makes every later all-reduce of this process also cross an emulated link (link.h) when
// `config.enabled`, or removes it. Call it between collectives, never while one is in flight.
void use_emulated_link(const LinkConfig& config);

// In-place sum over all ranks, timed as `tp_all_reduce`. With an emulated link, the payload is
// sent over it first and the call returns only once the link has delivered it.
void all_reduce_sum(float* buf, std::size_t count, MPI_Comm comm);

// Row-parallel projection: out = sum over ranks of a * w, with `slices` > 1 overlapping each
// slice's all-reduce (and its emulated link transfer) with the next slice's GEMM. Returns once
// every slice's sum has arrived. The caller has resolved `slices`.
void row_parallel(const float* a, int rows, int k, const float* w, int n, float* out, int slices,
                  MPI_Comm comm);

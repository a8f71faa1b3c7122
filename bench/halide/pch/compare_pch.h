// Precompiled header of bench_compare: Halide.h alone is ~40k lines and
// took ~30 s to compile in each of the harness's 12 files.
#include <Halide.h>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

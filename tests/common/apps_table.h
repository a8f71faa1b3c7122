/* apps_table.h: the apps with the params of their two test sizes (one
 * odd, and small: the interpreter runs them), shared by the compiled
 * tests. */
#ifndef PT_TEST_APPS_TABLE_H
#define PT_TEST_APPS_TABLE_H

typedef struct app_case {
	const char *app;
	const char *names[2];
	double size[2][2];
} app_case;

static const app_case apps[] = {
	{ "blur", { "R", "C" }, { { 21, 17 }, { 70, 45 } } },
	{ "sobel", { "R", "C" }, { { 21, 17 }, { 33, 64 } } },
	{ "harris", { "R", "C" }, { { 21, 17 }, { 40, 35 } } },
	{ "histogram", { "R", "C" }, { { 21, 17 }, { 64, 31 } } },
	{ "unsharp_mask", { "R", "C" }, { { 21, 17 }, { 36, 71 } } },
	{ "bilateral_grid", { "R", "C" }, { { 67, 45 }, { 40, 64 } } },
	{ "camera_pipe", { "R", "C" }, { { 64, 96 }, { 38, 50 } } },
	{ "heat3d", { "N", "T" }, { { 9, 3 }, { 6, 2 } } },
	{ "interpolate", { "R", "C" }, { { 129, 67 }, { 64, 96 } } },
	{ "local_laplacian", { "R", "C" }, { { 67, 45 }, { 32, 40 } } },
	{ "pyramid_blend", { "R", "C" }, { { 128, 96 }, { 96, 64 } } },
	{ "iir_blur", { "R", "C" }, { { 21, 17 }, { 40, 67 } } },
};
enum { NAPPS = sizeof(apps) / sizeof(apps[0]) };

#endif

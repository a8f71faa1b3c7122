/* options.c: pt_options from the tuple polytile/options.py makes.  The
 * package validates each option and names it in its errors; this file
 * only unpacks, and reads the configuration file (whose errors it
 * reports as OptionError, "FILE:LINE: what"). */
#include "ext.h"

/* (threads, backend, opt_level, tile, fixed_tiles, overlap, config,
 *  no_inline, cache, compile_threads, target, separate_tiles, estimates,
 *  time)
 * tile: a tuple of ints (empty: the optimizer's); overlap < 0: the
 * default; config, target: str or None; estimates: a tuple of floats or
 * None. */
#define OPT_FORMAT "iiiOpdOppiOpOp"

static int read_tiles(PyObject *tile, pt_options *opt)
{
	PyObject *fast = PySequence_Fast(tile, "tile must be a sequence");
	if (!fast)
		return -1;
	Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
	if (n > PT_MAX_TILE_DIMS) {
		PyErr_Format(PyExc_ValueError, "tile: at most %d sizes", PT_MAX_TILE_DIMS);
		Py_DECREF(fast);
		return -1;
	}
	opt->ntile = (int)n;
	for (Py_ssize_t i = 0; i < n; i++) {
		long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
		if (v == -1 && PyErr_Occurred()) {
			Py_DECREF(fast);
			return -1;
		}
		opt->tile[i] = (int)v;
	}
	Py_DECREF(fast);
	return 0;
}

static int read_estimates(PyObject *est, pt_options *opt)
{
	if (est == Py_None)
		return 0;
	Py_ssize_t n = PySequence_Size(est);
	if (n < 0)
		return -1;
	double *v = PyMem_Calloc((size_t)n + 1, sizeof(double));
	if (!v) {
		PyErr_NoMemory();
		return -1;
	}
	opt->estimates = v;
	return pt_py_values(est, (int)n, v);
}

static int read_config(PyObject *config, pt_options *opt)
{
	if (config == Py_None)
		return 0;
	const char *path = PyUnicode_AsUTF8(config);
	char err[4096];
	if (!path)
		return -1;
	if (pt_options_read_config(opt, path, err, sizeof(err))) {
		pt_py_raise("OptionError", err);
		return -1;
	}
	return 0;
}

int pt_py_options(PyObject *tuple, pt_options *opt)
{
	int threads, backend, level, fixed, no_inline, cache, cthreads, separate, time;
	double overlap;
	PyObject *tile, *config, *target, *est;
	memset(opt, 0, sizeof(*opt));
	if (!PyArg_ParseTuple(tuple, OPT_FORMAT, &threads, &backend, &level, &tile, &fixed, &overlap,
		&config, &no_inline, &cache, &cthreads, &target, &separate, &est, &time))
		return -1;
	opt->threads = threads;
	opt->backend = (pt_backend)backend;
	opt->opt_level = (pt_opt_level)level;
	opt->fixed_tiles = fixed;
	opt->overlap = overlap < 0 ? 0 : overlap;
	opt->overlap_set = overlap >= 0;
	opt->no_inline = no_inline;
	opt->cache = cache;
	opt->compile_threads = cthreads;
	opt->separate_tiles = separate;
	opt->time = time;
	if (target != Py_None && !(opt->target = PyUnicode_AsUTF8(target)))
		return -1;
	/* the config file last: its entries override tile and overlap */
	if (read_tiles(tile, opt) || read_estimates(est, opt) || read_config(config, opt)) {
		pt_py_options_free(opt);
		return -1;
	}
	return 0;
}

void pt_py_options_free(pt_options *opt)
{
	PyMem_Free((void *)opt->estimates);
	opt->estimates = NULL;
	pt_options_free_config(opt);
}

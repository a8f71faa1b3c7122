/* gpu_stream.c: streamed copies' shared parts (gpu_stream.h), and each
 * chunk's clamped box (pt_gpu_stream_box, pt_runtime.h). */
#include "gpu_stream.h"

bool pt_stream_layout_ok(const pt_stream_set *s, const pt_buffer *b)
{
	if (s->n == PT_STREAM_SET_MAX)
		return false;
	for (int d = 0; d < b->ndim; d++)
		if (b->stride[d] < 0 || b->extent[d] < 1)
			return false;
	return b->ndim == 0 || b->stride[b->ndim - 1] == 1;
}

int64_t pt_stream_span_bytes(const pt_buffer *b)
{
	int64_t far = 0;
	for (int d = 0; d < b->ndim; d++)
		far += (b->extent[d] - 1) * b->stride[d];
	return (far + 1) * (int64_t)pt_type_size(b->type);
}

void pt_stream_set_add(pt_stream_set *s, const pt_buffer *b)
{
	if (s->n < PT_STREAM_SET_MAX)
		s->b[s->n++] = b;
}

bool pt_stream_set_has(const pt_stream_set *s, const pt_buffer *b)
{
	for (int i = 0; i < s->n; i++)
		if (s->b[i] == b)
			return true;
	return false;
}

bool pt_stream_set_forget(pt_stream_set *s, const pt_buffer *b)
{
	for (int i = 0; i < s->n; i++)
		if (s->b[i] == b) {
			s->b[i] = s->b[--s->n];
			return true;
		}
	return false;
}

int64_t pt_gpu_stream_box(const pt_gpu_stream *p, int c, int i, int64_t *out)
{
	const pt_buffer *b = p->buf[i];
	const int64_t *box = p->box + (size_t)(c * p->nbuf + i) * 2 * PT_MAX_DIMS;
	int64_t n = (int64_t)pt_type_size(b->type);
	for (int d = 0; d < b->ndim; d++) {
		out[2 * d] = box[2 * d] < 0 ? 0 : box[2 * d];
		out[2 * d + 1] = box[2 * d + 1] >= b->extent[d] ? b->extent[d] - 1 : box[2 * d + 1];
		if (box[2 * d] > box[2 * d + 1] || out[2 * d] > out[2 * d + 1])
			return 0;
		n *= out[2 * d + 1] - out[2 * d] + 1;
	}
	return n;
}

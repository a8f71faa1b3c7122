/* io_error.c: the one-line error messages of the image and file I/O
 * (image_io.c, npy_io.c, out_file.c). */
#include <stdarg.h>
#include <stdio.h>

#include "image_io.h"

/* Formats an error message; line breaks (say, from a path) become spaces
 * and other control characters '?', so it stays one printable line. */
void pt_io_error(char *err, size_t errlen, const char *fmt, ...)
{
	if (!err || errlen == 0)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	for (char *p = err; *p; p++) {
		if (*p == '\n' || *p == '\r')
			*p = ' ';
		else if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	}
}

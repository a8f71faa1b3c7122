/* fn_names.c: which names a compiled pipeline's function may take.
 *
 * `compile -o NAME` defines the external function NAME (and NAME_argv)
 * and writes NAME.h.  A name of the C library, POSIX or OpenMP would
 * replace that function in the application at link time (`-o malloc`
 * crashes it), and a header named like a standard one shadows it
 * (`-o assert` writes assert.h).  So these are refused: the names in
 * the tables below, the prefixes the C standard, POSIX and OpenMP
 * reserve, and, as a catch-all for the rest of POSIX and the GNU
 * extensions, any symbol that this machine's libc, libm or libgomp
 * defines. */
#include <ctype.h>
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "polytile.h"
#include "header.h"

/* C11's library: functions, macros and objects (math functions' f and
 * l variants are matched too). */
static const char *const c_library[] = {
	/* assert.h, ctype.h, errno.h, locale.h, setjmp.h, signal.h, stdarg.h, stddef.h */
	"assert", "static_assert", "isalnum", "isalpha", "isblank", "iscntrl", "isdigit", "isgraph", "islower",
	"isprint", "ispunct", "isspace", "isupper", "isxdigit", "tolower", "toupper", "errno", "setlocale",
	"localeconv", "setjmp", "longjmp", "signal", "raise", "va_arg", "va_copy", "va_end", "va_start",
	"NULL", "offsetof",
	/* complex.h, fenv.h, inttypes.h */
	"complex", "imaginary", "I", "CMPLX", "cabs", "cacos", "cacosh", "carg", "casin", "casinh", "catan",
	"catanh", "ccos", "ccosh", "cexp", "cimag", "clog", "conj", "cpow", "cproj", "creal", "csin", "csinh",
	"csqrt", "ctan", "ctanh", "feclearexcept", "fegetexceptflag", "feraiseexcept", "fesetexceptflag",
	"fetestexcept", "fegetround", "fesetround", "fegetenv", "feholdexcept", "fesetenv", "feupdateenv",
	"imaxabs", "imaxdiv", "strtoimax", "strtoumax", "wcstoimax", "wcstoumax",
	/* math.h */
	"acos", "asin", "atan", "atan2", "cos", "sin", "tan", "acosh", "asinh", "atanh", "cosh", "sinh", "tanh",
	"exp", "exp2", "expm1", "frexp", "ilogb", "ldexp", "log", "log10", "log1p", "log2", "logb", "modf",
	"scalbn", "scalbln", "cbrt", "fabs", "hypot", "pow", "sqrt", "erf", "erfc", "lgamma", "tgamma", "ceil",
	"floor", "nearbyint", "rint", "lrint", "llrint", "round", "lround", "llround", "trunc", "fmod",
	"remainder", "remquo", "copysign", "nan", "nextafter", "nexttoward", "fdim", "fmax", "fmin", "fma",
	"fpclassify", "isfinite", "isinf", "isnan", "isnormal", "signbit", "isgreater", "isgreaterequal",
	"isless", "islessequal", "islessgreater", "isunordered", "HUGE_VAL", "INFINITY", "NAN",
	/* stdio.h */
	"remove", "rename", "tmpfile", "tmpnam", "fclose", "fflush", "fopen", "freopen", "setbuf", "setvbuf",
	"fprintf", "fscanf", "printf", "scanf", "snprintf", "sprintf", "sscanf", "vfprintf", "vfscanf",
	"vprintf", "vscanf", "vsnprintf", "vsprintf", "vsscanf", "fgetc", "fgets", "fputc", "fputs", "getc",
	"getchar", "gets", "putc", "putchar", "puts", "ungetc", "fread", "fwrite", "fgetpos", "fseek",
	"fsetpos", "ftell", "rewind", "clearerr", "feof", "ferror", "perror", "stdin", "stdout", "stderr",
	"EOF", "BUFSIZ", "FILENAME_MAX", "FOPEN_MAX", "L_tmpnam", "SEEK_CUR", "SEEK_END", "SEEK_SET",
	"TMP_MAX", "FILE",
	/* stdlib.h */
	"atof", "atoi", "atol", "atoll", "strtod", "strtof", "strtold", "strtol", "strtoll", "strtoul",
	"strtoull", "rand", "srand", "aligned_alloc", "calloc", "free", "malloc", "realloc", "abort", "atexit",
	"at_quick_exit", "exit", "getenv", "quick_exit", "system", "bsearch", "qsort", "abs", "labs", "llabs",
	"div", "ldiv", "lldiv", "mblen", "mbtowc", "wctomb", "mbstowcs", "wcstombs", "EXIT_FAILURE",
	"EXIT_SUCCESS", "MB_CUR_MAX", "RAND_MAX",
	/* string.h, time.h, uchar.h */
	"memcpy", "memmove", "strcpy", "strncpy", "strcat", "strncat", "memcmp", "strcmp", "strcoll",
	"strncmp", "strxfrm", "memchr", "strchr", "strcspn", "strpbrk", "strrchr", "strspn", "strstr",
	"strtok", "memset", "strerror", "strlen", "clock", "difftime", "mktime", "time", "asctime", "ctime",
	"gmtime", "localtime", "strftime", "timespec_get", "CLOCKS_PER_SEC", "mbrtoc16", "c16rtomb",
	"mbrtoc32", "c32rtomb",
	/* wchar.h, wctype.h */
	"fwprintf", "fwscanf", "swprintf", "swscanf", "vfwprintf", "vfwscanf", "vswprintf", "vswscanf",
	"vwprintf", "vwscanf", "wprintf", "wscanf", "fgetwc", "fgetws", "fputwc", "fputws", "fwide", "getwc",
	"getwchar", "putwc", "putwchar", "ungetwc", "wcstod", "wcstof", "wcstold", "wcstol", "wcstoll",
	"wcstoul", "wcstoull", "wcscpy", "wcsncpy", "wmemcpy", "wmemmove", "wcscat", "wcsncat", "wcscmp",
	"wcscoll", "wcsncmp", "wcsxfrm", "wmemcmp", "wcschr", "wcscspn", "wcspbrk", "wcsrchr", "wcsspn",
	"wcsstr", "wcstok", "wmemchr", "wcslen", "wmemset", "wcsftime", "btowc", "wctob", "mbsinit", "mbrlen",
	"mbrtowc", "wcrtomb", "mbsrtowcs", "wcsrtombs", "WEOF", "iswalnum", "iswalpha", "iswblank",
	"iswcntrl", "iswdigit", "iswgraph", "iswlower", "iswprint", "iswpunct", "iswspace", "iswupper",
	"iswxdigit", "iswctype", "wctype", "towlower", "towupper", "towctrans", "wctrans",
};

/* POSIX's most used functions and objects (the libc look-up below
 * finds the others where they exist). */
static const char *const posix[] = {
	"open", "close", "read", "write", "lseek", "creat", "dup", "dup2", "pipe", "fork", "execv", "execve",
	"execvp", "execl", "execlp", "execle", "wait", "waitpid", "kill", "getpid", "getppid", "getuid",
	"geteuid", "setuid", "sleep", "usleep", "nanosleep", "alarm", "pause", "access", "chdir", "chmod",
	"chown", "unlink", "link", "symlink", "readlink", "rmdir", "mkdir", "stat", "fstat", "lstat", "mmap",
	"munmap", "mprotect", "sysconf", "fcntl", "ioctl", "poll", "select", "socket", "bind", "listen",
	"accept", "connect", "send", "recv", "shutdown", "dlopen", "dlsym", "dlclose", "dlerror", "strdup",
	"strndup", "getline", "popen", "pclose", "fileno", "fdopen", "opendir", "readdir", "closedir",
	"environ", "optarg", "optind", "getopt", "posix_memalign", "clock_gettime", "gettimeofday", "random",
	"srandom", "index", "rindex", "bzero", "bcopy", "sync", "truncate", "ftruncate", "umask", "isatty",
};

/* Standard headers (C11, POSIX, OpenMP) and polytile's: NAME.h must not
 * shadow one. */
static const char *const headers[] = {
	"assert", "complex", "ctype", "errno", "fenv", "float", "inttypes", "iso646", "limits", "locale",
	"math", "setjmp", "signal", "stdalign", "stdarg", "stdatomic", "stdbool", "stddef", "stdint", "stdio",
	"stdlib", "stdnoreturn", "string", "tgmath", "threads", "time", "uchar", "wchar", "wctype", "aio",
	"cpio", "dirent", "dlfcn", "fcntl", "fmtmsg", "fnmatch", "ftw", "glob", "grp", "iconv", "langinfo",
	"libgen", "monetary", "mqueue", "ndbm", "netdb", "nl_types", "poll", "pthread", "pwd", "regex",
	"sched", "search", "semaphore", "spawn", "strings", "stropts", "syslog", "tar", "termios", "trace",
	"ulimit", "unistd", "utime", "utmpx", "wordexp", "omp", "polytile", "alloca", "malloc", "memory",
};

/* Prefixes reserved for the library's future names and OpenMP's (C11
 * 7.31, POSIX 2.2.2). */
static const char *const prefixes[] = {
	"omp_", "pthread_", "atomic_", "memory_order_", "cnd_", "mtx_", "thrd_", "tss_", "sem_", "LC_",
	"SIG_", "FE_",
};

static bool in(const char *name, const char *const *table, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(name, table[i]))
			return true;
	return false;
}
#define IN(name, t) in(name, t, sizeof(t) / sizeof(t[0]))

/* name, or name less a math function's f or l suffix, in the C table */
static bool c_library_name(const char *name)
{
	char base[64];
	size_t n = strlen(name);
	if (IN(name, c_library))
		return true;
	if (n < 2 || n >= sizeof(base) || (name[n - 1] != 'f' && name[n - 1] != 'l'))
		return false;
	memcpy(base, name, n - 1);
	base[n - 1] = 0;
	return IN(base, c_library);
}

/* Whether this machine's libc, libm or libgomp defines name. */
static bool system_symbol(const char *name)
{
	static const char *const libs[] = { "libc.so.6", "libm.so.6", "libgomp.so.1" };
	for (size_t i = 0; i < sizeof(libs) / sizeof(libs[0]); i++) {
		void *h = dlopen(libs[i], RTLD_LAZY | RTLD_NOLOAD);
		if (!h)
			continue;
		bool found = dlsym(h, name) != NULL;
		dlclose(h);
		if (found)
			return true;
	}
	return false;
}

const char *pt_function_name_reserved(const char *name)
{
	if (!*name || !(isalpha((unsigned char)*name) || *name == '_'))
		return "not a C identifier";
	for (const char *s = name; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_'))
			return "not a C identifier";
	const char *why = pt_c_reserved_name(name);
	if (why)
		return why;
	if (c_library_name(name))
		return "a name of the C standard library";
	if (IN(name, posix))
		return "a name of POSIX's C library";
	if (IN(name, headers))
		return "the name of a standard header (NAME.h would shadow it)";
	if (name[0] == 'E' && (isupper((unsigned char)name[1]) || isdigit((unsigned char)name[1])))
		return "a name C reserves for errno.h's macros (E...)";
	if (!strncmp(name, "SIG", 3) && isupper((unsigned char)name[3]))
		return "a name C reserves for signal.h's macros (SIG...)";
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return "in a namespace the C library, POSIX or OpenMP reserves";
	if (system_symbol(name))
		return "a function or object of this system's C, math or OpenMP library";
	return NULL;
}

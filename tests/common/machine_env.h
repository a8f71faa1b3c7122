/* machine_env.h: a test's PT_MACHINE, set and put back as it was. */
#ifndef PT_TEST_MACHINE_ENV_H
#define PT_TEST_MACHINE_ENV_H

#include <stdlib.h>
#include <string.h>

/* Sets PT_MACHINE to value (unchanged when NULL) and returns what it was
 * (malloc'd, or NULL when unset) for restore_machine. */
static inline char *set_machine(const char *value)
{
	char *saved = getenv("PT_MACHINE") ? strdup(getenv("PT_MACHINE")) : NULL;
	if (value)
		setenv("PT_MACHINE", value, 1);
	return saved;
}

static inline void restore_machine(char *saved)
{
	if (saved)
		setenv("PT_MACHINE", saved, 1);
	else
		unsetenv("PT_MACHINE");
	free(saved);
}

#endif

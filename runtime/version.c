/* version.c: which ltap this is, from the header cmake/version.cmake writes
 * at every build; the only file that includes it, so a new commit rebuilds
 * this file alone. */
#include "version.h"

#include "ltap_version.h"

const char *ltap_version(void)
{
	return LTAP_VERSION;
}

const char *ltap_version_commit(void)
{
	return LTAP_VERSION_COMMIT;
}

const char *ltap_version_string(void)
{
	return LTAP_VERSION_STRING;
}

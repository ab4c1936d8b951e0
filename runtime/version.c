/* version.c: which ltap this is (ltap --version, --check, JSON reports,
 * ltap.version, ltap.h's ltap_version), from the header cmake/version.cmake
 * writes at every build; the only file that includes it, so a new commit
 * rebuilds this file alone. */
#include "version.h"

#include "ltap.h"
#include "ltap_version.h"

const char *ltap_version(void)
{
	return LTAP_VERSION_FULL;
}

const char *ltap_version_number(void)
{
	return LTAP_VERSION;
}

const char *ltap_version_commit(void)
{
	return LTAP_VERSION_COMMIT;
}

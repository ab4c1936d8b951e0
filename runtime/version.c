/* version.c: which ltap this is (ltap --version, ltap.version, ltap.h). */
#include "ltap.h"

#ifndef LTAP_VERSION_TEXT
#define LTAP_VERSION_TEXT "0.2.0"
#endif

const char *ltap_version(void)
{
	return LTAP_VERSION_TEXT;
}

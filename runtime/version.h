/* version.h: which ltap this is (ltap --version, --check, JSON reports,
 * ltap.version): the version of CMakeLists.txt's project() and, built from
 * a git checkout, the commit (cmake/version.cmake). */
#ifndef LTAP_VERSION_H
#define LTAP_VERSION_H

/* "0.1.0" */
const char *ltap_version(void);
/* "877a405c12ab", "877a405c12ab-dirty" (tracked files changed), or "" when
 * not built from a git checkout */
const char *ltap_version_commit(void);
/* "ltap 0.1.0 (git 877a405c12ab)", or "ltap 0.1.0" */
const char *ltap_version_string(void);

#endif

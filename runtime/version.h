/* version.h: which ltap this is: the version of CMakeLists.txt's project()
 * and, built from a git checkout, the commit (cmake/version.cmake).
 * ltap.h's ltap_version() is both: "0.2.0 (git 877a405c12ab)". */
#ifndef LTAP_VERSION_H
#define LTAP_VERSION_H

/* "0.2.0" */
const char *ltap_version_number(void);
/* "877a405c12ab", "877a405c12ab-dirty" (tracked files changed), or "" when
 * not built from a git checkout */
const char *ltap_version_commit(void);

#endif

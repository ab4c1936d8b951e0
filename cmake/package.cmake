# package.cmake: the Debian package, made by CPack's DEB generator from the
# install rules (cmake/install.cmake): what `cmake --install` installs is
# what the package holds, one package per install component (now one,
# "ltap"). `./make.sh deb` (dist/deb.sh) builds it with Debian's build flags;
# docs/building.md says why CPack and not a debian/ directory.
#
# Depends come from dpkg-shlibdeps (CPACK_DEBIAN_PACKAGE_SHLIBDEPS), never
# typed by hand, but for what it cannot see: lua-dkjson is a Lua module
# (required by --format json and ltap stat --json), and capstone and
# libmicrohttpd are opened at first use (runtime/lazylib.c), so they are
# Recommends (ltap annotate, --serve; ltap runs without them and says so).
#
# To add a package for a component (a library, its -dev files, the Lua
# module): install its files with COMPONENT NAME, then
#   list(APPEND CPACK_COMPONENTS_ALL NAME)
#   set(CPACK_DEBIAN_<NAME>_PACKAGE_NAME ...)       (and _SECTION, DEPENDS...)
#   set(CPACK_COMPONENT_<NAME>_DESCRIPTION "...")
#   ltap_deb_docs(NAME PACKAGE)                     (its copyright, changelog)
# all before include(CPack) below; tests/shipping/package.sh checks every
# package it finds.

set(LTAP_MAINTAINER "ltap maintainers <maintainers@users.noreply.a-seed-ab575424.example>"
  CACHE STRING "The Debian package's maintainer, as NAME <EMAIL>")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME ltap)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)               # ltap_0.1.0-1_amd64.deb
set(CPACK_PACKAGE_CONTACT "${LTAP_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${LTAP_MAINTAINER}")
# the package installs where `cmake --install` does (dist/deb.sh: /usr)
set(CPACK_PACKAGING_INSTALL_PREFIX "${CMAKE_INSTALL_PREFIX}")
# stripped as dh_strip strips (symbols, .comment, .note)
set(CPACK_PRE_BUILD_SCRIPTS ${CMAKE_SOURCE_DIR}/cmake/deb-strip.cmake)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_COMPRESSION_TYPE xz)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)

set(CPACK_COMPONENTS_ALL ltap)
set(CPACK_DEBIAN_LTAP_PACKAGE_NAME ltap)
set(CPACK_DEBIAN_LTAP_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_LTAP_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_LTAP_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_LTAP_PACKAGE_DEPENDS "lua-dkjson")
set(CPACK_DEBIAN_LTAP_PACKAGE_RECOMMENDS "libcapstone4, libmicrohttpd12")
# Each package's description starts with its own synopsis (no article, as
# Debian wants it). CPack puts CPACK_PACKAGE_DESCRIPTION_SUMMARY before it
# unless that is CPack's default text, so it is left at that.
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_NAME} built using CMake")
set(CPACK_DEBIAN_LTAP_DESCRIPTION "Linux tracing host with Lua 5.4 scripts
ltap opens kernel tracepoints in a tracefs instance of its own, reads the
raw per-CPU ftrace rings and hands every event, in time order, to a
handler written in Lua 5.4. It also reads uprobes, USDT markers, perf
counters and sampled call chains; replays trace.dat files and trace_pipe
text; draws flame graphs, annotates functions, prints perf stat's and perf
report's tables and serves metrics to Prometheus. Whatever way it ends,
it leaves the kernel's tracing state as it found it.")

# ltap_deb_docs(COMPONENT PACKAGE): what Debian wants in every package's
# share/doc/PACKAGE/, the copyright and changelog.Debian.gz, in the package
# only (EXCLUDE_FROM_ALL: `cmake --install` leaves them out)
string(TIMESTAMP LTAP_DEB_DATE "%a, %d %b %Y %H:%M:%S +0000" UTC)  # SOURCE_DATE_EPOCH if set
set(LTAP_DEB_VERSION ${PROJECT_VERSION}-${CPACK_DEBIAN_PACKAGE_RELEASE})
configure_file(${CMAKE_SOURCE_DIR}/dist/deb/changelog.in ${CMAKE_BINARY_DIR}/deb/changelog.Debian @ONLY)
find_program(LTAP_GZIP gzip REQUIRED)
add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/deb/changelog.Debian.gz
  COMMAND ${LTAP_GZIP} -9n -c ${CMAKE_BINARY_DIR}/deb/changelog.Debian > ${CMAKE_BINARY_DIR}/deb/changelog.Debian.gz
  DEPENDS ${CMAKE_BINARY_DIR}/deb/changelog.Debian VERBATIM)
add_custom_target(deb_docs ALL DEPENDS ${CMAKE_BINARY_DIR}/deb/changelog.Debian.gz)
function(ltap_deb_docs component package)
  install(FILES ${CMAKE_SOURCE_DIR}/dist/deb/copyright ${CMAKE_BINARY_DIR}/deb/changelog.Debian.gz
    DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/${package} COMPONENT ${component} EXCLUDE_FROM_ALL)
  if(EXISTS ${CMAKE_SOURCE_DIR}/dist/deb/${package}.lintian-overrides)
    install(FILES ${CMAKE_SOURCE_DIR}/dist/deb/${package}.lintian-overrides
      DESTINATION ${CMAKE_INSTALL_DATADIR}/lintian/overrides RENAME ${package}
      COMPONENT ${component} EXCLUDE_FROM_ALL)
  endif()
endfunction()
ltap_deb_docs(ltap ltap)

include(CPack)

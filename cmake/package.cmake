# package.cmake: the Debian packages, made by CPack's DEB generator from the
# install rules (cmake/install.cmake): what `cmake --install` installs is
# what the packages hold, one package per install component:
#
#   ltap          the command, its manual pages, completion, docs, examples
#   libltap0      libltap.so.0 (Section libs; ltap links it)
#   libltap-dev   ltap.h, libltap.so, ltap.pc, the C example (Section libdevel)
#   lua-ltap      require "ltap" for Lua 5.4 (Section interpreters, as
#                 Debian's lua-* modules)
#
# `./make.sh deb` (dist/deb.sh) builds them with Debian's build flags;
# docs/building.md says why CPack and not a debian/ directory.
#
# Depends come from dpkg-shlibdeps (CPACK_DEBIAN_PACKAGE_SHLIBDEPS), never
# typed by hand, and from the components' own graph (libltap0 (= VERSION)
# for ltap and libltap-dev), but for what neither can see: lua-dkjson is a
# Lua module libltap loads (--format json, ltap stat --json), and capstone
# and libmicrohttpd are opened at first use (runtime/lazylib.c), so they are
# Recommends (ltap annotate, --serve; ltap runs without them and says so).
#
# A further package: install its files with COMPONENT NAME, then here
#   list(APPEND CPACK_COMPONENTS_ALL NAME)
#   set(CPACK_DEBIAN_<NAME>_PACKAGE_NAME NAME)      (and _SECTION, DEPENDS...)
#   set(CPACK_DEBIAN_<NAME>_DESCRIPTION "synopsis\nlong text")
#   ltap_deb_docs(NAME)                             (its copyright, changelog)
# all before include(CPack) below; tests/shipping/package.sh checks every
# package it finds.

set(LTAP_MAINTAINER "ltap maintainers <maintainers@users.noreply.a-seed-ab575424.example>"
  CACHE STRING "The Debian packages' maintainer, as NAME <EMAIL>")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME ltap)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)               # ltap_0.2.0-1_amd64.deb, ...
set(CPACK_PACKAGE_CONTACT "${LTAP_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${LTAP_MAINTAINER}")
# the packages install where `cmake --install` does (dist/deb.sh: /usr)
set(CPACK_PACKAGING_INSTALL_PREFIX "${CMAKE_INSTALL_PREFIX}")
# stripped as dh_strip strips (symbols, .comment, .note); libltap0's
# ldconfig by trigger, as dh_makeshlibs does it
set(CPACK_PRE_BUILD_SCRIPTS ${CMAKE_SOURCE_DIR}/cmake/deb-strip.cmake)
set(CPACK_POST_BUILD_SCRIPTS ${CMAKE_SOURCE_DIR}/cmake/deb-post.cmake)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# ltap's libltap.so.0 is found in the build (it is libltap0's, a Depends of
# the component graph); libltap0 gets a shlibs file for others' shlibdeps
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${CMAKE_BINARY_DIR})
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
# deb-post.cmake writes libltap0's symbols file from the version script
set(CPACK_LTAP_SYMBOL_MAP ${CMAKE_SOURCE_DIR}/cmake/ltap.map)
set(CPACK_LTAP_DEV_PACKAGE libltap-dev)
set(CPACK_DEBIAN_COMPRESSION_TYPE xz)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)
set(CPACK_PACKAGE_VERSION_FULL ${PROJECT_VERSION}-${CPACK_DEBIAN_PACKAGE_RELEASE})

# Each package's description starts with its own synopsis (no article, as
# Debian wants it). CPack puts CPACK_PACKAGE_DESCRIPTION_SUMMARY before it
# unless that is CPack's default text, so it is left at that.
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_NAME} built using CMake")
set(LTAP_DEB_ABOUT "ltap opens kernel tracepoints in a tracefs instance of its own, reads the
raw per-CPU ftrace rings and hands every event, in time order, to a
handler written in Lua 5.4. It also reads uprobes, USDT markers, perf
counters and sampled call chains; replays trace.dat files and trace_pipe
text; draws flame graphs, annotates functions, prints perf stat's and perf
report's tables and serves metrics to Prometheus. Whatever way it ends,
it leaves the kernel's tracing state as it found it.")

set(CPACK_COMPONENTS_ALL ltap libltap0 libltap-dev lua-ltap)

set(CPACK_DEBIAN_LTAP_PACKAGE_NAME ltap)
set(CPACK_DEBIAN_LTAP_PACKAGE_SECTION devel)
set(CPACK_COMPONENT_LTAP_DEPENDS libltap0)
set(CPACK_DEBIAN_LTAP_DESCRIPTION "Linux tracing host with Lua 5.4 scripts
${LTAP_DEB_ABOUT}
.
This package holds the ltap command, its manual pages, bash completion,
manual and example scripts.")

set(CPACK_DEBIAN_LIBLTAP0_PACKAGE_NAME libltap0)
set(CPACK_DEBIAN_LIBLTAP0_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_LIBLTAP0_PACKAGE_DEPENDS "lua-dkjson")
set(CPACK_DEBIAN_LIBLTAP0_PACKAGE_RECOMMENDS "libcapstone4, libmicrohttpd12")
set(CPACK_DEBIAN_LIBLTAP0_DESCRIPTION "Linux tracing host with Lua 5.4 scripts - library
${LTAP_DEB_ABOUT}
.
This package holds libltap, the tracing host as a library, which the
ltap command and programs embedding ltap link.")

set(CPACK_DEBIAN_LIBLTAP-DEV_PACKAGE_NAME libltap-dev)
set(CPACK_DEBIAN_LIBLTAP-DEV_PACKAGE_SECTION libdevel)
set(CPACK_COMPONENT_LIBLTAP-DEV_DEPENDS libltap0)
set(CPACK_DEBIAN_LIBLTAP-DEV_DESCRIPTION "Linux tracing host with Lua 5.4 scripts - development files
${LTAP_DEB_ABOUT}
.
This package holds what a C program embedding ltap builds with: ltap.h,
libltap.so and ltap.pc (pkg-config), and an example.")

set(CPACK_DEBIAN_LUA-LTAP_PACKAGE_NAME lua-ltap)
set(CPACK_DEBIAN_LUA-LTAP_PACKAGE_SECTION interpreters)
set(CPACK_DEBIAN_LUA-LTAP_PACKAGE_DEPENDS "lua-dkjson")
set(CPACK_DEBIAN_LUA-LTAP_PACKAGE_RECOMMENDS "libcapstone4, libmicrohttpd12")
set(CPACK_DEBIAN_LUA-LTAP_DESCRIPTION "Linux tracing host with Lua 5.4 scripts - Lua module
${LTAP_DEB_ABOUT}
.
This package holds the module that lets a Lua 5.4 program host ltap:
local ltap = require \"ltap\", with an example for luv.")

foreach(c ${CPACK_COMPONENTS_ALL})
  string(TOUPPER ${c} C)
  set(CPACK_DEBIAN_${C}_FILE_NAME DEB-DEFAULT)
  set(CPACK_DEBIAN_${C}_PACKAGE_PRIORITY optional)
endforeach()

# ltap_deb_docs(PACKAGE): what Debian wants in every package's
# share/doc/PACKAGE/, the copyright and changelog.Debian.gz, and lintian's
# overrides (dist/deb/lintian-overrides.in, each with its reason), in the
# package only (EXCLUDE_FROM_ALL: `cmake --install` leaves them out)
string(TIMESTAMP LTAP_DEB_DATE "%a, %d %b %Y %H:%M:%S +0000" UTC)  # SOURCE_DATE_EPOCH if set
set(LTAP_DEB_VERSION ${CPACK_PACKAGE_VERSION_FULL})
configure_file(${CMAKE_SOURCE_DIR}/dist/deb/changelog.in ${CMAKE_BINARY_DIR}/deb/changelog.Debian @ONLY)
find_program(LTAP_GZIP gzip REQUIRED)
add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/deb/changelog.Debian.gz
  COMMAND ${LTAP_GZIP} -9n -c ${CMAKE_BINARY_DIR}/deb/changelog.Debian > ${CMAKE_BINARY_DIR}/deb/changelog.Debian.gz
  DEPENDS ${CMAKE_BINARY_DIR}/deb/changelog.Debian VERBATIM)
add_custom_target(deb_docs ALL DEPENDS ${CMAKE_BINARY_DIR}/deb/changelog.Debian.gz)
function(ltap_deb_docs package)
  install(FILES ${CMAKE_SOURCE_DIR}/dist/deb/copyright ${CMAKE_BINARY_DIR}/deb/changelog.Debian.gz
    DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/${package} COMPONENT ${package} EXCLUDE_FROM_ALL)
  set(LTAP_DEB_PACKAGE ${package})
  configure_file(${CMAKE_SOURCE_DIR}/dist/deb/lintian-overrides.in ${CMAKE_BINARY_DIR}/deb/${package}.lintian-overrides @ONLY)
  install(FILES ${CMAKE_BINARY_DIR}/deb/${package}.lintian-overrides
    DESTINATION ${CMAKE_INSTALL_DATADIR}/lintian/overrides RENAME ${package}
    COMPONENT ${package} EXCLUDE_FROM_ALL)
endfunction()
foreach(c ${CPACK_COMPONENTS_ALL})
  ltap_deb_docs(${c})
endforeach()

include(CPack)

# install.cmake: what `cmake --install` puts under the prefix (GNU install
# dirs; DESTDIR works), and so what the Debian packages hold
# (cmake/package.cmake). Every rule has a COMPONENT, named after the Debian
# package it goes into:
#
#   ltap          bin/ltap; share/man/man1/ltap.1.gz, man7/ltap-lua.7.gz
#                 (docs/, pandoc); share/bash-completion/completions/ltap;
#                 share/doc/ltap/*.md (the manual) and examples/ (scripts)
#   libltap0      lib/ARCH/libltap.so.0, .so.0.2.0 (ltap links it)
#   libltap-dev   include/ltap.h, lib/ARCH/libltap.so, lib/ARCH/pkgconfig/ltap.pc,
#                 share/doc/libltap-dev/examples/embed_epoll.c
#   lua-ltap      lib/ARCH/lua/5.4/ltap.so (require "ltap"),
#                 share/doc/lua-ltap/examples/luv_count.lua
#
# Nothing is written outside the prefix: the completion goes to the prefix's
# share/, which bash-completion reads through XDG_DATA_DIRS
# (tests/live/install.test checks the whole list).

# --- libltap for embedders: the library, its header and pkg-config file,
# and the Lua module in Lua 5.4's cpath (Debian:
# /usr/lib/x86_64-linux-gnu/lua/5.4/ltap.so)
set(LTAP_LUA_CMOD_DIR ${CMAKE_INSTALL_LIBDIR}/lua/5.4 CACHE STRING "where require \"ltap\" finds ltap.so, under the prefix")
foreach(d LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${d}}")
    set(LTAP_PC_${d} "${CMAKE_INSTALL_${d}}")
  else()
    set(LTAP_PC_${d} "\${prefix}/${CMAKE_INSTALL_${d}}")
  endif()
endforeach()
file(RELATIVE_PATH LTAP_PC_TO_PREFIX ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
string(REGEX REPLACE "/$" "" LTAP_PC_TO_PREFIX "${LTAP_PC_TO_PREFIX}")
configure_file(${CMAKE_SOURCE_DIR}/cmake/ltap.pc.in ${CMAKE_BINARY_DIR}/ltap.pc @ONLY)
install(TARGETS ltap_shared LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} NAMELINK_SKIP COMPONENT libltap0)
install(TARGETS ltap_shared LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} NAMELINK_ONLY COMPONENT libltap-dev)
install(FILES ${CMAKE_SOURCE_DIR}/include/ltap.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT libltap-dev)
install(FILES ${CMAKE_BINARY_DIR}/ltap.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT libltap-dev)
install(TARGETS ltap_lua LIBRARY DESTINATION ${LTAP_LUA_CMOD_DIR} COMPONENT lua-ltap)
# an installed ltap finds its libltap under a prefix of its own too (/opt,
# a DESTDIR test), with no RPATH where the library dir is the system's
list(FIND CMAKE_C_IMPLICIT_LINK_DIRECTORIES "${CMAKE_INSTALL_FULL_LIBDIR}" LTAP_LIBDIR_IS_SYSTEM)
if(LTAP_LIBDIR_IS_SYSTEM EQUAL -1)
  file(RELATIVE_PATH LTAP_BIN_TO_LIB ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_FULL_LIBDIR})
  set_target_properties(ltap_installed PROPERTIES INSTALL_RPATH "$ORIGIN/${LTAP_BIN_TO_LIB}")
endif()

# --- the ltap command, its manual pages, completion, docs and examples
install(TARGETS ltap_installed RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT ltap)

# manual pages, gzipped as Debian installs them (docs/CMakeLists.txt); man
# reads them either way
foreach(page ${LTAP_MAN_PAGES})
  string(REGEX REPLACE ".*\\.([0-9])$" "\\1" section ${page})
  install(FILES ${page}.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man${section} COMPONENT ltap)
endforeach()

install(FILES ${CMAKE_SOURCE_DIR}/dist/ltap.bash-completion
  DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME ltap COMPONENT ltap)

# the manual as it is on the web; the manual pages point here for the
# topics they do not hold (docs/man/manpage.lua: docdir)
file(GLOB LTAP_DOCS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/docs/*.md)
install(FILES ${LTAP_DOCS} DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT ltap)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/examples/scripts/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples COMPONENT ltap)
# the embedding examples, with the package each needs
install(FILES ${CMAKE_SOURCE_DIR}/examples/embed_epoll.c
  DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/libltap-dev/examples COMPONENT libltap-dev)
install(FILES ${CMAKE_SOURCE_DIR}/examples/luv_count.lua
  DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/lua-ltap/examples COMPONENT lua-ltap)

# install.cmake: what `cmake --install` puts under the prefix (GNU install
# dirs; DESTDIR works), and so what the Debian package holds
# (cmake/package.cmake). Everything has a COMPONENT: the package is made of
# components, one Debian package each (now only "ltap"); a library, its
# header and pkg-config file, or the Lua module go into components of their
# own the same way (docs/building.md, "Installing").
#
#   bin/ltap
#   share/man/man1/ltap.1.gz, share/man/man7/ltap-lua.7.gz   (docs/, pandoc)
#   share/bash-completion/completions/ltap
#   share/doc/ltap/*.md                                      (the manual)
#   share/doc/ltap/examples/                                 (examples/)
#
# Nothing is written outside the prefix: the completion goes to the prefix's
# share/, which bash-completion reads through XDG_DATA_DIRS
# (tests/live/install.test checks the whole list).

install(TARGETS ltap RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT ltap)

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
install(DIRECTORY ${CMAKE_SOURCE_DIR}/examples/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples COMPONENT ltap)

# deb-strip.cmake: run by CPack (CPACK_PRE_BUILD_SCRIPTS) on the staged
# files before they are packed: strips every ELF file as Debian's dh_strip
# does, symbols and the .comment and .note sections (compiler versions);
# a shared library also loses what no dynamic link needs.
file(GLOB_RECURSE files LIST_DIRECTORIES false "${CPACK_TEMPORARY_DIRECTORY}/*")
foreach(f ${files})
  if(IS_SYMLINK "${f}")
    continue()
  endif()
  file(READ "${f}" magic LIMIT 4 HEX)
  if(NOT magic STREQUAL "7f454c46")
    continue()
  endif()
  set(args --remove-section=.comment --remove-section=.note)
  if(f MATCHES "\\.so(\\.[0-9]+)*$")
    list(APPEND args --strip-unneeded)
  endif()
  execute_process(COMMAND strip ${args} "${f}" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "deb-strip.cmake: cannot strip ${f}")
  endif()
endforeach()

# deb-post.cmake: run by CPack (CPACK_POST_BUILD_SCRIPTS) on the packages it
# made, to finish them as debhelper would: a package with a shared library
# in the loader's directories gets libc's ldconfig trigger ("activate-noawait
# ldconfig", which lintian requires) instead of the postinst and postrm
# CPack writes to call ldconfig itself (lintian: maintscript-calls-ldconfig);
# every package gets dpkg's Installed-Size.
find_program(DPKG_DEB dpkg-deb REQUIRED)
foreach(deb ${CPACK_PACKAGE_FILES})
  set(dir "${deb}.d")
  file(REMOVE_RECURSE "${dir}")
  execute_process(COMMAND ${DPKG_DEB} -R "${deb}" "${dir}" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "deb-post.cmake: cannot unpack ${deb}")
  endif()
  set(changed 0)
  foreach(script postinst postrm)
    if(EXISTS "${dir}/DEBIAN/${script}")
      file(READ "${dir}/DEBIAN/${script}" text)
      # only CPack's own: ldconfig and boilerplate
      string(REGEX REPLACE "#![^\n]*\n|set -e|if \\[ \"\\$1\" = \"[a-z]+\" \\]; then|ldconfig|fi|[ \t\n]" "" rest "${text}")
      if(rest STREQUAL "" AND text MATCHES "ldconfig")
        file(REMOVE "${dir}/DEBIAN/${script}")
        set(changed 1)
      endif()
    endif()
  endforeach()
  if(changed)
    file(WRITE "${dir}/DEBIAN/triggers" "activate-noawait ldconfig\n")
  endif()
  # Installed-Size as dpkg-gencontrol counts it: a KiB (rounded up) per
  # regular file, one per directory (the top one too) and symlink. CPack
  # counts a symlink at its target's size: libltap0 said 1655 kB for 830 kB
  # of library.
  file(GLOB_RECURSE entries LIST_DIRECTORIES true "${dir}/*")
  set(kib 1)
  foreach(f ${entries})
    file(RELATIVE_PATH rel "${dir}" "${f}")
    if(rel MATCHES "^DEBIAN(/|$)")
      continue()
    elseif(IS_SYMLINK "${f}" OR IS_DIRECTORY "${f}")
      math(EXPR kib "${kib} + 1")
    else()
      file(SIZE "${f}" size)
      math(EXPR kib "${kib} + (${size} + 1023) / 1024")
    endif()
  endforeach()
  file(READ "${dir}/DEBIAN/control" control)
  string(REGEX MATCH "\nInstalled-Size: ([0-9]+)" had "${control}")
  if(NOT CMAKE_MATCH_1 STREQUAL kib)
    string(REGEX REPLACE "\nInstalled-Size: [0-9]+" "\nInstalled-Size: ${kib}" control "${control}")
    file(WRITE "${dir}/DEBIAN/control" "${control}")
    set(changed 1)
  endif()
  if(changed)
    execute_process(COMMAND ${DPKG_DEB} --root-owner-group -Zxz --build "${dir}" "${deb}"
      OUTPUT_QUIET RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "deb-post.cmake: cannot pack ${deb} again")
    endif()
  endif()
  file(REMOVE_RECURSE "${dir}")
endforeach()

# deb-post.cmake: run by CPack (CPACK_POST_BUILD_SCRIPTS) on the packages it
# made, to finish them as debhelper would: a package with a shared library
# in the loader's directories gets libc's ldconfig trigger ("activate-noawait
# ldconfig", which lintian requires) instead of the postinst and postrm
# CPack writes to call ldconfig itself (lintian: maintscript-calls-ldconfig).
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
    execute_process(COMMAND ${DPKG_DEB} --root-owner-group -Zxz --build "${dir}" "${deb}"
      OUTPUT_QUIET RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "deb-post.cmake: cannot pack ${deb} again")
    endif()
  endif()
  file(REMOVE_RECURSE "${dir}")
endforeach()

# CPACK_PROJECT_CONFIG_FILE of cmake/packaging.cmake: cpack reads it before it makes each
# package. For the .deb it sets Depends to what dpkg-shlibdeps finds for the ELF files that the
# package installs (the executable and the torch plug-in, listed by the build in
# CPACK_PC_DEB_ELF_LIST): the Debian packages of the shared libraries they link, as CPack's
# CPACK_DEBIAN_PACKAGE_SHLIBDEPS would, without its `file` run over every installed file.
# DEB_HOST_ARCH in the environment names a cross build's architecture to dpkg-shlibdeps.
if(NOT CPACK_GENERATOR STREQUAL "DEB")
    return()
endif()
find_program(PC_SHLIBDEPS dpkg-shlibdeps)
if(NOT PC_SHLIBDEPS)
    message(FATAL_ERROR "cpack -G DEB needs dpkg-shlibdeps for the package's Depends: install "
                        "Debian's dpkg-dev (tools/install-deps.sh does)")
endif()
file(STRINGS "${CPACK_PC_DEB_ELF_LIST}" pc_elf_files)
# dpkg-shlibdeps wants a debian/control in its working folder; an empty one does
set(pc_dir "${CPACK_PACKAGE_DIRECTORY}/_CPack_Packages/pc-shlibdeps")
file(REMOVE_RECURSE "${pc_dir}")
file(WRITE "${pc_dir}/debian/control" "")
execute_process(COMMAND ${CMAKE_COMMAND} -E env LC_ALL=C ${PC_SHLIBDEPS} --ignore-missing-info -O
                        ${pc_elf_files}
                WORKING_DIRECTORY "${pc_dir}"
                OUTPUT_VARIABLE pc_out
                ERROR_VARIABLE pc_err
                RESULT_VARIABLE pc_rc
                OUTPUT_STRIP_TRAILING_WHITESPACE)
file(REMOVE_RECURSE "${pc_dir}")
if(NOT pc_rc EQUAL 0 OR NOT pc_out MATCHES "shlibs:Depends=")
    message(FATAL_ERROR "dpkg-shlibdeps ${pc_elf_files} failed (exit ${pc_rc}): ${pc_err}")
endif()
string(REGEX REPLACE "^.*shlibs:Depends=" "" pc_depends "${pc_out}")
if(CPACK_DEBIAN_PACKAGE_DEPENDS)
    set(CPACK_DEBIAN_PACKAGE_DEPENDS "${CPACK_DEBIAN_PACKAGE_DEPENDS}, ${pc_depends}")
else()
    set(CPACK_DEBIAN_PACKAGE_DEPENDS "${pc_depends}")
endif()

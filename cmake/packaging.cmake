# Packages of what `cmake --install` installs (CMakeLists.txt, "Install"), made with cpack in the
# build directory:
#   cpack                 both kinds (those whose tools are here)
#   cpack -G DEB          precheck_<version>_<arch>.deb (Debian, Ubuntu), needs dpkg-deb and,
#                         for its Depends, dpkg-shlibdeps (dpkg-dev)
#   cpack -G RPM          precheck-<version>-1.<arch>.rpm (openEuler, EulerOS, Fedora), needs
#                         rpmbuild (Debian's rpm package)
# The dependencies are not written here: the .deb's come from the Debian packages of the
# shared libraries the binary links (dpkg-shlibdeps: libc6, libgomp1, libopenblas0 or
# another libblas, libyaml-0-2), the .rpm's from their sonames (rpmbuild's automatic
# requirements: libopenblas.so.0, libyaml-0.so.2, libgomp.so.1, ...), which openEuler's
# openblas, libyaml and libgomp packages provide. A cross build (cmake/aarch64-linux-gnu.cmake)
# makes packages for its target architecture.
set(CPACK_PACKAGE_NAME precheck)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "precheck")
set(PRECHECK_PACKAGE_CONTACT "precheck developers"
    CACHE STRING "The maintainer named in the packages (Name <address> for a distribution)")
set(CPACK_PACKAGE_CONTACT "${PRECHECK_PACKAGE_CONTACT}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "find the PyTorch operators that compute wrongly on an accelerator")
set(CPACK_PACKAGE_DESCRIPTION
    "precheck replays every PyTorch API call of an msprobe dump on the device under test and \
on a high-precision CPU benchmark, compares every output and input gradient, and writes the \
CSV files of msprobe's API accuracy pre-check (msprobe ${PC_MSPROBE_VERSION}). The reference \
device needs no accelerator; the torch backend plug-in runs each API through the user's own \
PyTorch (CUDA, Ascend NPU).")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_GENERATOR)
find_program(PC_DPKG_DEB dpkg-deb)
find_program(PC_RPMBUILD rpmbuild)
if(PC_DPKG_DEB)
    list(APPEND CPACK_GENERATOR DEB)
endif()
if(PC_RPMBUILD)
    list(APPEND CPACK_GENERATOR RPM)
endif()

# Debian
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
# Depends from dpkg-shlibdeps over the package's two ELF files (cmake/cpack_deb_depends.cmake,
# which cpack reads before it makes each package: CPACK_PROJECT_CONFIG_FILE). CPack's own
# CPACK_DEBIAN_PACKAGE_SHLIBDEPS finds them by running `file` on every installed file, one
# process each: ~450 files with the examples, 20-30 s of every .deb.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS OFF)
set(PC_DEB_ELF_FILES "$<TARGET_FILE:precheck>")
if(PC_HAVE_TORCH_PLUGIN)
    string(APPEND PC_DEB_ELF_FILES "\n$<TARGET_FILE:precheck_torch>")
endif()
set(CPACK_PC_DEB_ELF_LIST ${CMAKE_BINARY_DIR}/pc_deb_elf_files.txt)
file(GENERATE OUTPUT ${CPACK_PC_DEB_ELF_LIST} CONTENT "${PC_DEB_ELF_FILES}\n")
set(CPACK_PROJECT_CONFIG_FILE ${CMAKE_CURRENT_LIST_DIR}/cpack_deb_depends.cmake)
# the torch backend embeds the user's Python (>= 3.8 with a shared libpython) and its PyTorch
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "python3")
# the long description under CPACK_PACKAGE_DESCRIPTION_SUMMARY's line
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "${CPACK_PACKAGE_DESCRIPTION}")

# RPM
set(CPACK_RPM_FILE_NAME RPM-DEFAULT)
set(CPACK_RPM_PACKAGE_GROUP "Development/Tools")
set(CPACK_RPM_PACKAGE_AUTOREQ ON)
set(CPACK_RPM_PACKAGE_SUGGESTS "python3")
# directories the system owns: not claimed by the package
set(CPACK_RPM_EXCLUDE_FROM_AUTO_FILELIST_ADDITION /usr/share/bash-completion
    /usr/share/bash-completion/completions /usr/share/man /usr/share/man/man1)

if(CMAKE_CROSSCOMPILING)
    # the package architecture of the target, not of the machine that builds it
    if(CMAKE_SYSTEM_PROCESSOR STREQUAL "aarch64")
        set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE arm64)
    elseif(CMAKE_SYSTEM_PROCESSOR STREQUAL "x86_64")
        set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE amd64)
    endif()
    set(CPACK_RPM_PACKAGE_ARCHITECTURE ${CMAKE_SYSTEM_PROCESSOR})
endif()

include(CPack)

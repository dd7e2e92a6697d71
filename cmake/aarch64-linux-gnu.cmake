# Cross build for 64-bit Arm (Kunpeng and other aarch64 Linux hosts) on a Debian x86-64 machine:
#   cmake -S . -B build-aarch64 --toolchain cmake/aarch64-linux-gnu.cmake
# Debian's cross compiler (gcc-aarch64-linux-gnu) links against Debian's arm64 packages installed
# side by side with the host's (multiarch: dpkg --add-architecture arm64; libopenblas-dev:arm64
# libyaml-dev:arm64 ...), whose libraries live in /usr/lib/aarch64-linux-gnu. ctest runs the test
# executables through qemu-user (CMAKE_CROSSCOMPILING_EMULATOR); tests/aarch64.sh is the job.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64)
# find_library and find_path look only at the arm64 libraries; programs (pkg-config) are the host's
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
# pkg-config reads the arm64 .pc files only (openblas.pc of libopenblas-dev:arm64)
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)

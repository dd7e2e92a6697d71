# The LLaMA-shaped dump generator (bench/llama_dump.c, declared in llama_dump.h), compiled once
# into a static library that the benches and the tests (tests/runner) link; included by both
# bench/CMakeLists.txt and tests/CMakeLists.txt, whichever is configured first defines it.
if(NOT TARGET pc_bench_llama)
    add_library(pc_bench_llama STATIC ${CMAKE_CURRENT_LIST_DIR}/llama_dump.c)
    target_include_directories(pc_bench_llama PUBLIC ${CMAKE_CURRENT_LIST_DIR})
endif()

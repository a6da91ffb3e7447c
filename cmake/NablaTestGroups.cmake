# nabla_add_test_groups(<target> [TIMEOUT <seconds>]): registers a GoogleTest
# program with CTest as groups of at most NABLA_TEST_GROUP_SIZE tests of one
# suite each, instead of gtest_discover_tests' one process per test.
#
# Why: starting nabla_tests costs about 40 ms (loading its libraries, gtest
# registering ~6800 tests, OpenBLAS's threads), which was a third of the whole
# ctest run when each test had a process of its own. A group runs its tests in
# one process, as `nabla_tests` itself does, and CTest still spreads the groups
# over the cores. A group's CTest name is its suite (Suite, or Suite#2, #3, ...
# when the suite has more tests than a group holds), so `ctest -R Suite` works;
# run one test with the program's own --gtest_filter.
#
# Like gtest_discover_tests, the list is read from the program after each
# build (--gtest_list_tests), so new tests need no CMake change.
set(NABLA_TEST_GROUP_SIZE 30 CACHE STRING "Tests of one suite run by one CTest entry")
set(_nabla_test_groups_script ${CMAKE_CURRENT_LIST_DIR}/NablaTestGroupsWrite.cmake)

function(nabla_add_test_groups target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "TIMEOUT" "")
  if(NOT arg_TIMEOUT)
    set(arg_TIMEOUT 1500)  # CTest's own default
  endif()
  set(groups_file ${CMAKE_CURRENT_BINARY_DIR}/${target}_groups.cmake)
  set(include_file ${CMAKE_CURRENT_BINARY_DIR}/${target}_groups_include.cmake)
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND ${CMAKE_COMMAND} -D EXE=$<TARGET_FILE:${target}> -D OUT=${groups_file}
            -D WORKDIR=${CMAKE_CURRENT_BINARY_DIR} -D GROUP_SIZE=${NABLA_TEST_GROUP_SIZE}
            -D TIMEOUT=${arg_TIMEOUT} -P ${_nabla_test_groups_script}
    BYPRODUCTS ${groups_file}
    VERBATIM)
  file(WRITE ${include_file}
    "if(EXISTS \"${groups_file}\")\n"
    "  include(\"${groups_file}\")\n"
    "else()\n"
    "  add_test(${target}_NOT_BUILT ${target}_NOT_BUILT)\n"
    "endif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${include_file})
endfunction()

# Script mode (cmake -P), run after a test program is built: lists its tests
# and writes the CTest file of nabla_add_test_groups (NablaTestGroups.cmake).
# In: EXE, OUT, WORKDIR, GROUP_SIZE, TIMEOUT.
execute_process(COMMAND ${EXE} --gtest_list_tests
  OUTPUT_VARIABLE listing ERROR_VARIABLE errors RESULT_VARIABLE rc TIMEOUT 120)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${EXE} --gtest_list_tests failed (${rc}):\n${errors}${listing}")
endif()
# Drop the "  # GetParam() = ..." comments (they may hold any character), then
# read the listing line by line: "Suite." starts a suite, "  Name" is a test.
string(REGEX REPLACE "[ ]*#[^\n]*" "" listing "${listing}")
string(REPLACE ";" "" listing "${listing}")
string(REPLACE "\n" ";" lines "${listing}")
set(script "# Written by NablaTestGroupsWrite.cmake from ${EXE} --gtest_list_tests\n")
set(suite "")
set(names "")

macro(flush_suite)
  list(LENGTH names count)
  if(count GREATER 0)
    math(EXPR groups "(${count} + ${GROUP_SIZE} - 1) / ${GROUP_SIZE}")
    foreach(g RANGE 1 ${groups})
      math(EXPR first "(${g} - 1) * ${GROUP_SIZE}")
      list(SUBLIST names ${first} ${GROUP_SIZE} chunk)
      list(TRANSFORM chunk PREPEND "${suite}.")
      list(JOIN chunk ":" filter)
      if(groups EQUAL 1)
        set(name "${suite}")
      else()
        set(name "${suite}#${g}")
      endif()
      string(APPEND script
        "add_test([==[${name}]==] [==[${EXE}]==] [==[--gtest_filter=${filter}]==])\n"
        "set_tests_properties([==[${name}]==] PROPERTIES WORKING_DIRECTORY [==[${WORKDIR}]==] TIMEOUT ${TIMEOUT})\n")
    endforeach()
  endif()
  set(names "")
endmacro()

foreach(line IN LISTS lines)
  if(line MATCHES "^([^ ].*)\\.$")
    flush_suite()
    set(suite "${CMAKE_MATCH_1}")
  elseif(line MATCHES "^  +([^ ]+)$" AND NOT suite STREQUAL "")
    list(APPEND names "${CMAKE_MATCH_1}")
  endif()
endforeach()
flush_suite()
file(WRITE "${OUT}.tmp" "${script}")
file(RENAME "${OUT}.tmp" "${OUT}")

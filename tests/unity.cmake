# Test files compiled on their own, outside the unity batches of nabla_tests
# and nabla_sanitize_tests (tests/CMakeLists.txt, fuzz/CMakeLists.txt). Every
# test file shares a batch today: file-local helpers have distinct names, and
# helpers used by several files live in tests/support/. A new test file whose
# helper collides with another file's fails to compile with "redefinition of
# ..." or an ambiguous call: give the helper a distinct name or move it to
# tests/support/ (the last resort: list the file here).
set(NABLA_TESTS_OUTSIDE_UNITY
)

# nabla_unity_test_target(<target>): unity batches of 16 files for a test
# program, the files above excepted.
function(nabla_unity_test_target target)
  set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 16)
  if(NABLA_TESTS_OUTSIDE_UNITY)
    set_source_files_properties(${NABLA_TESTS_OUTSIDE_UNITY} TARGET_DIRECTORY ${target}
      PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
  endif()
endfunction()

# Test files compiled on their own, outside the unity batches of nabla_tests
# and nabla_sanitize_tests (tests/CMakeLists.txt, fuzz/CMakeLists.txt): each
# defines a file-local helper (values, temp_path, error_of, kCl, Model, ...)
# under the same name as another test file's, which one batch cannot hold.
# Giving such a helper a distinct name, or moving it to tests/support/, takes
# its file off this list. A new test file that collides fails to compile with
# "redefinition of ...": rename the helper, or add the file here.
set(NABLA_TESTS_OUTSIDE_UNITY
  ${PROJECT_SOURCE_DIR}/tests/accel/long_reduction_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/core/errors_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/cuda/cuda_graph_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/cuda/loading_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/cuda/runtime_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/data/dataset_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/data/device_prefetcher_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/data/idx_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/data/npy_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/data/npz_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/data/transforms_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/examples/examples_opencl_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/graph/compile_training_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/graph/gradients_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/graph/initializers_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/graph/op_consistency_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/graph/passes/variable_writes_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/graph/placement_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/graph/serialize_control_flow_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/graph/serialize_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/graph/session_device_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/graph/session_profile_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/io/safetensors_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/io/training_state_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/nn/layer_init_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/nn/module_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/opencl/indexing_opencl_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/opencl/random_opencl_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/opencl/row_kernels_opencl_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/opencl/runtime_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/ops/closeness_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/ops/conv_errors_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/ops/conv_onednn_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/ops/conv_relu_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/ops/edge_values_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/ops/error_inputs_binary_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/ops/error_inputs_factory_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/ops/error_inputs_indexing_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/ops/error_inputs_nn_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/ops/error_inputs_unary_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/ops/indexing_errors_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/ops/indexing_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/ops/join_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/ops/kernel_registry_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/ops/loss_behavior_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/ops/op_table_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/ops/optimizer_update_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/tools/cli_run_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/tools/cli_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/tools/nabla_train_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/tools/train_config_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/train/callbacks_test.cpp
  ${PROJECT_SOURCE_DIR}/tests/train/metrics_test.cpp
)

# nabla_unity_test_target(<target>): unity batches of 16 files for a test
# program, the files above excepted.
function(nabla_unity_test_target target)
  set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 16)
  set_source_files_properties(${NABLA_TESTS_OUTSIDE_UNITY} TARGET_DIRECTORY ${target}
    PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
endfunction()

// The pretrained weights shipped with nabla (models/ in the source tree,
// <prefix>/share/nabla/models when installed): finding them.
#pragma once
#include <string>

namespace nabla::zoo {

// The file of the shipped weights called `name` ("fashion_cnn" ->
// fashion_cnn.safetensors): in the directory $NABLA_MODELS_DIR when set, else
// the installed models directory, else the source tree's models/ (a build
// that is not installed). nabla::Error listing the places looked in when none
// has it.
std::string pretrained_path(const std::string& name);

}  // namespace nabla::zoo

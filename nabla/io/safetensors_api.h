// load_safetensors under the name of the API the user called, for readers
// built on it (load_checkpoint): its errors then name that API, not
// "load_safetensors". Internal to nabla/io.
#pragma once
#include <string>

#include "nabla/io/safetensors.h"

namespace nabla::io::detail {

TensorDict load_safetensors_as(const std::string& api, const std::string& path, Metadata* metadata);

}  // namespace nabla::io::detail

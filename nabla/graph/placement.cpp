// Placement strings: "[rank:R/]device".
#include "nabla/graph/placement.h"

#include "nabla/core/error.h"

namespace nabla::graph {

namespace {

constexpr const char* kForm = "expected \"device\" or \"rank:R/device\", e.g. \"opencl:0\" or \"rank:1/cpu\"";

}  // namespace

Placement parse_placement(const std::string& spec, const std::string& api) {
  Placement p;
  std::string device = spec;
  if (spec.rfind("rank:", 0) == 0) {
    const std::size_t slash = spec.find('/');
    NABLA_CHECK(slash != std::string::npos, api, ": placement '", spec, "' names a rank but no device; ", kForm);
    const std::string rank = spec.substr(5, slash - 5);
    NABLA_CHECK(!rank.empty() && rank.size() <= 6 && rank.find_first_not_of("0123456789") == std::string::npos, api,
                ": placement '", spec, "' has a bad rank '", rank, "'; ", kForm);
    p.rank = std::stoi(rank);
    device = spec.substr(slash + 1);
  }
  NABLA_CHECK(!device.empty(), api, ": placement '", spec, "' has no device; ", kForm);
  try {
    p.device = Device(device);
  } catch (const Error& e) {
    fail(api, ": placement '", spec, "': ", e.what());
  }
  return p;
}

std::string merge_placement(const std::string& outer, const std::string& inner) {
  if (inner.empty() || outer.empty() || inner.rfind("rank:", 0) == 0) return inner;
  if (outer.rfind("rank:", 0) != 0) return inner;
  return outer.substr(0, outer.find('/') + 1) + inner;
}

std::string placement_text(const Placement& p) {
  std::string d = p.device.str();
  return p.rank == 0 ? d : "rank:" + std::to_string(p.rank) + "/" + d;
}

}  // namespace nabla::graph

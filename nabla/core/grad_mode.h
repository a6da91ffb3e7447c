// Whether ops record autograd history on this thread (PyTorch's GradMode).
#pragma once

namespace nabla {

struct GradMode {
  static bool is_enabled();
  static void set_enabled(bool enabled);
};

// Disables gradient recording for its lifetime (torch::NoGradGuard).
class NoGradGuard {
 public:
  NoGradGuard() : prev_(GradMode::is_enabled()) { GradMode::set_enabled(false); }
  ~NoGradGuard() { GradMode::set_enabled(prev_); }
  NoGradGuard(const NoGradGuard&) = delete;
  NoGradGuard& operator=(const NoGradGuard&) = delete;
 private:
  bool prev_;
};

// Sets gradient recording to `enabled` for its lifetime.
class AutoGradMode {
 public:
  explicit AutoGradMode(bool enabled) : prev_(GradMode::is_enabled()) { GradMode::set_enabled(enabled); }
  ~AutoGradMode() { GradMode::set_enabled(prev_); }
  AutoGradMode(const AutoGradMode&) = delete;
  AutoGradMode& operator=(const AutoGradMode&) = delete;
 private:
  bool prev_;
};

}  // namespace nabla

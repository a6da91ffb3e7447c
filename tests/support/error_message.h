// Helpers for tests of error messages: run a callable, capture the
// nabla::Error it raises, and check that the message names what it should.
#pragma once
#include <gtest/gtest.h>

#include <initializer_list>
#include <string>

#include "nabla/core/error.h"

namespace nabla::testing {

// What error_of returns when the callable raised nothing.
inline constexpr const char* kNoError = "(no error)";

// The message of the nabla::Error `f` raises, or kNoError.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return kNoError;
}

// Each of `parts` occurs in `msg`.
inline void expect_error(const std::string& msg, std::initializer_list<const char*> parts) {
  for (const char* p : parts) EXPECT_NE(msg.find(p), std::string::npos) << "missing '" << p << "' in: " << msg;
}

}  // namespace nabla::testing

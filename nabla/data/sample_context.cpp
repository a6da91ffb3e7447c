#include "nabla/data/sample_context.h"

namespace nabla::data {
namespace {
thread_local SampleContext t_context;
}

SampleContext current_sample_context() { return t_context; }

SampleContextGuard::SampleContextGuard(SampleContext context) : previous_(t_context) { t_context = context; }
SampleContextGuard::~SampleContextGuard() { t_context = previous_; }

}  // namespace nabla::data

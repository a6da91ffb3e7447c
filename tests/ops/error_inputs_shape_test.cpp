// Error inputs of the shape ops: view/reshape, permute/transpose, slice/narrow,
// select, expand, unfold, clone, flip, roll, tril/triu and the gradient-only
// slice_backward/unfold_backward (tests/support/error_inputs.h).
#include "support/error_inputs.h"

namespace nabla::testing {
namespace {

NABLA_ERROR_INPUTS({
    {"view", "view", "a shape of another element count", [] { view(zeros({2, 3}), {4}); },
     {"shape [4] is invalid for input of size 6"}},
    {"view", "view", "two -1 dims", [] { view(zeros({2, 3}), {-1, -1}); }, {"only one dimension can be -1"}},
    {"view", "view", "a transposed (non-viewable) layout", [] { view(zeros({2, 3}).t(), {6}); },
     {"cannot view a tensor of shape [3, 2]", "reshape"}},
    {"view", "reshape", "a negative size", [] { reshape(zeros({2, 3}), {-2, 3}); }, {"invalid size -2"}},
    {"view", "view", "an undefined input", [] { view(Tensor(), {1}); }, {"undefined tensor"}},

    {"permute", "permute", "too few dims", [] { permute(zeros({2, 3}), {0}); }, {"[0]", "2"}},
    {"permute", "permute", "a repeated dim", [] { permute(zeros({2, 3}), {1, 1}); }, {"dim 1 repeats"}},
    {"permute", "permute", "a dim out of range", [] { permute(zeros({2, 3}), {0, 2}); },
     {"dim 2 is out of range", "[-2, 1]"}},
    {"permute", "transpose", "a dim out of range", [] { transpose(zeros({2, 3}), 0, 5); },
     {"dim 5 is out of range"}},

    {"slice", "slice", "a 0-dim tensor", [] { slice(zeros({}), 0, 0, 1); }, {"cannot slice a 0-dim tensor"}},
    {"slice", "slice", "a dim out of range", [] { slice(zeros({2, 3}), 2, 0, 1); }, {"dim 2 is out of range"}},
    {"slice", "slice", "a zero step", [] { slice(zeros({4}), 0, 0, 4, 0); }, {"step must be positive, got 0"}},
    {"slice", "narrow", "a length past the end", [] { narrow(zeros({4}), 0, 2, 3); },
     {"start 2 and length 3", "size 4"}},
    {"slice", "Tensor::slice", "an undefined tensor", [] { Tensor().slice(0, 0, 1); }, {"undefined tensor"}},

    {"select", "select", "a 0-dim tensor", [] { select(zeros({}), 0, 0); }, {"cannot index a 0-dim tensor"}},
    {"select", "select", "an index out of bounds", [] { select(zeros({2, 3}), 1, 3); },
     {"index 3 is out of bounds for dim 1 of size 3"}},
    {"select", "select", "a negative index out of bounds", [] { select(zeros({2, 3}), 0, -3); },
     {"index -3 is out of bounds for dim 0 of size 2"}},
    {"select", "select", "a dim out of range", [] { select(zeros({2, 3}), -3, 0); }, {"dim -3 is out of range"}},

    {"expand", "expand", "fewer target dims", [] { expand(zeros({2, 3}), {3}); },
     {"the target [3] has fewer dims than the tensor's shape [2, 3]"}},
    {"expand", "expand", "a non-1 dim to another size", [] { expand(zeros({2}), {2, 3}); },
     {"cannot expand shape [2] to [2, 3]"}},
    {"expand", "expand", "-1 for a new leading dim", [] { expand(zeros({2}), {-1, 2}); },
     {"-1 is not allowed for a new leading dim"}},
    {"expand", "expand", "a shape whose element count overflows int64",
     [] { expand(zeros({1, 1}), {int64_t(1) << 62, 4}); }, {"more elements than fit in int64"}},
    {"expand", "Tensor::expand_as", "an undefined target", [] { zeros({2}).expand_as(Tensor()); },
     {"undefined tensor"}},

    {"unfold", "unfold", "a window larger than the dim", [] { unfold(zeros({5}), 0, 6, 1); },
     {"window size 6 must be in [0, 5], the size of dim 0"}},
    {"unfold", "unfold", "a zero step", [] { unfold(zeros({5}), 0, 2, 0); }, {"step must be > 0, got 0"}},
    {"unfold", "unfold", "a dim out of range", [] { unfold(zeros({5}), 1, 2, 1); }, {"dim 1 is out of range"}},
    {"unfold", "unfold", "a negative window", [] { unfold(zeros({5}), 0, -1, 1); }, {"window size -1 must be in [0, 5]"}},

    {"clone", "clone", "an undefined input", [] { clone(Tensor()); }, {"undefined tensor"}},
    {"clone", "clone", "a copy of 2^50 elements", [] { clone(huge_view()); }, {"out of memory", "bytes"}},
    {"clone", "clone", "a copy whose size in bytes overflows", [] { clone(overflowing_view()); }, {"overflow"}},

    {"flip", "flip", "a dim out of range", [] { flip(zeros({2, 3}), {2}); }, {"dim 2 is out of range"}},
    {"flip", "flip", "a repeated dim", [] { flip(zeros({2, 3}), {1, -1}); }, {"dim 1 appears more than once"}},
    {"flip", "flip", "an undefined input", [] { flip(Tensor(), {0}); }, {"undefined tensor"}},
    {"flip", "flip", "a result of 2^50 elements", [] { flip(huge_view(), {0}); }, {"out of memory"}},

    {"roll", "roll", "more shifts than dims", [] { roll(zeros({2, 3}), {1, 2}, {0}); }, {"2 shifts", "1 dims"}},
    {"roll", "roll", "two shifts without dims", [] { roll(zeros({2, 3}), {1, 2}); },
     {"without dims, expected exactly one shift"}},
    {"roll", "roll", "a dim out of range", [] { roll(zeros({2, 3}), {1}, {2}); }, {"dim 2 is out of range"}},

    {"tril", "tril", "a 1-D input", [] { tril(zeros({3}), 0); }, {"at least 2 dims", "[3]"}},
    {"tril", "tril", "an undefined input", [] { tril(Tensor(), 0); }, {"undefined tensor"}},
    {"tril", "tril", "a result of 2^50 x 2 elements", [] { tril(huge_view({2}), 0); }, {"out of memory"}},
    {"triu", "triu", "a 0-dim input", [] { triu(zeros({}), 1); }, {"at least 2 dims", "[]"}},
    {"triu", "triu", "an undefined input", [] { triu(Tensor(), 0); }, {"undefined tensor"}},
    {"triu", "triu", "a result of 2^50 x 2 elements", [] { triu(huge_view({2}), 0); }, {"out of memory"}},

    // Public functions built on these entries read their argument's shape
    // first: an undefined one is named by them, not by Tensor::dim.
    {"view", "reshape", "an undefined input", [] { reshape(Tensor(), {1}); }, {"input 0 is an undefined tensor"}},
    {"view", "squeeze", "an undefined input", [] { squeeze(Tensor(), 0); }, {"input 0 is an undefined tensor"}},
    {"view", "unsqueeze", "an undefined input", [] { unsqueeze(Tensor(), 0); }, {"input 0 is an undefined tensor"}},
    {"view", "flatten", "an undefined input", [] { flatten(Tensor()); }, {"input 0 is an undefined tensor"}},
    {"view", "unflatten", "an undefined input", [] { unflatten(Tensor(), 0, {1}); }, {"input 0 is an undefined tensor"}},
    {"permute", "transpose", "an undefined input", [] { transpose(Tensor(), 0, 1); }, {"input 0 is an undefined tensor"}},
    {"slice", "narrow", "an undefined input", [] { narrow(Tensor(), 0, 0, 1); }, {"input 0 is an undefined tensor"}},
    {"slice", "slice", "an undefined input", [] { slice(Tensor(), 0, 0, 1); }, {"input 0 is an undefined tensor"}},
    {"expand", "expand", "an undefined input", [] { expand(Tensor(), {2}); }, {"input 0 is an undefined tensor"}},
    {"unfold", "unfold", "an undefined input", [] { unfold(Tensor(), 0, 1, 1); }, {"input 0 is an undefined tensor"}},
    {"clone", "contiguous", "an undefined input", [] { contiguous(Tensor()); }, {"input 0 is an undefined tensor"}},
    {"select", "select", "an undefined input", [] { select(Tensor(), 0, 0); }, {"input 0 is an undefined tensor"}},

    // Gradient-only ops: attributes come from a graph or an extension, so the op checks them.
    {"slice_backward", "slice_backward", "a gradient of another shape than the slice",
     [] { run_op("slice_backward", {zeros({3})}, {int64_t(0), int64_t(0), int64_t(2), int64_t(1), Shape{4}}); },
     {"grad of shape [3]", "expected [2]"}},
    {"slice_backward", "slice_backward", "a dim out of range",
     [] { run_op("slice_backward", {zeros({2})}, {int64_t(3), int64_t(0), int64_t(2), int64_t(1), Shape{4}}); },
     {"dim 3", "input_sizes [4]"}},
    {"slice_backward", "slice_backward", "a range past the input",
     [] { run_op("slice_backward", {zeros({2})}, {int64_t(0), int64_t(3), int64_t(5), int64_t(1), Shape{4}}); },
     {"[3, 5)", "size 4"}},
    {"unfold_backward", "unfold_backward", "a gradient of another shape than the windows",
     [] { run_op("unfold_backward", {zeros({2, 2})}, {int64_t(0), int64_t(2), int64_t(1), Shape{5}}); },
     {"grad of shape [2, 2]", "expected [4, 2]"}},
    {"unfold_backward", "unfold_backward", "a dim out of range",
     [] { run_op("unfold_backward", {zeros({4, 2})}, {int64_t(1), int64_t(2), int64_t(1), Shape{5}}); },
     {"dim 1", "input_sizes [5]"}},
    {"unfold_backward", "unfold_backward", "a zero step",
     [] { run_op("unfold_backward", {zeros({4, 2})}, {int64_t(0), int64_t(2), int64_t(0), Shape{5}}); },
     {"step must be > 0"}},
});

}  // namespace
}  // namespace nabla::testing

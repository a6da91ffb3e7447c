// The NHWC data format of the conv/pool/batch-norm layers (data_format.h).
#include "nabla/nn/data_format.h"

#include "nabla/ops/shape.h"

namespace nabla::nn {

std::string checked_data_format(const std::string& format, const char* layer) {
  if (format == "NCHW" || format == "channels_first") return "NCHW";
  if (format == "NHWC" || format == "channels_last") return "NHWC";
  fail(layer, ": data_format must be \"NCHW\" or \"NHWC\" (Keras's \"channels_first\" / \"channels_last\"), got \"",
       format, "\"");
}

Tensor nchw_view_of_nhwc(const Tensor& x, const char* layer) {
  NABLA_CHECK(x.defined(), layer, ": input is an undefined tensor");
  NABLA_CHECK(x.dim() == 3 || x.dim() == 4, layer, ": data_format \"NHWC\" expects input [N, H, W, C] or [H, W, C], "
              "got shape ", x.sizes());
  return x.dim() == 4 ? permute(x, {0, 3, 1, 2}) : permute(x, {2, 0, 1});
}

Tensor nhwc_view_of_nchw(const Tensor& y) { return y.dim() == 4 ? permute(y, {0, 2, 3, 1}) : permute(y, {1, 2, 0}); }

}  // namespace nabla::nn

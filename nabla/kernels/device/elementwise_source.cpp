#include "nabla/kernels/device/elementwise_source.h"

#include <cctype>
#include <string_view>
#include <vector>

#include "nabla/core/error.h"

namespace nabla::device_c {
namespace {

// Helpers in device C, for the kernel's compute type T (NB_FLOAT: whether T is
// floating). Integer division by zero cannot raise on a device: it gives 0
// (docs/devices.md); the CPU raises an Error.
constexpr const char* kHelpers = R"DC(
NB_FN T nb_clamp(T x, T lo, T hi) {
  if (x < lo) x = lo;
  if (x > hi) x = hi;
  return x;
}
#if NB_FLOAT
NB_FN T nb_floordiv(T x, T y) {
  if (y == (T)0) return x / y;
  T mod = NB_FMOD(x, y);
  T div = (x - mod) / y;
  if (mod != (T)0 && (y < (T)0) != (mod < (T)0)) div -= (T)1;
  if (div == (T)0) return NB_COPYSIGN((T)0, x / y);
  T fl = NB_FLOOR(div);
  return div - fl > (T)0.5 ? fl + (T)1 : fl;
}
NB_FN T nb_remainder(T x, T y) {
  T r = NB_FMOD(x, y);
  return (r != (T)0 && ((r < (T)0) != (y < (T)0))) ? r + y : r;
}
#else
NB_FN T nb_idiv(T x, T y) {
  if (y == (T)0) return (T)0;
  if ((T)-1 < (T)0 && y == (T)-1) return (T)(-x);
  return (T)(x / y);
}
NB_FN T nb_ifloordiv(T x, T y) {
  T q = nb_idiv(x, y);
  T r = (T)(x - q * y);
  return (y != (T)0 && r != (T)0 && ((x < (T)0) != (y < (T)0))) ? (T)(q - 1) : q;
}
NB_FN T nb_iremainder(T x, T y) {
  if (y == (T)0) return (T)0;
  T r = (T)(x - nb_idiv(x, y) * y);
  return (r != (T)0 && ((r < (T)0) != (y < (T)0))) ? (T)(r + y) : r;
}
NB_FN T nb_ipow(T x, T y) {
  if (y < (T)0) return x == (T)1 ? (T)1 : x == (T)-1 ? (((T)(-y) % 2) ? (T)-1 : (T)1) : (T)0;
  T r = (T)1;
  for (T base = x, e = y; e > (T)0; e >>= 1, base = (T)(base * base))
    if (e & 1) r = (T)(r * base);
  return r;
}
#endif
)DC";

constexpr const char* kNames[] = {"x", "y", "z"};

const char* checked_type(DType t) {
  const char* name = type_name(t);
  NABLA_CHECK(name != nullptr, "device kernels: no device C type for ", t);
  return name;
}

// Unravels `var` over sizes `<prefix>size<d>` into the position `pos`
// (nothing at rank 0).
std::string unravel(const char* var, const char* prefix, std::size_t rank, const char* pos) {
  if (rank == 0) return "";
  std::string s = std::string("    long rest_") + prefix + " = " + var + ";\n";
  for (std::size_t d = rank; d-- > 0;) {
    const std::string sz = std::string(prefix) + "size" + std::to_string(d);
    const std::string st = std::string(prefix) + "st" + std::to_string(d);
    if (d == 0) {
      s += std::string("    ") + pos + " += rest_" + prefix + " * " + st + ";\n";
    } else {
      s += std::string("    ") + pos + " += (rest_" + prefix + " % " + sz + ") * " + st + ";\n    rest_" + prefix +
           " /= " + sz + ";\n";
    }
  }
  return s;
}

// Whether `expr` mentions the identifier `name` (an operand it reads).
bool mentions(std::string_view expr, std::string_view name) {
  auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (std::size_t at = expr.find(name); at != std::string_view::npos; at = expr.find(name, at + 1)) {
    const std::size_t end = at + name.size();
    if ((at == 0 || !ident(expr[at - 1])) && (end == expr.size() || !ident(expr[end]))) return true;
  }
  return false;
}

}  // namespace

const char* type_name(DType t) {
  switch (t) {
    case kBool:
    case kUInt8: return "uchar";
    case kInt32: return "int";
    case kInt64: return "long";
    case kFloat32: return "float";
    case kFloat64: return "double";
    default: return nullptr;
  }
}

std::string elementwise_kernel_body(const ElementwiseExpr& e, DType compute, std::span<const DType> operands,
                                    std::size_t rank) {
  const char* expr = is_floating(compute) ? e.float_expr : e.int_expr;
  NABLA_CHECK(expr != nullptr, e.op->name, ": no device kernel for ", compute, " inputs");
  NABLA_CHECK(!operands.empty() && operands.size() <= 1 + std::size(kNames), e.op->name,
              ": an elementwise kernel takes an output and up to 3 inputs, got ", operands.size(), " operands");
  const std::size_t n_in = operands.size() - 1;
  std::string s = std::string("#define NB_FLOAT ") + (is_floating(compute) ? "1" : "0") + "\n";
  s += kHelpers;
  s += "NB_KERNEL nb_elementwise(NB_GLOBAL " + std::string(checked_type(operands[0])) + "* out, long out_off";
  for (std::size_t i = 0; i < n_in; ++i)
    s += ", NB_GLOBAL const " + std::string(checked_type(operands[i + 1])) + "* in" + std::to_string(i) + ", long in" +
         std::to_string(i) + "_off";
  for (int a = 0; a < e.num_attrs; ++a) s += ", T a" + std::to_string(a);
  s += ", long n";
  for (std::size_t d = 0; d < rank; ++d) s += ", long size" + std::to_string(d);
  for (std::size_t k = 0; k < operands.size(); ++k)
    for (std::size_t d = 0; d < rank; ++d) s += ", long st" + std::to_string(k) + "_" + std::to_string(d);
  // Operand k is read when the expression mentions its name (isnan of an
  // integer, "0", reads nothing); the output is always written.
  std::vector<bool> read(operands.size(), true);
  for (std::size_t i = 0; i < n_in; ++i) {
    const std::size_t name = static_cast<std::size_t>(e.first_input) + i;
    NABLA_CHECK(name < std::size(kNames), e.op->name, ": input ", name, " has no name in the expression");
    read[i + 1] = mentions(expr, kNames[name]);
  }
  s += ") {\n  const long gid = NB_INDEX;\n  if (gid >= n) return;\n";
  if (rank > 0) s += "  long rest = gid;\n";
  s += "  long p0 = out_off;\n";
  for (std::size_t i = 0; i < n_in; ++i)
    if (read[i + 1]) s += "  long p" + std::to_string(i + 1) + " = in" + std::to_string(i) + "_off;\n";
  for (std::size_t d = rank; d-- > 0;) {
    const std::string ds = std::to_string(d);
    s += d == 0 ? "  {\n    const long c = rest;\n" : "  {\n    const long c = rest % size" + ds + ";\n    rest /= size" + ds + ";\n";
    for (std::size_t k = 0; k < operands.size(); ++k)
      if (read[k]) s += "    p" + std::to_string(k) + " += c * st" + std::to_string(k) + "_" + ds + ";\n";
    s += "  }\n";
  }
  for (std::size_t i = 0; i < n_in; ++i) {
    if (!read[i + 1]) continue;
    const std::size_t name = static_cast<std::size_t>(e.first_input) + i;
    s += "  const " + std::string(checked_type(operands[i + 1])) + " " + kNames[name] + " = in" + std::to_string(i) +
         "[p" + std::to_string(i + 1) + "];\n";
  }
  if (operands[0] == kBool)
    s += "  out[p0] = (uchar)((" + std::string(expr) + ") != 0);\n}\n";
  else
    s += "  out[p0] = (" + std::string(checked_type(operands[0])) + ")(" + expr + ");\n}\n";
  return s;
}

std::string reduce_kernel_body(const ReduceExpr& e, DType in, bool acc_floating, DType out, std::size_t keep_rank,
                               std::size_t red_rank) {
  std::string s = "NB_KERNEL nb_reduce(NB_GLOBAL " + std::string(checked_type(out)) +
                  "* out, long out_off, NB_GLOBAL const " + checked_type(in) + "* in, long in_off, long n_out, long n_red";
  for (std::size_t d = 0; d < keep_rank; ++d) s += ", long ksize" + std::to_string(d) + ", long kst" + std::to_string(d);
  for (std::size_t d = 0; d < red_rank; ++d) s += ", long rsize" + std::to_string(d) + ", long rst" + std::to_string(d);
  s += ") {\n  const long gid = NB_INDEX;\n  if (gid >= n_out) return;\n  long base = in_off;\n  {\n";
  s += unravel("gid", "k", keep_rank, "base");
  s += "  }\n";
  const bool first = std::string(e.init) == "first";
  s += std::string("  A acc = ") + (first ? "(A)in[base]" : "(A)(" + std::string(e.init) + ")") + ";\n";
  s += std::string("  for (long j = ") + (first ? "1" : "0") + "; j < n_red; ++j) {\n    long p = base;\n";
  s += unravel("j", "r", red_rank, "p");
  s += "    const A x = (A)in[p];\n    acc = " + std::string(acc_floating ? e.float_combine : e.int_combine) + ";\n  }\n";
  if (out == kBool)
    s += "  out[out_off + gid] = (uchar)(acc != 0);\n}\n";
  else
    s += "  out[out_off + gid] = (" + std::string(checked_type(out)) + ")acc;\n}\n";
  return s;
}


// One work-group of `group` items per output: item l starts at element l (so
// "first" needs n_red >= group, which the host guarantees) and strides by
// the group over the reduced elements, then the group combines its partial
// accumulators in a tree in shared memory (a fixed order: the result does
// not depend on timing). Every combine expression is associative over
// partial results (sum, product, max/min with NaN, all, any).
std::string reduce_group_kernel_body(const ReduceExpr& e, DType in, bool acc_floating, DType out, std::size_t keep_rank,
                                     std::size_t red_rank, std::size_t group) {
  NABLA_CHECK(group >= 2 && (group & (group - 1)) == 0, e.op->name, ": a reduction group of ", group,
              " items (expected a power of two)");
  const std::string g = std::to_string(group);
  const char* combine = acc_floating ? e.float_combine : e.int_combine;
  std::string s = "NB_KERNEL nb_reduce_group(NB_GLOBAL " + std::string(checked_type(out)) +
                  "* out, long out_off, NB_GLOBAL const " + checked_type(in) + "* in, long in_off, long n_out, long n_red";
  for (std::size_t d = 0; d < keep_rank; ++d) s += ", long ksize" + std::to_string(d) + ", long kst" + std::to_string(d);
  for (std::size_t d = 0; d < red_rank; ++d) s += ", long rsize" + std::to_string(d) + ", long rst" + std::to_string(d);
  s += ") {\n  NB_LOCAL A part[" + g + "];\n  const long gid = NB_GROUP_ID, lid = NB_LOCAL_ID;\n  long base = in_off;\n  {\n";
  s += unravel("gid", "k", keep_rank, "base");
  s += "  }\n";
  const bool first = std::string(e.init) == "first";
  if (first) {
    s += "  A acc;\n  {\n    long p = base;\n";
    s += unravel("lid", "r", red_rank, "p");
    s += "    acc = (A)in[p];\n  }\n";
  } else {
    s += "  A acc = (A)(" + std::string(e.init) + ");\n";
  }
  s += std::string("  for (long j = lid") + (first ? " + " + g : "") + "; j < n_red; j += " + g + ") {\n    long p = base;\n";
  s += unravel("j", "r", red_rank, "p");
  s += "    const A x = (A)in[p];\n    acc = " + std::string(combine) + ";\n  }\n";
  s += "  part[lid] = acc;\n  NB_BARRIER;\n";
  s += "  for (long width = " + std::to_string(group / 2) + "; width > 0; width /= 2) {\n";
  s += "    if (lid < width) {\n      const A x = part[lid + width];\n      acc = part[lid];\n      part[lid] = " +
       std::string(combine) + ";\n    }\n    NB_BARRIER;\n  }\n";
  s += "  if (lid != 0) return;\n  acc = part[0];\n";
  if (out == kBool)
    s += "  out[out_off + gid] = (uchar)(acc != 0);\n}\n";
  else
    s += "  out[out_off + gid] = (" + std::string(checked_type(out)) + ")acc;\n}\n";
  return s;
}

}  // namespace nabla::device_c

// The fixed codes of the .nbg format (docs/nbg-format.md) and its checksum.
#include "nabla/graph/serialize_format.h"

#include <zlib.h>

namespace nabla::graph::nbg {

namespace {

struct KindCode {
  NodeKind kind;
  uint8_t code;
  const char* name;
};
constexpr KindCode kKinds[] = {
    {NodeKind::Op, 0, "op"},           {NodeKind::Placeholder, 1, "placeholder"}, {NodeKind::Constant, 2, "constant"},
    {NodeKind::Variable, 3, "variable"}, {NodeKind::Initializer, 4, "initializer"}, {NodeKind::Assign, 5, "assign"},
    {NodeKind::AssignAdd, 6, "assign_add"}, {NodeKind::AssignSub, 7, "assign_sub"}, {NodeKind::Group, 8, "group"},
    // Since format 1.1.
    {NodeKind::Cond, 9, "cond"},       {NodeKind::While, 10, "while"},            {NodeKind::WhileGrad, 11, "while_grad"},
    // Since format 1.2.
    {NodeKind::Gradients, 12, "gradients"},
};

constexpr DType kDTypeCodes[] = {kBool, kUInt8, kInt32, kInt64, kFloat16, kBFloat16, kFloat32, kFloat64};

}  // namespace

uint8_t kind_code(NodeKind k, const std::string& where) {
  for (const KindCode& c : kKinds)
    if (c.kind == k) return c.code;
  fail(where, ": node kind ", static_cast<int>(k), " has no code in format version ", kMajor, ".", kMinor);
}

bool kind_from_code(uint8_t code, NodeKind* k) {
  for (const KindCode& c : kKinds)
    if (c.code == code) {
      *k = c.kind;
      return true;
    }
  return false;
}

const char* kind_name(NodeKind k) {
  for (const KindCode& c : kKinds)
    if (c.kind == k) return c.name;
  return "unknown";
}

uint16_t kind_minor(NodeKind k) {
  if (k == NodeKind::Gradients) return 2;
  return k == NodeKind::Cond || k == NodeKind::While || k == NodeKind::WhileGrad ? 1 : 0;
}

uint8_t dtype_code(DType t) {
  for (uint8_t i = 0; i < std::size(kDTypeCodes); ++i)
    if (kDTypeCodes[i] == t) return i;
  fail("graph::save: dtype ", t, " has no code in the .nbg format");
}

bool dtype_from_code(uint8_t c, DType* t) {
  if (c >= std::size(kDTypeCodes)) return false;
  *t = kDTypeCodes[c];
  return true;
}

uint32_t crc32_update(uint32_t start, const void* data, std::size_t n) {
  uLong crc = start;
  const auto* p = static_cast<const Bytef*>(data);
  while (n > 0) {  // zlib takes uInt lengths
    uInt chunk = n > (1u << 30) ? (1u << 30) : static_cast<uInt>(n);
    crc = ::crc32(crc, p, chunk);
    p += chunk;
    n -= chunk;
  }
  return static_cast<uint32_t>(crc);
}

}  // namespace nabla::graph::nbg

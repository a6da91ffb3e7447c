// The numbers of the .nbg format (docs/nbg-format.md) and the little-endian
// byte writer and bounds-checked reader that serialize_write.cpp and
// serialize_read.cpp share. Internal: not installed into nabla.h.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "nabla/core/dtype.h"
#include "nabla/core/error.h"
#include "nabla/graph/node.h"
#include "nabla/ops/op.h"

namespace nabla::graph::nbg {

inline constexpr char kMagic[8] = {'\x89', 'N', 'B', 'G', '\r', '\n', '\x1a', '\n'};
inline constexpr uint16_t kMajor = 1;
// 1.1: control flow (subgraphs, kinds cond/while/while_grad); 1.2: unknown
// dims (-1) in metas, and op nodes on such values kept unexpanded (composite
// ops, inputs not yet promoted) as graphs with unknown dims are built;
// 1.3: placement (field 14, device), written only for placed graphs.
inline constexpr uint16_t kMinor = 3;
inline constexpr std::size_t kHeaderSize = 44;  // magic .. header CRC-32, see docs/nbg-format.md
inline constexpr uint32_t kMaxDims = 64;
// Subgraphs (cond branches, loop bodies) may nest this many levels below the
// top-level graph: the reader recurses once per level.
inline constexpr int kMaxNesting = 32;

// Field tags of a node record. A tag with kCritical set must be understood:
// a reader that does not know it refuses the file.
enum Tag : uint16_t {
  kTagKind = 1,
  kTagName = 2,
  kTagOp = 3,
  kTagAttrs = 4,
  kTagInputs = 5,
  kTagControlInputs = 6,
  kTagMetas = 7,
  kTagSource = 8,
  kTagValue = 9,
  kTagTrainable = 10,
  kTagTarget = 11,
  kTagVariables = 12,
  kTagSubgraphs = 13,  // since 1.1; always stored critical (kCritical | 13)
  // Since 1.3: where the node runs (graph::DeviceScope). Not critical: a
  // reader that skips it runs the graph unplaced, with the same results.
  kTagDevice = 14,
};
inline constexpr uint16_t kCritical = 0x8000;
inline constexpr uint16_t kLastTag = kTagDevice;
// The version that introduced a tag, and whether it is stored marked critical.
inline constexpr uint16_t tag_minor(uint16_t tag) {
  return tag == kTagSubgraphs ? 1 : tag == kTagDevice ? 3 : 0;
}
inline constexpr bool tag_critical(uint16_t tag) { return tag == kTagSubgraphs; }
// A `param` of a subgraph that binds no placeholder (docs/nbg-format.md).
inline constexpr uint32_t kNoParam = 0xFFFFFFFFu;

// Attribute value types (the alternatives of AttrValue, attrs.h).
enum AttrType : uint8_t { kAttrNone = 0, kAttrInt = 1, kAttrDouble = 2, kAttrBool = 3, kAttrShape = 4, kAttrDType = 5, kAttrScalar = 6, kAttrString = 7 };
// Scalar kinds.
enum ScalarKind : uint8_t { kScalarBool = 0, kScalarInt = 1, kScalarFloat = 2 };

// Fixed codes, independent of the order of the C++ enums.
uint8_t kind_code(NodeKind k, const std::string& where);
bool kind_from_code(uint8_t c, NodeKind* k);
const char* kind_name(NodeKind k);
// The minor version that introduced a kind (control flow: 1).
uint16_t kind_minor(NodeKind k);
inline constexpr uint8_t kLastKindCode = 11;
uint8_t dtype_code(DType t);
bool dtype_from_code(uint8_t c, DType* t);

// Range checks of a loaded op node's attributes by name (dims within the
// input's rank, strides > 0, ...): serialize_attr_checks.cpp.
void check_attrs(const OpDef& op, Inputs ins, const Attrs& attrs, const std::string& at);

// A loaded Cond / While / WhileGrad node `n` of graph `g` (its inputs already
// checked against g): its attributes, subgraph count, and each subgraph's
// params and results against the node's inputs and outputs, so that the
// runtime (control_flow_run.cpp) binds and returns values of the dtypes and
// shapes the subgraphs were checked with: serialize_control_flow_checks.cpp.
void check_control_flow(const Node& n, const GraphData& g, const std::string& at);

// CRC-32 (zlib's, as in ZIP and PNG); crc32_update continues `crc` over more bytes.
uint32_t crc32_update(uint32_t crc, const void* data, std::size_t n);
inline uint32_t crc32(const void* data, std::size_t n) { return crc32_update(0, data, n); }

// Appends little-endian values to a byte string.
class Writer {
 public:
  void u8(uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void u16(uint16_t v) { le(v, 2); }
  void u32(uint32_t v) { le(v, 4); }
  void u64(uint64_t v) { le(v, 8); }
  void i64(int64_t v) { le(static_cast<uint64_t>(v), 8); }
  void f64(double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, 8);
    le(bits, 8);
  }
  void str(std::string_view s) {
    u32(static_cast<uint32_t>(s.size()));
    out_.append(s);
  }
  void bytes(std::string_view s) { out_.append(s); }
  std::size_t size() const { return out_.size(); }
  std::string& data() { return out_; }

 private:
  void le(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) out_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
  std::string out_;
};

// Reads little-endian values from a byte range; reading past its end raises
// nabla::Error naming `where` (the file and the field being read).
class Reader {
 public:
  Reader(std::string_view bytes, std::string where) : b_(bytes), where_(std::move(where)) {}
  uint8_t u8() { return static_cast<uint8_t>(le(1)); }
  uint16_t u16() { return static_cast<uint16_t>(le(2)); }
  uint32_t u32() { return static_cast<uint32_t>(le(4)); }
  uint64_t u64() { return le(8); }
  int64_t i64() { return static_cast<int64_t>(le(8)); }
  double f64() {
    uint64_t bits = le(8);
    double v;
    std::memcpy(&v, &bits, 8);
    return v;
  }
  std::string str() {
    uint32_t n = u32();
    return std::string(take(n));
  }
  std::string_view take(std::size_t n) {
    NABLA_CHECK(n <= b_.size() - pos_, where_, ": needs ", n, " more bytes at byte ", pos_, " of ", b_.size(),
                " (truncated or corrupt)");
    std::string_view s = b_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  // A count of items of at least `item_bytes` each, checked against the bytes left
  // (so a corrupt count cannot make the reader allocate or loop for long).
  uint32_t count(std::size_t item_bytes) {
    uint32_t n = u32();
    NABLA_CHECK(item_bytes == 0 || n <= (b_.size() - pos_) / item_bytes, where_, ": a count of ", n,
                " items needs at least ", static_cast<uint64_t>(n) * item_bytes, " bytes but only ", b_.size() - pos_,
                " are left");
    return n;
  }
  std::size_t left() const { return b_.size() - pos_; }
  std::size_t pos() const { return pos_; }
  const std::string& where() const { return where_; }

 private:
  uint64_t le(int n) {
    std::string_view s = take(static_cast<std::size_t>(n));
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(s[i])) << (8 * i);
    return v;
  }
  std::string_view b_;
  std::size_t pos_ = 0;
  std::string where_;
};

}  // namespace nabla::graph::nbg

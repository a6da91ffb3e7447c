// A seeded, deterministic mutator for corrupted-file sweeps (issue 13): from
// the bytes of a good file it makes damaged copies — truncations (at random
// and at structural points), bit flips, bytes set to 0x00 or 0xFF, random
// byte runs, junk appended, and edits of the fields a format test describes
// (huge or negative sizes, overlapping offsets, dtype relabelling, wrong
// counts, swapped fields). Its own generator (splitmix64) makes the mutants
// the same on every machine and standard library.
//
//   MutatorSpec spec{.fields = {{"header length", 8, 2, FieldKind::LittleEndian}}};
//   for (const Mutant& m : make_mutants(good_bytes, spec, /*seed=*/13, 300)) ...
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace nabla::testing {

// splitmix64 (Steele, Lea, Flood 2014): tiny, well mixed, defined bit for bit.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t next();
  // Uniform in [0, n); n > 0.
  uint64_t below(uint64_t n) { return next() % n; }

 private:
  uint64_t state_;
};

enum class FieldKind {
  LittleEndian,  // an unsigned integer of `width` bytes (sizes, counts, offsets, codes)
  BigEndian,     // the same, big-endian (IDX dims)
  Decimal,       // ASCII digits in a text header ("shape": [2, 3], data_offsets, "12")
  Tag,           // a name from `alternatives` ("F32" -> "I32", "<f4" -> ">f8"): dtype relabelling
};

// A field of the good file, at a byte offset of its bytes.
struct Field {
  std::string name;
  std::size_t offset = 0;
  std::size_t width = 0;  // bytes (for Decimal and Tag: the text's length)
  FieldKind kind = FieldKind::LittleEndian;
  std::vector<std::string> alternatives;  // Tag: what it may be relabelled to
  // Another field says the same thing (a count, a size, a duplicate entry):
  // any change to this one must be refused.
  bool redundant = false;
  // The spec's repair (checksums, length prefixes) must not run after an edit
  // of this field: it would recompute the edited value itself.
  bool no_repair = false;
  // Fields whose product or sum is what another field repeats (the dims of a
  // shape): swapping two of them keeps it, so a swap need not be refused.
  std::string group;
  // All ones means "the value is elsewhere" (ZIP64's 0xFFFFFFFF): setting it
  // is consistent, so it need not be refused.
  bool all_ones_defers = false;
};

struct MutatorSpec {
  std::vector<Field> fields;
  // Offsets where the file's structure changes (ends of headers, records):
  // truncations cut there (and one byte either side) as well as at random.
  std::vector<std::size_t> cut_points;
  // Makes an edited file consistent again where the format has checksums or
  // length prefixes (recomputes them), so that edits reach the checks behind
  // them. Applied to field edits and to half of the byte-level damage.
  std::function<void(std::string&)> repair;
  // Half of the byte-level damage falls in [0, header_end) (0: the whole
  // file), where a format keeps its structure, rather than in payload bytes.
  std::size_t header_end = 0;
  // The format states its own length (sizes in a header, a trailer): every
  // truncation must be refused.
  bool length_is_declared = false;
};

enum class MutationKind { Truncate, BitFlip, ByteSet, RandomRun, Append, FieldEdit, FieldSwap };
const char* kind_name(MutationKind k);

struct Mutant {
  std::string bytes;
  MutationKind kind;
  std::string what;       // for messages: "bit flip at 17 (bit 3)", "field 'shape[0]' = 18446744073709551615"
  bool repaired = false;  // spec.repair ran: checksums and lengths agree with the damaged content
  // A redundant field changed, or bytes the format declares were cut off.
  bool must_refuse = false;
  bool truncated() const { return kind == MutationKind::Truncate; }
};

// `count` mutants of `good`, the same for the same arguments everywhere. No
// mutant equals `good` (an edit that changes nothing is drawn again).
std::vector<Mutant> make_mutants(const std::string& good, const MutatorSpec& spec, uint64_t seed, int count);

}  // namespace nabla::testing

// The mutator of mutator.h. Every choice comes from one SplitMix64 stream, in
// a fixed order, so a seed names the same mutants everywhere.
#include "tests/support/mutator.h"

#include <algorithm>
#include <string>

namespace nabla::testing {

uint64_t SplitMix64::next() {
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

const char* kind_name(MutationKind k) {
  switch (k) {
    case MutationKind::Truncate:
      return "truncate";
    case MutationKind::BitFlip:
      return "bit flip";
    case MutationKind::ByteSet:
      return "byte set";
    case MutationKind::RandomRun:
      return "random run";
    case MutationKind::Append:
      return "append";
    case MutationKind::FieldEdit:
      return "field edit";
    case MutationKind::FieldSwap:
      return "field swap";
  }
  return "?";
}

namespace {

uint64_t read_int(const std::string& b, const Field& f) {
  uint64_t v = 0;
  for (std::size_t i = 0; i < f.width; ++i) {
    const std::size_t at = f.kind == FieldKind::BigEndian ? f.offset + i : f.offset + f.width - 1 - i;
    v = (v << 8) | static_cast<uint8_t>(b[at]);
  }
  return v;
}

void write_int(std::string& b, const Field& f, uint64_t v) {
  for (std::size_t i = 0; i < f.width; ++i) {
    const std::size_t at = f.kind == FieldKind::BigEndian ? f.offset + f.width - 1 - i : f.offset + i;
    b[at] = static_cast<char>((v >> (8 * i)) & 0xff);
  }
}

// An edited integer: the values that break readers (zero, one off, doubled,
// all ones = -1, the sign bit = a huge or negative size), another field's
// value of the same kind (overlapping offsets, swapped counts) or noise.
uint64_t edited_int(uint64_t v, const Field& f, const std::string& good, const std::vector<Field>& fields,
                    SplitMix64& rng, std::string& how) {
  const int bits = static_cast<int>(f.width * 8);
  const uint64_t mask = bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
  const uint64_t sign = uint64_t(1) << (bits - 1);
  switch (rng.below(12)) {
    case 0:
      how = "0";
      return 0;
    case 1:
      how = "+1";
      return (v + 1) & mask;
    case 2:
      how = "-1";
      return (v - 1) & mask;
    case 3:
      how = "doubled";
      return (v * 2) & mask;
    case 4:
      how = "halved";
      return v / 2;
    case 5:
      how = "all ones (-1 / the largest)";
      return mask;
    case 6:
      how = "sign bit (huge / negative)";
      return sign;
    case 7:
      how = "largest positive";
      return sign - 1;
    case 8:
      how = "1";
      return 1;
    case 9: {
      std::vector<const Field*> same;
      for (const Field& o : fields)
        if (&o != &f && o.kind == f.kind && o.width == f.width) same.push_back(&o);
      if (!same.empty()) {
        const Field& o = *same[rng.below(same.size())];
        how = "the value of '" + o.name + "'";
        return read_int(good, o);
      }
      how = "+1";
      return (v + 1) & mask;
    }
    case 10:
      how = "v + 2^31";
      return (v + (uint64_t(1) << std::min(bits - 1, 31))) & mask;
    default:
      how = "random";
      return rng.next() & mask;
  }
}

std::string add_decimal(const std::string& digits, int delta) {
  uint64_t v = 0;
  for (char c : digits) v = v * 10 + static_cast<uint64_t>(c - '0');
  return delta < 0 && v == 0 ? "-1" : std::to_string(delta < 0 ? v - 1 : v + 1);
}

// An edited number in a text header.
std::string edited_decimal(const std::string& t, const Field& f, const std::string& good,
                           const std::vector<Field>& fields, SplitMix64& rng) {
  static const char* const kWild[] = {"0",
                                      "1",
                                      "-1",
                                      "18446744073709551615",
                                      "9223372036854775807",
                                      "9223372036854775808",
                                      "4294967296",
                                      "99999999999999999999999",
                                      "",
                                      "1.5",
                                      "0x10",
                                      "1e3",
                                      "-9223372036854775808"};
  const bool digits = !t.empty() && t.size() <= 18 && std::all_of(t.begin(), t.end(), [](char c) {
    return c >= '0' && c <= '9';
  });
  switch (rng.below(7)) {
    case 0:
      if (digits) return add_decimal(t, +1);
      break;
    case 1:
      if (digits) return add_decimal(t, -1);
      break;
    case 2:
      return "-" + t;
    case 3:
      return t + "0";
    case 4: {
      std::vector<const Field*> same;
      for (const Field& o : fields)
        if (&o != &f && o.kind == FieldKind::Decimal) same.push_back(&o);
      if (!same.empty()) {
        const Field& o = *same[rng.below(same.size())];
        return good.substr(o.offset, o.width);
      }
      break;
    }
    default:
      break;
  }
  return kWild[rng.below(std::size(kWild))];
}

// Whether decimal texts `a` and `b` denote the same integer ("1" and "01"): a
// redundant count rewritten so is no disagreement.
bool same_number(const std::string& a, const std::string& b) {
  const auto digits = [](const std::string& t) {
    return !t.empty() && std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if (!digits(a) || !digits(b)) return false;
  const auto strip = [](const std::string& t) {
    const std::size_t nz = t.find_first_not_of('0');
    return nz == std::string::npos ? std::string("0") : t.substr(nz);
  };
  return strip(a) == strip(b);
}

std::string printable(const std::string& s) {
  std::string out;
  for (char c : s) out += (c >= 32 && c < 127) ? std::string(1, c) : "?";
  return out;
}

// Where byte-level damage goes: half in the header, half anywhere.
std::size_t damage_at(const std::string& b, const MutatorSpec& spec, SplitMix64& rng) {
  const std::size_t header = spec.header_end > 0 ? std::min(spec.header_end, b.size()) : b.size();
  return rng.below(2) == 0 ? rng.below(header) : rng.below(b.size());
}

Mutant one_mutant(const std::string& good, const MutatorSpec& spec, SplitMix64& rng) {
  const bool have_fields = !spec.fields.empty();
  // Shares out of 100: truncate 15, bit flip 20, byte set 10, random run 10,
  // append 5, field edit 32, field swap 8 (the field shares go to bit flips
  // when the spec names no fields).
  uint64_t pick = rng.below(100);
  if (!have_fields && pick >= 60) pick = 15 + pick % 20;
  Mutant m{good, MutationKind::BitFlip, "", false, false};
  std::string& b = m.bytes;
  bool may_repair = true;
  if (pick < 15) {
    m.kind = MutationKind::Truncate;
    std::size_t n = 0;
    std::vector<std::size_t> points = spec.cut_points;
    for (const Field& f : spec.fields) points.insert(points.end(), {f.offset, f.offset + f.width});
    if (rng.below(2) == 0 && !points.empty()) {
      const std::size_t p = points[rng.below(points.size())];
      n = p + rng.below(3);  // the point, or one byte either side
      n = n == 0 ? 0 : n - 1;
    } else {
      n = rng.below(good.size());
    }
    n = std::min(n, good.size() - 1);
    b.resize(n);
    m.what = "truncated to " + std::to_string(n) + " of " + std::to_string(good.size()) + " bytes";
    m.must_refuse = spec.length_is_declared;
    may_repair = false;
  } else if (pick < 35) {
    m.kind = MutationKind::BitFlip;
    const uint64_t flips = 1 + rng.below(3);
    m.what = "bits flipped:";
    for (uint64_t i = 0; i < flips; ++i) {
      const std::size_t at = damage_at(b, spec, rng);
      const int bit = static_cast<int>(rng.below(8));
      b[at] = static_cast<char>(b[at] ^ (1 << bit));
      m.what += " " + std::to_string(at) + "." + std::to_string(bit);
    }
  } else if (pick < 45) {
    m.kind = MutationKind::ByteSet;
    const std::size_t at = damage_at(b, spec, rng);
    const std::size_t n = std::min<std::size_t>(1 + rng.below(4), b.size() - at);
    const char v = rng.below(2) ? '\xff' : '\0';
    std::fill(b.begin() + static_cast<std::ptrdiff_t>(at), b.begin() + static_cast<std::ptrdiff_t>(at + n), v);
    m.what = std::to_string(n) + " byte(s) at " + std::to_string(at) + " set to " + (v ? "0xFF" : "0x00");
  } else if (pick < 55) {
    m.kind = MutationKind::RandomRun;
    const std::size_t at = damage_at(b, spec, rng);
    const std::size_t n = std::min<std::size_t>(2 + rng.below(15), b.size() - at);
    for (std::size_t i = 0; i < n; ++i) b[at + i] = static_cast<char>(rng.next() & 0xff);
    m.what = std::to_string(n) + " random bytes at " + std::to_string(at);
  } else if (pick < 60) {
    m.kind = MutationKind::Append;
    const std::size_t n = 1 + rng.below(64);
    if (rng.below(2) == 0) {
      for (std::size_t i = 0; i < n; ++i) b.push_back(static_cast<char>(rng.next() & 0xff));
      m.what = std::to_string(n) + " random bytes appended";
    } else {
      const std::size_t k = std::min(n, good.size());
      b += good.substr(good.size() - k);
      m.what = "the last " + std::to_string(k) + " bytes appended again";
    }
  } else if (pick < 92) {
    m.kind = MutationKind::FieldEdit;
    bool defers = false;
    const Field& f = spec.fields[rng.below(spec.fields.size())];
    std::string replacement;
    if (f.kind == FieldKind::Decimal) {
      replacement = edited_decimal(good.substr(f.offset, f.width), f, good, spec.fields, rng);
      m.what = "field '" + f.name + "' = '" + printable(replacement) + "'";
    } else if (f.kind == FieldKind::Tag) {
      replacement = f.alternatives.empty() ? std::string("?") : f.alternatives[rng.below(f.alternatives.size())];
      m.what = "field '" + f.name + "' relabelled '" + replacement + "'";
    } else {
      std::string how;
      const uint64_t v = edited_int(read_int(good, f), f, good, spec.fields, rng, how);
      write_int(b, f, v);
      replacement = b.substr(f.offset, f.width);
      m.what = "field '" + f.name + "' = " + std::to_string(v) + " (" + how + ")";
      defers = f.all_ones_defers && v == (f.width >= 8 ? ~uint64_t(0) : (uint64_t(1) << (8 * f.width)) - 1);
    }
    b = good.substr(0, f.offset) + replacement + good.substr(f.offset + f.width);
    m.must_refuse = f.redundant && !defers &&
                    !(f.kind == FieldKind::Decimal && same_number(good.substr(f.offset, f.width), replacement));
    may_repair = !f.no_repair;
  } else {
    m.kind = MutationKind::FieldSwap;
    const Field& f = spec.fields[rng.below(spec.fields.size())];
    std::vector<const Field*> partners;
    for (const Field& o : spec.fields)
      if (&o != &f && o.kind == f.kind && (o.width == f.width || f.kind == FieldKind::Decimal) &&
          (o.offset + o.width <= f.offset || f.offset + f.width <= o.offset))
        partners.push_back(&o);
    if (partners.empty()) return one_mutant(good, spec, rng);
    const Field& o = *partners[rng.below(partners.size())];
    const Field& first = f.offset < o.offset ? f : o;
    const Field& second = f.offset < o.offset ? o : f;
    b = good.substr(0, first.offset) + good.substr(second.offset, second.width) +
        good.substr(first.offset + first.width, second.offset - first.offset - first.width) +
        good.substr(first.offset, first.width) + good.substr(second.offset + second.width);
    m.what = "fields '" + f.name + "' and '" + o.name + "' swapped";
    const std::string f_text = good.substr(f.offset, f.width), o_text = good.substr(o.offset, o.width);
    const bool same = f.kind == FieldKind::Decimal && same_number(f_text, o_text);
    m.must_refuse = (f.redundant || o.redundant) && (f.group.empty() || f.group != o.group) && !same;
    may_repair = !f.no_repair && !o.no_repair;
  }
  // Field edits are always repaired (to reach the checks behind a checksum);
  // byte-level damage half the time.
  const bool field = m.kind == MutationKind::FieldEdit || m.kind == MutationKind::FieldSwap;
  if (spec.repair && may_repair && (field || rng.below(2) == 0)) {
    spec.repair(b);
    m.repaired = true;
    m.what += " (repaired)";
  }
  return m;
}

}  // namespace

std::vector<Mutant> make_mutants(const std::string& good, const MutatorSpec& spec, uint64_t seed, int count) {
  SplitMix64 rng(seed);
  std::vector<Mutant> out;
  out.reserve(static_cast<std::size_t>(count));
  while (out.size() < static_cast<std::size_t>(count)) {
    Mutant m = one_mutant(good, spec, rng);
    if (m.bytes != good) out.push_back(std::move(m));
  }
  return out;
}

}  // namespace nabla::testing

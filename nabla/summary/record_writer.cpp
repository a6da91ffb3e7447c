#include "nabla/summary/record_writer.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "nabla/core/error.h"
#include "nabla/summary/crc32c.h"

namespace nabla::summary {
namespace {

void put_u32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}
void put_u64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}
uint32_t get_u32(const unsigned char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
uint64_t get_u64(const unsigned char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

}  // namespace

std::string frame_record(std::string_view data) {
  std::string out;
  out.reserve(data.size() + 16);
  put_u64(out, data.size());
  put_u32(out, mask_crc(crc32c(out.data(), 8)));
  out.append(data);
  put_u32(out, mask_crc(crc32c(data.data(), data.size())));
  return out;
}

RecordWriter::RecordWriter(const std::string& path) : path_(path) {
  file_ = std::fopen(path.c_str(), "ab");
  NABLA_CHECK(file_, "SummaryWriter: cannot open '", path, "' for writing: ", std::strerror(errno));
}

RecordWriter::~RecordWriter() {
  try {
    close();
  } catch (...) {  // a destructor must not throw; close() explicitly to see errors
  }
}

void RecordWriter::write(std::string_view data) {
  NABLA_CHECK(file_, "SummaryWriter: '", path_, "' is closed; cannot write a record");
  // One fwrite of the whole framed record: stdio hands it to the OS in whole
  // buffers, and a crash can at worst cut the last record, which readers skip.
  std::string record = frame_record(data);
  NABLA_CHECK(std::fwrite(record.data(), 1, record.size(), file_) == record.size(), "SummaryWriter: writing to '",
              path_, "' failed: ", std::strerror(errno));
}

void RecordWriter::flush() {
  if (!file_) return;
  NABLA_CHECK(std::fflush(file_) == 0, "SummaryWriter: flushing '", path_, "' failed: ", std::strerror(errno));
}

void RecordWriter::close() {
  if (!file_) return;
  std::FILE* f = file_;
  file_ = nullptr;
  NABLA_CHECK(std::fclose(f) == 0, "SummaryWriter: closing '", path_, "' failed: ", std::strerror(errno));
}

RecordReader::RecordReader(const std::string& path) : path_(path) {
  file_ = std::fopen(path.c_str(), "rb");
  NABLA_CHECK(file_, "RecordReader: cannot open '", path, "': ", std::strerror(errno));
}

RecordReader::~RecordReader() {
  if (file_) std::fclose(file_);
}

std::optional<std::string> RecordReader::next() {
  if (torn_) return std::nullopt;
  unsigned char header[12];
  std::size_t got = std::fread(header, 1, sizeof header, file_);
  if (got == 0) return std::nullopt;  // a clean end
  if (got < sizeof header) {
    torn_ = true;
    return std::nullopt;
  }
  uint64_t length = get_u64(header);
  NABLA_CHECK(mask_crc(crc32c(header, 8)) == get_u32(header + 8), "RecordReader: '", path_,
              "' is corrupt: the length CRC of the record at byte ", offset_, " does not match");
  std::string data;
  // Read in chunks so that a huge (bogus) length in a torn file costs no
  // allocation beyond what the file holds.
  constexpr std::size_t kChunk = 1 << 20;
  for (uint64_t left = length; left > 0;) {
    std::size_t want = static_cast<std::size_t>(std::min<uint64_t>(left, kChunk));
    std::size_t old = data.size();
    data.resize(old + want);
    std::size_t n = std::fread(data.data() + old, 1, want, file_);
    if (n < want) {
      torn_ = true;
      return std::nullopt;
    }
    left -= want;
  }
  unsigned char footer[4];
  if (std::fread(footer, 1, 4, file_) < 4) {
    torn_ = true;
    return std::nullopt;
  }
  NABLA_CHECK(mask_crc(crc32c(data.data(), data.size())) == get_u32(footer), "RecordReader: '", path_,
              "' is corrupt: the data CRC of the record at byte ", offset_, " does not match");
  offset_ += 16 + length;
  return data;
}

}  // namespace nabla::summary

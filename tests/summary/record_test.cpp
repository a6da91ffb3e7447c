// CRC-32C, TFRecord framing and RecordReader, nabla/summary's base layer.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "nabla/core/error.h"
#include "nabla/summary/crc32c.h"
#include "nabla/summary/record_writer.h"
#include "nabla/summary/summary_writer.h"

namespace nabla::summary {
namespace {

namespace fs = std::filesystem;

fs::path temp_dir(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("nabla_summary_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

void write_bytes(const fs::path& p, std::string_view bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::vector<std::string> read_all(const fs::path& p, bool* torn = nullptr) {
  RecordReader r(p.string());
  std::vector<std::string> out;
  while (auto rec = r.next()) out.push_back(*rec);
  if (torn) *torn = r.torn();
  return out;
}

// RFC 3720 (iSCSI), appendix B.4: CRC-32C test vectors.
TEST(Crc32c, MatchesRfc3720Vectors) {
  std::vector<unsigned char> buf(32, 0x00);
  EXPECT_EQ(crc32c(buf.data(), buf.size()), 0x8A9136AAu);
  std::fill(buf.begin(), buf.end(), 0xFF);
  EXPECT_EQ(crc32c(buf.data(), buf.size()), 0x62A8AB43u);
  for (int i = 0; i < 32; ++i) buf[static_cast<std::size_t>(i)] = static_cast<unsigned char>(i);
  EXPECT_EQ(crc32c(buf.data(), buf.size()), 0x46DD794Eu);
  for (int i = 0; i < 32; ++i) buf[static_cast<std::size_t>(i)] = static_cast<unsigned char>(31 - i);
  EXPECT_EQ(crc32c(buf.data(), buf.size()), 0x113FDB5Cu);
  EXPECT_EQ(crc32c("123456789", 9), 0xE3069283u);  // the common check value
  EXPECT_EQ(crc32c("", 0), 0u);
}

TEST(Crc32c, MaskIsTensorFlowsRotateAndOffset) {
  // TensorFlow's crc32c_test.cc: Mask(crc) differs from crc and from
  // Mask(Mask(crc)); its definition rotates right by 15 and adds a constant.
  uint32_t crc = crc32c("foo", 3);
  EXPECT_NE(mask_crc(crc), crc);
  EXPECT_NE(mask_crc(mask_crc(crc)), mask_crc(crc));
  EXPECT_EQ(mask_crc(0), 0xa282ead8u);
  EXPECT_EQ(mask_crc(0x00008000u), 0xa282ead9u);  // bit 15 rotates to bit 0
}

TEST(RecordFraming, LaysOutLengthCrcDataCrcLittleEndian) {
  std::string rec = frame_record("abc");
  ASSERT_EQ(rec.size(), 8u + 4 + 3 + 4);
  EXPECT_EQ(std::string(rec.data(), 8), std::string("\x03\0\0\0\0\0\0\0", 8));
  uint32_t len_crc = 0, data_crc = 0;
  std::memcpy(&len_crc, rec.data() + 8, 4);  // little-endian host (x86, arm64)
  std::memcpy(&data_crc, rec.data() + 15, 4);
  EXPECT_EQ(len_crc, mask_crc(crc32c(rec.data(), 8)));
  EXPECT_EQ(rec.substr(12, 3), "abc");
  EXPECT_EQ(data_crc, mask_crc(crc32c("abc", 3)));
}

TEST(RecordFraming, WriterAndReaderRoundTripIncludingEmptyAndBinaryRecords) {
  fs::path dir = temp_dir("roundtrip");
  std::vector<std::string> records = {"", "x", std::string("\0\xff\x01", 3), std::string(100000, 'z')};
  {
    RecordWriter w((dir / "r.tfrecord").string());
    for (const auto& r : records) w.write(r);
  }  // the destructor flushes and closes
  bool torn = true;
  EXPECT_EQ(read_all(dir / "r.tfrecord", &torn), records);
  EXPECT_FALSE(torn);
  fs::remove_all(dir);
}

TEST(RecordFraming, ReaderStopsCleanlyAtATornLastRecordCutAtEveryByte) {
  fs::path dir = temp_dir("torn");
  fs::path full = dir / "full.tfrecord";
  std::vector<std::string> records = {"first", "second record", std::string(40, 'q')};
  {
    RecordWriter w(full.string());
    for (const auto& r : records) w.write(r);
  }
  std::string bytes = read_bytes(full);
  std::size_t last_start = bytes.size() - (16 + records.back().size());
  std::vector<std::string> before(records.begin(), records.end() - 1);
  fs::path cut = dir / "cut.tfrecord";
  for (std::size_t n = last_start; n < bytes.size(); ++n) {
    write_bytes(cut, std::string_view(bytes).substr(0, n));
    bool torn = false;
    EXPECT_EQ(read_all(cut, &torn), before) << "cut at byte " << n;
    EXPECT_EQ(torn, n > last_start) << "cut at byte " << n;
  }
  fs::remove_all(dir);
}

TEST(RecordFraming, ACorruptCompleteRecordIsAnErrorNamingFileAndOffset) {
  fs::path dir = temp_dir("corrupt");
  fs::path p = dir / "c.tfrecord";
  {
    RecordWriter w(p.string());
    w.write("good");
    w.write("flipped");
  }
  std::string bytes = read_bytes(p);
  bytes[20 + 12 + 2] ^= 0x01;  // a data byte of the second record (the first takes 20 bytes)
  write_bytes(p, bytes);
  RecordReader r(p.string());
  EXPECT_EQ(r.next(), std::optional<std::string>("good"));
  try {
    r.next();
    FAIL() << "a flipped data byte was not detected";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("at byte 20"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(p.string()), std::string::npos) << e.what();
  }
  fs::remove_all(dir);
}

TEST(RecordFraming, OpeningAMissingFileNamesIt) {
  EXPECT_THROW(
      {
        try {
          RecordReader r("/nonexistent/dir/events.out.tfevents.x");
        } catch (const Error& e) {
          EXPECT_NE(std::string(e.what()).find("/nonexistent/dir/events.out.tfevents.x"), std::string::npos);
          throw;
        }
      },
      Error);
}

}  // namespace
}  // namespace nabla::summary

// TFRecord files, the framing of TensorBoard's event files: each record is
//   uint64 length (little-endian), uint32 masked CRC-32C of those 8 bytes,
//   `length` bytes of data, uint32 masked CRC-32C of the data.
// RecordWriter appends whole records to a file; RecordReader reads them back
// and stops cleanly at a torn last record (a writer killed mid-write).
#pragma once
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

namespace nabla::summary {

// One framed record as bytes (header, data, footer).
std::string frame_record(std::string_view data);

class RecordWriter {
 public:
  // Creates `path` (or appends to it if it exists). Throws nabla::Error
  // naming the path if it cannot be opened.
  explicit RecordWriter(const std::string& path);
  ~RecordWriter();
  RecordWriter(const RecordWriter&) = delete;
  RecordWriter& operator=(const RecordWriter&) = delete;

  // Buffers one record; it reaches the file, whole, at the latest on flush().
  void write(std::string_view data);
  // Hands buffered records to the operating system (fflush).
  void flush();
  // Flushes and closes; later writes throw. Called by the destructor.
  void close();
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
};

class RecordReader {
 public:
  // Opens `path` for reading; throws nabla::Error naming it if it cannot.
  explicit RecordReader(const std::string& path);
  ~RecordReader();
  RecordReader(const RecordReader&) = delete;
  RecordReader& operator=(const RecordReader&) = delete;

  // The next record's data, or nothing at the end of the file. A record cut
  // short (the file ends inside it) also ends reading: torn() then says so
  // and offset() is where that record began. A complete record whose CRC does
  // not match throws nabla::Error naming the file and offset (corruption, not
  // a torn write).
  std::optional<std::string> next();
  bool torn() const { return torn_; }
  // Byte offset of the next record to read.
  uint64_t offset() const { return offset_; }

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
  uint64_t offset_ = 0;
  bool torn_ = false;
};

}  // namespace nabla::summary

// CSV files of numbers -> a 2-D tensor [rows, columns].
//
//   Tensor t = data::read_csv("iris.csv", {.header = true});             // float32
//   std::vector<std::string> names;
//   Tensor d = data::read_csv("x.csv", {.delimiter = ';', .dtype = kFloat64}, &names);
//
// Fields are numbers in one strict grammar, [+|-](digits[.[digits]]|.digits)
// [(e|E)[+|-]digits] or [+|-](inf|infinity|nan) in any case ("1", "-2.5e3",
// "+4", "nan", "-Infinity"; not "+-5" or "nan(1)"), optionally wrapped in
// double quotes and surrounded by spaces or tabs. Lines end with "\n" or
// "\r\n"; blank lines are skipped. Every row must have as many fields as the
// first; a field that is not a number or a ragged row raise nabla::Error with
// the file, line and column. With header = true the first line holds the
// column names.
#pragma once
#include <string>
#include <vector>

#include "nabla/core/tensor.h"

namespace nabla::data {

struct CsvOptions {
  bool header = false;  // the first line names the columns
  char delimiter = ',';
  DType dtype = kFloat32;  // kFloat32 or kFloat64
};

Tensor read_csv(const std::string& path, const CsvOptions& options = {},
                std::vector<std::string>* column_names = nullptr);

}  // namespace nabla::data

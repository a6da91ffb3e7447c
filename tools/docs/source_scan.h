// Reads nabla's own sources for the op reference (docs/ops.md): the public
// declarations of the op headers and of class Tensor, with the comment above
// each, and which table ops each function defined in nabla/{ops,core}/*.cpp runs.
// The sources follow a regular style (one declaration per statement, a
// comment block right above it, definitions at namespace scope), which is all
// this relies on: no C++ parser, only comments, strings and braces are
// understood.
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

namespace nabla::docs {

// One public declaration: a free function of an op header or a method of Tensor.
struct Declaration {
  std::string header;   // "nabla/ops/elementwise.h"
  std::string name;     // "exp", "operator+", "Tensor::exp"
  std::string key;      // name and parameter types, telling overloads apart: "exp(const Tensor&)"
  std::string text;     // the declaration on one line, without ';' or body ("Tensor exp(const Tensor& x)")
  std::string comment;  // the comment right above (or at the end of) the declaration, on one line
  int line = 0;
};

// The declarations of one header: free functions in namespace nabla (not in
// nested namespaces), and with `methods_of` set, the methods of that class
// (named "Class::method"; constructors, operators= and private members are left out).
std::vector<Declaration> scan_header(const std::string& text, const std::string& header,
                                     const std::string& methods_of = "");

// The first comment block of a header (its description), on one line.
std::string header_summary(const std::string& text);

// What a function defined in a .cpp file refers to.
struct Definition {
  std::set<std::string> ops;    // OpDef variables it names (add_op, ...)
  std::set<std::string> calls;  // free functions it calls ("exp"), methods ("Tensor::exp")
};

// Function definitions at namespace scope of a .cpp file, keyed like
// Declaration::key ("exp(const Tensor&)"; methods "Class::method(...)"), and
// the OpDef variables it defines with their table names (variable -> "name").
struct SourceFile {
  std::map<std::string, Definition> functions;
  std::map<std::string, std::string> op_variables;
};
SourceFile scan_source(const std::string& text);

// The text with comments and the contents of string and character literals
// replaced by spaces (line breaks kept); exposed for tests.
std::string blank_comments_and_strings(const std::string& text);

}  // namespace nabla::docs

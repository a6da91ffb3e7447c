// Turns the ```cpp blocks of one markdown file into a C++ translation unit
// that the build compiles (never runs), so that a snippet in README.md or
// docs/*.md that stops compiling fails the build. The conventions are in
// docs/docs.md:
//
//   - #include lines go to the top of the file.
//   - A block that defines functions (`int main()`, any function
//     definition), templates or namespaces is compiled at namespace scope, in
//     namespace doc_snippets (shared by the file's blocks of that kind).
//   - Every other block is a fragment: the fragments of one file are compiled
//     in order in one function, each opening a scope that stays open to the
//     end, so a block sees what earlier blocks declared and may declare a
//     name again.
//   - `<!-- snippet-setup: CODE -->` on the line(s) right above a block adds
//     CODE in front of it (what the prose says but the block does not show).
//   - A block whose info string is `cpp nocompile` is left out and counted.
//
// Usage: nabla_doc_snippets_extract <source dir> <markdown path relative to it> <output .cpp>
// Prints "<path>: N blocks compiled, M nocompile".
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Block {
  int first_line = 0;  // 1-based line of the first code line in the markdown file
  std::vector<std::string> lines;
  int setup_line = 0;
  std::string setup;
  bool nocompile = false;
};

std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

std::vector<Block> cpp_blocks(const std::vector<std::string>& md) {
  static const std::regex fence(R"(^(\s*)(```+|~~~+)\s*([^\s`]*)\s*(.*)$)");
  static const std::regex setup_one(R"(^\s*<!--\s*snippet-setup:(.*)-->\s*$)");
  std::vector<Block> blocks;
  for (std::size_t i = 0; i < md.size(); ++i) {
    std::smatch m;
    if (!std::regex_match(md[i], m, fence)) continue;
    const std::string marker = m[2], lang = m[3], rest = m[4];
    // CommonMark: a closing fence is the same character, at least as long, and nothing after it.
    auto closes = [&](const std::string& l) {
      std::size_t p = l.find_first_not_of(' ');
      if (p == std::string::npos || l.compare(p, marker.size(), marker) != 0) return false;
      std::size_t q = l.find_first_not_of(marker[0], p);
      return q == std::string::npos || l.find_first_not_of(" \t", q) == std::string::npos;
    };
    std::size_t end = i + 1;
    while (end < md.size() && !closes(md[end])) ++end;
    if (lang == "cpp" || lang == "c++") {
      Block b;
      b.first_line = static_cast<int>(i) + 2;
      b.lines.assign(md.begin() + static_cast<long>(i) + 1, md.begin() + static_cast<long>(end));
      b.nocompile = rest.find("nocompile") != std::string::npos;
      // A setup comment right above the fence (one line, or several ending in -->).
      if (i > 0) {
        std::smatch s;
        if (std::regex_match(md[i - 1], s, setup_one)) {
          b.setup = s[1];
          b.setup_line = static_cast<int>(i);
        } else if (md[i - 1].find("-->") != std::string::npos) {
          std::size_t k = i - 1;
          while (k > 0 && md[k].find("<!--") == std::string::npos) --k;
          std::string text;
          for (std::size_t j = k; j < i; ++j) text += md[j] + "\n";
          std::size_t tag = text.find("snippet-setup:");
          if (tag != std::string::npos && text.find("<!--") < tag) {
            b.setup = text.substr(tag + 14, text.rfind("-->") - tag - 14);
            b.setup_line = static_cast<int>(k) + 1;
          }
        }
      }
      blocks.push_back(b);
    }
    i = end;
  }
  return blocks;
}

// Whether the code at namespace scope defines a function: a head
// "type name(...)" at column 0 whose parameter list is followed by '{' (or
// try, const, ...) before any ';'.
bool defines_functions(const std::vector<std::string>& lines) {
  static const std::regex file_level(R"(^(int main\s*\(|namespace\s+\w+\s*\{)|\btemplate\s*<)");
  static const std::regex head(R"(^[A-Za-z_][\w:<>,*&\s]*[\s*&]((operator\S+)|[A-Za-z_][\w:]*)\s*\()");
  static const std::regex keyword(R"(^(return|if|for|while|switch|do|else|case|using|typedef|delete|new|throw)\b)");
  std::string text;
  std::vector<std::size_t> starts;
  for (const std::string& l : lines) {
    starts.push_back(text.size());
    text += l + "\n";
  }
  for (std::size_t k = 0; k < lines.size(); ++k) {
    const std::string& l = lines[k];
    std::smatch m;
    if (std::regex_search(l, m, file_level)) return true;
    if (std::regex_search(l, keyword) || !std::regex_search(l, m, head)) continue;
    if (l.substr(0, static_cast<std::size_t>(m.length(0))).find('=') != std::string::npos) continue;
    // From the '(' of the parameters: the first ';' or '{' outside parentheses decides.
    int depth = 0;
    for (std::size_t p = starts[k] + static_cast<std::size_t>(m.length(0)) - 1; p < text.size(); ++p) {
      char c = text[p];
      if (c == '"') {
        p = text.find('"', p + 1);
        if (p == std::string::npos) break;
        continue;
      }
      if (c == '(') ++depth;
      if (c == ')') --depth;
      if (depth == 0 && c == ';') break;
      if (depth == 0 && c == '{') return true;
    }
  }
  return false;
}

std::string quoted(const std::string& path) { return "\"" + path + "\""; }

}  // namespace

int main(int argc, char** argv) try {
  if (argc != 4) {
    std::cerr << "usage: nabla_doc_snippets_extract <source dir> <markdown file relative to it> <output .cpp>\n";
    return 2;
  }
  const std::string root = argv[1], rel = argv[2], out_path = argv[3];
  const std::vector<Block> blocks = cpp_blocks(read_lines(root + "/" + rel));
  static const std::regex include(R"(^\s*#\s*include\b)");

  std::ostringstream includes, file_scope, fragments;
  int compiled = 0, nocompile = 0, open_scopes = 0;
  for (const Block& b : blocks) {
    if (b.nocompile) {
      ++nocompile;
      continue;
    }
    ++compiled;
    // The setup's lines (all at the comment's line), then the block's.
    std::vector<std::string> lines, code;
    std::vector<int> lines_at, line_of;
    std::istringstream setup(b.setup);
    for (std::string l; std::getline(setup, l);) {
      lines.push_back(l);
      lines_at.push_back(b.setup_line);
    }
    for (std::size_t k = 0; k < b.lines.size(); ++k) {
      lines.push_back(b.lines[k]);
      lines_at.push_back(b.first_line + static_cast<int>(k));
    }
    for (std::size_t k = 0; k < lines.size(); ++k) {
      if (std::regex_search(lines[k], include)) {
        includes << "#line " << lines_at[k] << " " << quoted(rel) << "\n" << lines[k] << "\n";
        continue;
      }
      code.push_back(lines[k]);
      line_of.push_back(lines_at[k]);
    }
    bool file_level = defines_functions(code);
    std::ostringstream& out = file_level ? file_scope : fragments;
    if (file_level)
      out << "namespace doc_snippets {\n";
    else
      out << "{\n", ++open_scopes;
    out << "#line " << (line_of.empty() ? b.first_line : line_of[0]) << " " << quoted(rel) << "\n";
    for (std::size_t k = 0; k < code.size(); ++k) {
      if (k > 0 && line_of[k] != line_of[k - 1] + 1 && line_of[k] != line_of[k - 1])
        out << "#line " << line_of[k] << " " << quoted(rel) << "\n";
      out << code[k] << "\n";
    }
    if (file_level) out << "}  // namespace doc_snippets\n";
  }

  std::ostringstream tu;
  tu << "// Generated from " << rel << " by nabla_doc_snippets_extract (tools/docs/extract_snippets.cpp):\n"
     << "// its ```cpp blocks, compiled and never run. See docs/docs.md.\n";
  if (compiled > 0) {
    tu << "#include \"nabla/nabla.h\"\n" << includes.str() << file_scope.str();
    if (open_scopes > 0) {
      tu << "[[maybe_unused]] static void doc_fragments() {\n" << fragments.str();
      for (int k = 0; k < open_scopes; ++k) tu << "}";
      tu << "\n}\n";
    }
  }
  const std::string text = tu.str();
  std::ifstream old(out_path);
  std::ostringstream old_text;
  old_text << old.rdbuf();
  if (!old || old_text.str() != text) std::ofstream(out_path) << text;  // unchanged: no rebuild
  std::cout << rel << ": " << compiled << " blocks compiled, " << nocompile << " nocompile\n";
  return 0;
} catch (const std::exception& e) {
  std::cerr << "nabla_doc_snippets_extract: " << e.what() << "\n";
  return 1;
}

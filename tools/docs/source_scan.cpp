#include "source_scan.h"

#include <algorithm>
#include <cctype>
#include <regex>
#include <sstream>

namespace nabla::docs {
namespace {

std::string blank(const std::string& text, bool strings);

std::string collapse_spaces(const std::string& s) {
  std::string out;
  bool space = false;
  for (char c : s) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The function a statement head declares ("Tensor exp(const Tensor& x)"): its
// name and where the name starts, or an empty name when the head is no
// function (a variable, a type, a using-declaration).
struct Head {
  std::string name;
  std::size_t name_pos = 0;
};
Head function_head(const std::string& head) {
  static const char* kNotFunctions[] = {"using ", "typedef ",      "struct ",    "class ",       "enum ", "friend ",
                                        "union ", "static_assert", "namespace ", "extern \"C\"", "#"};
  std::string h = head;
  if (starts_with(h, "template <")) {  // what follows the template parameters decides
    int depth = 0;
    std::size_t k = 9;
    for (; k < h.size(); ++k) {
      if (h[k] == '<') ++depth;
      if (h[k] == '>' && --depth == 0) break;
    }
    h = h.substr(std::min(k + 1, h.size()));
    h.erase(0, h.find_first_not_of(' '));
  }
  for (const char* p : kNotFunctions)
    if (starts_with(h, p)) return {};
  // A deleted overload is no API (var(x, dims, 2) is deleted so that it does
  // not compile into unbiased = true); its requires-clause would read as a
  // function named "requires".
  if (head.find("= delete") != std::string::npos) return {};
  std::size_t op = head.find("operator");
  std::size_t paren = head.find('(');
  if (paren == std::string::npos) return {};
  if (op != std::string::npos && op < paren &&
      (op == 0 || !(std::isalnum(static_cast<unsigned char>(head[op - 1])) || head[op - 1] == '_'))) {
    // operator+, operator==, operator(), operator[]: the name runs to the '(' of the parameters.
    std::size_t end = head.compare(op, 10, "operator()") == 0 ? op + 10 : paren;
    std::size_t start = op;
    while (start >= 2 && head.compare(start - 2, 2, "::") == 0) {  // Tensor::operator+=
      std::size_t s = start - 2;
      while (s > 0 && (std::isalnum(static_cast<unsigned char>(head[s - 1])) || head[s - 1] == '_')) --s;
      start = s;
    }
    std::string name = head.substr(start, end - start);
    name.erase(std::remove(name.begin(), name.end(), ' '), name.end());
    if (name.find("operator=") != std::string::npos && name.find("operator==") == std::string::npos) return {};
    return {name, start};
  }
  std::string before = head.substr(0, paren);
  if (before.find('=') != std::string::npos) return {};  // a variable initialized by a call
  std::size_t end = before.find_last_not_of(' ');
  if (end == std::string::npos) return {};
  std::size_t start = end + 1;
  while (start > 0 && (std::isalnum(static_cast<unsigned char>(before[start - 1])) || before[start - 1] == '_' ||
                       before[start - 1] == ':' || before[start - 1] == '~'))
    --start;
  std::string name = before.substr(start, end + 1 - start);
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return {};
  static const std::set<std::string> kKeywords = {"if",     "for",      "while",   "switch",      "return",
                                                  "sizeof", "decltype", "alignas", "static_cast", "catch"};
  if (kKeywords.count(name)) return {};
  // A type's name before '(' with nothing in front is a constructor call or a macro use, not a declaration.
  if (start == 0) return {};
  return {name, start};
}

// The parameter types of a function head, without names and defaults:
// "const Tensor&,IntList,bool" (the key that tells overloads apart).
std::string param_types(const std::string& head, const Head& fn) {
  std::size_t open = head.find('(', fn.name_pos + fn.name.size() - (fn.name == "operator()" ? 0 : 0));
  if (fn.name.size() >= 10 && fn.name.compare(fn.name.size() - 10, 10, "operator()") == 0)
    open = head.find('(', head.find("operator()") + 10);
  if (open == std::string::npos) return "";
  std::vector<std::string> params;
  std::string cur;
  int depth = 0;
  for (std::size_t i = open + 1; i < head.size(); ++i) {
    char c = head[i];
    if (c == '(' || c == '<' || c == '{' || c == '[') ++depth;
    if (c == ')' || c == '>' || c == '}' || c == ']') {
      if (depth == 0) {
        params.push_back(cur);
        break;
      }
      --depth;
    }
    if (c == ',' && depth == 0) {
      params.push_back(cur);
      cur.clear();
      continue;
    }
    cur += c;
  }
  std::vector<std::string> types;
  for (std::string p : params) {
    std::size_t eq = p.find('=');
    if (eq != std::string::npos) p = p.substr(0, eq);
    p = collapse_spaces(p);
    std::size_t end = p.size();
    std::size_t start = end;
    while (start > 0 && (std::isalnum(static_cast<unsigned char>(p[start - 1])) || p[start - 1] == '_')) --start;
    if (start > 0 && start < end && (p[start - 1] == ' ' || p[start - 1] == '&' || p[start - 1] == '*'))
      p = p.substr(0, start);
    std::string t;
    for (char c : p)
      if (c != ' ' || (!t.empty() && t.back() != '&' && t.back() != '*')) t += c;
    while (!t.empty() && t.back() == ' ') t.pop_back();
    std::string u;  // no space before & and *
    for (char c : t) {
      if ((c == '&' || c == '*') && !u.empty() && u.back() == ' ') u.pop_back();
      u += c;
    }
    if (!u.empty() && u != "void") types.push_back(u);
  }
  std::string out;
  for (const std::string& t : types) out += (out.empty() ? "" : ",") + t;
  return out;
}

// The comment lines right above line `first` (0-based) and a comment at the
// end of line `last`, joined on one line. Separator lines ("// ---- x ----")
// are left out.
std::string comment_for(const std::vector<std::string>& lines, int first, int last) {
  std::vector<std::string> above;
  for (int i = first - 1; i >= 0; --i) {
    std::string t = lines[i];
    t.erase(0, t.find_first_not_of(" \t"));
    if (!starts_with(t, "//")) break;
    t.erase(0, 2);
    t.erase(0, t.find_first_not_of(' '));
    if (starts_with(t, "---")) break;
    above.insert(above.begin(), t);
  }
  std::string out;
  for (const std::string& t : above) out += (out.empty() ? "" : " ") + t;
  if (last >= 0 && last < static_cast<int>(lines.size())) {
    std::size_t c = lines[last].find("//");
    if (c != std::string::npos) {
      std::string t = lines[last].substr(c + 2);
      t.erase(0, t.find_first_not_of(' '));
      if (!t.empty()) out += (out.empty() ? "" : " ") + t;
    }
  }
  return collapse_spaces(out);
}

bool mentions(const std::string& comment, const std::string& name) {
  std::regex word("(^|[^A-Za-z0-9_])" +
                  std::regex_replace(name, std::regex(R"([\[\]\(\)\+\*\.\|\^\$\?\\])"), R"(\$&)") +
                  "($|[^A-Za-z0-9_])");
  return std::regex_search(comment, word);
}

// Walks a source text statement by statement at the scopes that hold
// declarations: namespaces (and, for headers, one class). Calls
// on_statement(head, first_line, last_line, body) for each statement: `head`
// is the code before ';' or before a function body (whitespace collapsed),
// `body` the function body (with any catch blocks of a function-try-block),
// empty for declarations.
// Headers (`methods_of` set or `header`) only collect namespace nabla's own
// scope: nested namespaces (detail, autograd) hold no public API.
// `shown` is the same text with only the comments blanked: what a head shows.
template <class OnStatement>
void walk(const std::string& blank, const std::string& shown, const std::string& methods_of, bool header,
          OnStatement&& on_statement) {
  enum Kind { kNamespace, kCollectClass, kOther };
  std::vector<Kind> scopes;
  std::string stmt, stmt_shown;
  int stmt_line = -1, line = 0, stmt_depth = 0;
  bool private_section = false;
  auto collecting = [&] {
    for (Kind k : scopes)
      if (k == kOther) return false;
    return true;
  };
  auto in_class = [&] { return !scopes.empty() && scopes.back() == kCollectClass; };
  auto reset = [&] {
    stmt.clear();
    stmt_shown.clear();
    stmt_line = -1;
  };
  const std::size_t n = blank.size();
  for (std::size_t i = 0; i < n; ++i) {
    char c = blank[i];
    if (c == '\n') ++line;
    // Preprocessor lines are no statements.
    if (c == '#' && stmt_depth == 0 && collapse_spaces(stmt).empty()) {
      while (i < n && blank[i] != '\n') ++i;
      ++line;
      continue;
    }
    if (!collecting()) {
      if (c == '{') scopes.push_back(kOther);
      if (c == '}') scopes.pop_back();
      continue;
    }
    if (stmt_depth > 0) {  // inside braces that belong to the statement (an initializer, a struct body)
      stmt += c;
      stmt_shown += shown[i];
      if (c == '{') ++stmt_depth;
      if (c == '}') --stmt_depth;
      continue;
    }
    if (stmt_line < 0 && !std::isspace(static_cast<unsigned char>(c))) stmt_line = line;
    if (c == ';') {
      std::string head = collapse_spaces(stmt);
      if (!(in_class() && private_section))
        on_statement(head, collapse_spaces(stmt_shown), stmt_line, line, std::string(), in_class());
      reset();
      continue;
    }
    if (c == '}') {  // end of a namespace or of the class
      if (!scopes.empty()) scopes.pop_back();
      private_section = false;
      reset();
      continue;
    }
    if (c == ':' && in_class() && (i + 1 >= n || blank[i + 1] != ':') && (i == 0 || blank[i - 1] != ':')) {
      std::string h = collapse_spaces(stmt);
      if (h == "public" || h == "private" || h == "protected") {
        private_section = h != "public";
        reset();
        continue;
      }
    }
    if (c == '{' && std::count(stmt.begin(), stmt.end(), '(') > std::count(stmt.begin(), stmt.end(), ')')) {
      stmt += c;  // a brace inside parentheses: a default argument ("IntList dims = {}") or a lambda argument
      stmt_shown += shown[i];
      stmt_depth = 1;
      continue;
    }
    if (c == '{') {
      std::string head = collapse_spaces(stmt);
      static const std::regex ns(R"(^(inline )?namespace( [\w:]+)?$)");
      static const std::regex cls(R"(^(class|struct) (\w+)( final)?( : [^(){}]*)?$)");
      std::smatch m;
      if (std::regex_match(head, ns) || head == "extern \"C\"") {
        bool nested = header && head != "namespace nabla";
        scopes.push_back(nested ? kOther : kNamespace);
        reset();
        continue;
      }
      if (!methods_of.empty() && std::regex_match(head, m, cls) && m[2] == methods_of) {
        scopes.push_back(kCollectClass);
        private_section = m[1] == "class";
        reset();
        continue;
      }
      Head fn = function_head(head);
      // "Tensor f(...) try {" and "Tensor f(...) : init(...) {" are functions too.
      if (fn.name.empty()) {
        stmt += c;
        stmt_shown += shown[i];
        stmt_depth = 1;
        continue;
      }
      // A function body: to the matching brace, then any catch blocks.
      std::size_t body_start = i;
      auto skip_braces = [&](std::size_t& k) {
        int depth = 0;
        for (; k < n; ++k) {
          if (blank[k] == '\n') ++line;
          if (blank[k] == '{') ++depth;
          if (blank[k] == '}' && --depth == 0) return;
        }
      };
      skip_braces(i);
      for (;;) {
        std::size_t k = i + 1;
        while (k < n && std::isspace(static_cast<unsigned char>(blank[k]))) ++k;
        if (blank.compare(k, 5, "catch") != 0) break;
        int extra_lines = 0;
        for (std::size_t t = i + 1; t < k; ++t) extra_lines += blank[t] == '\n';
        line += extra_lines;
        i = blank.find('{', k);
        if (i == std::string::npos) return;
        skip_braces(i);
      }
      std::string body = blank.substr(body_start, i + 1 - body_start);
      if (!(in_class() && private_section))
        on_statement(head, collapse_spaces(stmt_shown), stmt_line, line, body, in_class());
      reset();
      continue;
    }
    stmt += c;
    stmt_shown += shown[i];
  }
}

}  // namespace

std::string blank_comments_and_strings(const std::string& text) { return blank(text, true); }

namespace {
std::string blank(const std::string& text, bool strings) {
  std::string out = text;
  const std::size_t n = text.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (text.compare(i, 2, "//") == 0) {
      while (i < n && text[i] != '\n') out[i++] = ' ';
      --i;
    } else if (text.compare(i, 2, "/*") == 0) {
      std::size_t end = text.find("*/", i + 2);
      end = end == std::string::npos ? n : end + 2;
      for (; i < end; ++i)
        if (text[i] != '\n') out[i] = ' ';
      --i;
    } else if (text.compare(i, 2, "R\"") == 0 && (i == 0 || !std::isalnum(static_cast<unsigned char>(text[i - 1])))) {
      std::size_t open = text.find('(', i);
      std::string close = ")" + text.substr(i + 2, open - i - 2) + "\"";
      std::size_t end = text.find(close, open);
      end = end == std::string::npos ? n : end + close.size();
      for (std::size_t k = open + 1; strings && k + close.size() < end; ++k)
        if (text[k] != '\n') out[k] = ' ';
      i = end - 1;
    } else if (text[i] == '"' ||
               (text[i] == '\'' && !(i > 0 && std::isxdigit(static_cast<unsigned char>(text[i - 1]))))) {
      // A string or character literal (a ' between digits is a digit separator).
      char quote = text[i];
      std::size_t k = i + 1;
      for (; k < n && text[k] != quote && text[k] != '\n'; ++k) {
        if (text[k] == '\\' && strings) out[k] = ' ';
        if (text[k] == '\\') ++k;
        if (k < n && strings) out[k] = ' ';
      }
      i = k;
    }
  }
  return out;
}
}  // namespace

std::string header_summary(const std::string& text) {
  std::string out;
  for (const std::string& l : split_lines(text)) {
    if (!starts_with(l, "//")) break;
    std::string t = l.substr(2);
    t.erase(0, t.find_first_not_of(' '));
    if (t.empty()) break;  // the first paragraph only
    out += (out.empty() ? "" : " ") + t;
  }
  return out;
}

std::vector<Declaration> scan_header(const std::string& text, const std::string& header,
                                     const std::string& methods_of) {
  const std::vector<std::string> lines = split_lines(text);
  std::vector<Declaration> decls;
  int run_end = -2;         // last line of the previous declaration
  std::string run_comment;  // the comment of the declaration that began the run
  walk(blank(text, true), blank(text, false), methods_of, true,
       [&](const std::string& head, const std::string& shown, int first, int last, const std::string& body,
           bool member) {
         Head fn = function_head(head);
         bool adjacent = first == run_end + 1;
         run_end = last;
         if (fn.name.empty()) {
           run_comment.clear();
           return;
         }
         // Method or free function: the walker reports class members with their bare name.
         if (member && (fn.name == methods_of || fn.name == "~" + methods_of)) return;  // constructors
         if (!member && fn.name.find("::") != std::string::npos) return;  // out-of-class definitions of members
         Declaration d;
         d.header = header;
         d.line = first + 1;
         std::string text_out = shown;
         if (starts_with(text_out, "inline ")) text_out.erase(0, 7);
         if (member) {
           std::size_t pos = text_out.find(fn.name + (fn.name.rfind("operator", 0) == 0 ? "" : "("));
           Head again = function_head(text_out);
           if (!again.name.empty()) pos = again.name_pos;
           text_out.insert(pos, methods_of + "::");
           d.name = methods_of + "::" + fn.name;
         } else {
           d.name = fn.name;
         }
         d.key = d.name + "(" + param_types(head, fn) + ")";
         d.text = text_out;
         d.comment = comment_for(lines, first, body.empty() ? last : first);
         if (!d.comment.empty()) {
           run_comment = d.comment;
         } else if (adjacent && mentions(run_comment, fn.name)) {
           d.comment = run_comment;  // "max/min of all elements, ..." above max, min, max, min
         } else if (!adjacent) {
           run_comment.clear();
         }
         decls.push_back(d);
       });
  return decls;
}

SourceFile scan_source(const std::string& text) {
  SourceFile file;
  const std::string blank = blank_comments_and_strings(text);
  // OpDef variables: "extern const OpDef exp_op = unary_float_op("exp", ..." or "OpDef add_op{.name = "add", ...".
  static const std::regex opdef(R"re(OpDef\s+(\w+)\s*(=|\{)[^"]*"(\w+)")re");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), opdef); it != std::sregex_iterator(); ++it) {
    // Only definitions in code, not mentions in comments.
    if (blank.compare(it->position(0), 5, "OpDef") == 0) file.op_variables[(*it)[1]] = (*it)[3];
  }
  static const std::regex call(R"((\.|->|::)?\s*(\w+)\s*\()");
  static const std::regex op_ref(R"(\b(\w+_op)\b)");
  walk(blank, blank, "", false,
       [&](const std::string& head, const std::string&, int, int, const std::string& body, bool) {
         if (body.empty()) return;
         Head fn = function_head(head);
         std::string name = fn.name;
         if (starts_with(name, "nabla::")) name.erase(0, 7);
         Definition& d = file.functions[name + "(" + param_types(head, fn) + ")"];
         for (auto it = std::sregex_iterator(body.begin(), body.end(), op_ref); it != std::sregex_iterator(); ++it)
           d.ops.insert((*it)[1]);
         for (auto it = std::sregex_iterator(body.begin(), body.end(), call); it != std::sregex_iterator(); ++it) {
           std::string callee = (*it)[2];
           std::string via = (*it)[1];
           std::size_t at = static_cast<std::size_t>(it->position(0));
           if (via == "." || via == "->") {
             d.calls.insert("Tensor::" + callee);
           } else if (via == "::") {
             // nabla::exp( is the free function; std::max(, cpu::kernel( are not nabla's public functions.
             std::size_t q = at;
             while (q > 0 && (std::isalnum(static_cast<unsigned char>(body[q - 1])) || body[q - 1] == '_')) --q;
             if (body.compare(q, at - q, "nabla") == 0) d.calls.insert(callee);
           } else {
             d.calls.insert(callee);
           }
         }
       });
  return file;
}

}  // namespace nabla::docs

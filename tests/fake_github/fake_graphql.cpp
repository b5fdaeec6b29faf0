#include "tests/fake_github/fake_graphql.h"

#include <cctype>
#include <cmath>
#include <set>

namespace convfail::fake {
namespace {

using Json = nlohmann::json;

// Abstract types of the documents (unions and interfaces): a fragment on them matches any object.
const std::set<std::string> kAbstract = {
    "IssueTimelineItems",      "Node", "Actor", "Closer", "ReferencedSubject", "Assignee",
    "UniformResourceLocatable"};

struct Parser {
  const std::string& s;
  const Json& vars;
  std::size_t i = 0;
  std::map<std::string, Json> defaults;

  void skip() {
    while (i < s.size()) {
      char c = s[i];
      if (std::isspace(static_cast<unsigned char>(c)) || c == ',') {
        ++i;
      } else if (c == '#') {
        while (i < s.size() && s[i] != '\n') ++i;
      } else {
        break;
      }
    }
  }
  [[noreturn]] void fail(const std::string& what) {
    throw GqlError("Parse error on \"" + s.substr(i, 12) + "\" (" + what + ") at offset " +
                   std::to_string(i));
  }
  bool eat(const std::string& p) {
    skip();
    if (s.compare(i, p.size(), p) == 0) {
      i += p.size();
      return true;
    }
    return false;
  }
  void expect(const std::string& p) {
    if (!eat(p)) fail("expected " + p);
  }
  bool peek(char c) {
    skip();
    return i < s.size() && s[i] == c;
  }
  std::string name() {
    skip();
    std::size_t b = i;
    while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_')) ++i;
    if (b == i) fail("expected a name");
    return s.substr(b, i - b);
  }
  void type() {
    if (eat("[")) {
      type();
      expect("]");
    } else {
      name();
    }
    eat("!");
  }
  Json value(bool constant) {
    skip();
    if (eat("$")) {
      if (constant) fail("variable in a constant");
      std::string v = name();
      if (vars.is_object() && vars.contains(v)) return vars[v];
      auto d = defaults.find(v);
      if (d == defaults.end()) throw GqlError("Variable $" + v + " is used but not declared");
      return d->second;
    }
    if (eat("[")) {
      Json a = Json::array();
      while (!eat("]")) a.push_back(value(constant));
      return a;
    }
    if (eat("{")) {
      Json o = Json::object();
      while (!eat("}")) {
        std::string k = name();
        expect(":");
        o[k] = value(constant);
      }
      return o;
    }
    if (peek('"')) {
      ++i;
      std::string out;
      while (i < s.size() && s[i] != '"') {
        if (s[i] == '\\' && i + 1 < s.size()) ++i;
        out += s[i++];
      }
      expect("\"");
      return out;
    }
    if (i < s.size() && (s[i] == '-' || std::isdigit(static_cast<unsigned char>(s[i])))) {
      std::size_t b = i++;
      while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
      return std::stoll(s.substr(b, i - b));
    }
    std::string n = name();
    if (n == "true") return true;
    if (n == "false") return false;
    if (n == "null") return nullptr;
    return n;  // an enum value
  }
  Json args() {
    Json a = Json::object();
    if (!eat("(")) return a;
    while (!eat(")")) {
      std::string k = name();
      expect(":");
      a[k] = value(false);
    }
    return a;
  }
  // Directives: false when @include(if:false) or @skip(if:true) drops the selection.
  bool directives() {
    bool keep = true;
    while (eat("@")) {
      std::string d = name();
      Json a = args();
      bool cond = a.value("if", false) == true;
      if (d == "include" && !cond) keep = false;
      if (d == "skip" && cond) keep = false;
    }
    return keep;
  }
  std::vector<Selection> selection_set() {
    expect("{");
    std::vector<Selection> out;
    while (!eat("}")) {
      if (i >= s.size()) fail("unterminated selection set");
      Selection sel;
      if (eat("...")) {
        if (eat("on ")) {
          sel.kind = Selection::kInline;
          sel.type = name();
          bool keep = directives();
          sel.sub = selection_set();
          if (keep) out.push_back(std::move(sel));
        } else {
          sel.kind = Selection::kSpread;
          sel.name = name();
          if (directives()) out.push_back(std::move(sel));
        }
        continue;
      }
      sel.alias = sel.name = name();
      if (eat(":")) sel.name = name();
      sel.args = args();
      bool keep = directives();
      if (peek('{')) sel.sub = selection_set();
      if (keep) out.push_back(std::move(sel));
    }
    return out;
  }
};

void count(const GqlDocument& doc, const std::vector<Selection>& sels, std::int64_t parents,
           GqlCost* c, int depth) {
  if (depth > 30) throw GqlError("Query is nested too deeply");
  for (const Selection& s : sels) {
    if (s.kind == Selection::kSpread) {
      auto f = doc.fragments.find(s.name);
      if (f == doc.fragments.end())
        throw GqlError("Fragment " + s.name + " was used, but not defined");
      count(doc, f->second.second, parents, c, depth + 1);
      continue;
    }
    if (s.kind == Selection::kInline) {
      count(doc, s.sub, parents, c, depth + 1);
      continue;
    }
    if (s.name == "rateLimit") continue;
    std::int64_t n = parents;
    bool connection = s.args.contains("first") || s.args.contains("last");
    static const std::set<std::string> kConnections = {"issues", "comments", "timelineItems",
                                                       "labels"};
    if (kConnections.count(s.name) && !connection)
      throw GqlError("You must provide a `first` or `last` value to properly paginate the `" +
                     s.name + "` connection.");
    if (connection) {
      const Json& f = s.args.contains("first") ? s.args["first"] : s.args["last"];
      if (!f.is_number_integer() || f.get<std::int64_t>() < 0)
        throw GqlError("`first` on the `" + s.name + "` connection must be a positive integer");
      std::int64_t first = f.get<std::int64_t>();
      if (first > 100)
        throw GqlError("Requesting " + std::to_string(first) + " records on the `" + s.name +
                       "` connection exceeds the `first` limit of 100 records.");
      c->requests += parents;
      n = parents * first;
      c->nodes += n;
      if (c->nodes > 500000)
        throw GqlError("By the time this query traverses to the " + s.name +
                       " connection, it is requesting up to " + std::to_string(c->nodes) +
                       " possible nodes which exceeds the maximum limit of 500,000.");
    }
    count(doc, s.sub, n, c, depth + 1);
  }
}

void merge_into(Json& out, const Json& add) {
  for (auto it = add.begin(); it != add.end(); ++it) {
    auto o = out.find(it.key());
    if (o != out.end() && o->is_object() && it->is_object())
      merge_into(*o, *it);
    else
      out[it.key()] = *it;
  }
}

}  // namespace

GqlDocument parse_graphql(const std::string& text, const Json& variables) {
  GqlDocument doc;
  Parser p{text, variables, 0, {}};
  bool have_op = false;
  // Variable defaults come first in the operation; fragments may be anywhere, so parse twice:
  // fragments are parsed after the operation's variable definitions are known.
  std::vector<std::size_t> fragment_starts;
  std::size_t op_body = std::string::npos;
  while (true) {
    p.skip();
    if (p.i >= text.size()) break;
    if (p.eat("fragment ")) {
      fragment_starts.push_back(p.i);
      p.name();
      p.expect("on ");
      p.name();
      int depth = 0;  // skip the body for now
      p.skip();
      do {
        if (p.i >= text.size()) p.fail("unterminated fragment");
        if (text[p.i] == '{') ++depth;
        if (text[p.i] == '}') --depth;
        ++p.i;
      } while (depth > 0);
      continue;
    }
    if (have_op) p.fail("more than one operation");
    have_op = true;
    if (p.eat("query")) {
      if (!p.peek('(') && !p.peek('{')) doc.operation_name = p.name();
      if (p.eat("(")) {
        while (!p.eat(")")) {
          p.expect("$");
          std::string v = p.name();
          p.expect(":");
          p.type();
          p.defaults[v] = p.eat("=") ? p.value(true) : Json();
        }
      }
      p.directives();
    } else if (p.eat("mutation") || p.eat("subscription")) {
      p.fail("only queries are served");
    }
    p.skip();
    op_body = p.i;
    int depth = 0;
    do {
      if (p.i >= text.size()) p.fail("unterminated operation");
      if (text[p.i] == '{') ++depth;
      if (text[p.i] == '}') --depth;
      ++p.i;
    } while (depth > 0);
  }
  if (!have_op) throw GqlError("No operation in the document");
  for (std::size_t start : fragment_starts) {
    p.i = start;
    std::string name = p.name();
    p.expect("on ");
    std::string type = p.name();
    doc.fragments[name] = {type, p.selection_set()};
  }
  p.i = op_body;
  doc.selections = p.selection_set();
  return doc;
}

std::int64_t GqlCost::cost() const {
  return std::max<std::int64_t>(1, std::llround(static_cast<double>(requests) / 100.0));
}

GqlCost graphql_cost(const GqlDocument& doc) {
  GqlCost c;
  c.requests = 0;
  count(doc, doc.selections, 1, &c, 0);
  return c;
}

Json graphql_execute(const GqlDocument& doc, const Json& object, const std::vector<Selection>& sels,
                     const GqlResolver& resolve) {
  Json out = Json::object();
  std::string type = object.value("__typename", "");
  for (const Selection& s : sels) {
    if (s.kind != Selection::kField) {
      std::string cond = s.type;
      const std::vector<Selection>* sub = &s.sub;
      if (s.kind == Selection::kSpread) {
        auto f = doc.fragments.find(s.name);
        if (f == doc.fragments.end()) throw GqlError("Fragment " + s.name + " is not defined");
        cond = f->second.first;
        sub = &f->second.second;
      }
      if (cond == type || kAbstract.count(cond))
        merge_into(out, graphql_execute(doc, object, *sub, resolve));
      continue;
    }
    if (s.name == "__typename") {
      out[s.alias] = type;
      continue;
    }
    Json v = resolve(object, s);
    if (s.sub.empty() || v.is_null()) {
      out[s.alias] = v;
    } else if (v.is_array()) {
      Json a = Json::array();
      for (const Json& x : v) a.push_back(graphql_execute(doc, x, s.sub, resolve));
      out[s.alias] = a;
    } else {
      Json sub = graphql_execute(doc, v, s.sub, resolve);
      auto o = out.find(s.alias);
      if (o != out.end() && o->is_object())
        merge_into(*o, sub);
      else
        out[s.alias] = sub;
    }
  }
  return out;
}

}  // namespace convfail::fake

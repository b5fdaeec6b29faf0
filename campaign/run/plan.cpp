#include "campaign/run/plan.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "core/error.h"
#include "core/text.h"

namespace convfail::campaign {

std::vector<std::string> normalise_dtypes(const std::vector<std::string>& requested) {
  std::vector<std::string> wanted = {"float32"};
  for (const auto& d : requested) {
    if (d == "all") {
      wanted = all_dtypes();
      continue;
    }
    if (std::find(all_dtypes().begin(), all_dtypes().end(), d) == all_dtypes().end())
      throw UsageError("--dtypes: unknown type '" + terminal_safe(d) +
                       "' (float32 float16 float64 uint8 int8 int16 int32 int64 bool, or all)");
    wanted.push_back(d);
  }
  std::vector<std::string> out;
  for (const auto& d : all_dtypes())
    if (std::find(wanted.begin(), wanted.end(), d) != wanted.end()) out.push_back(d);
  return out;
}

void parse_nodes(const std::string& text, CampaignConfig* c) {
  try {
    std::size_t dash = text.find('-'), colon = text.find(':');
    std::string lo = text.substr(0, std::min(dash, colon));
    c->nodes_min = std::stoi(lo);
    c->nodes_max =
        dash == std::string::npos
            ? c->nodes_min
            : std::stoi(text.substr(
                  dash + 1, colon == std::string::npos ? std::string::npos : colon - dash - 1));
    c->nodes_step = colon == std::string::npos ? 5 : std::stoi(text.substr(colon + 1));
  } catch (const std::exception&) {
    throw UsageError("--nodes: expected MIN-MAX:STEP (e.g. 15-100:5), got '" + text + "'");
  }
  if (c->nodes_min < 1 || c->nodes_max < c->nodes_min || c->nodes_step < 1 || c->nodes_max > 2000)
    throw UsageError("--nodes: expected 1 <= MIN <= MAX <= 2000 and STEP >= 1");
}

std::vector<int> node_counts(const CampaignConfig& c) {
  std::vector<int> out;
  for (int n = c.nodes_min; n <= c.nodes_max; n += c.nodes_step) out.push_back(n);
  return out;
}

namespace {

const std::vector<std::string> kZooLibraries = {"torchvision", "torchaudio", "text"};

std::string zoo_name(const std::string& source) {
  return source.substr(0, source.find(':'));
}

}  // namespace

bool is_zoo_source(const std::string& source) {
  std::string name = zoo_name(source);
  return name == "real" ||
         std::find(kZooLibraries.begin(), kZooLibraries.end(), name) != kZooLibraries.end();
}

std::vector<std::string> zoo_libraries(const std::string& source) {
  if (!is_zoo_source(source)) return {};
  std::string name = zoo_name(source);
  return name == "real" ? kZooLibraries : std::vector<std::string>{name};
}

std::vector<std::string> zoo_libraries(const CampaignConfig& c) {
  std::vector<std::string> out;
  for (const auto& source : c.sources)
    for (const auto& lib : zoo_libraries(source))
      if (std::find(out.begin(), out.end(), lib) == out.end()) out.push_back(lib);
  return out;
}

std::vector<std::string> zoo_subset(const std::string& source) {
  std::vector<std::string> names;
  std::size_t colon = source.find(':');
  if (colon == std::string::npos) return names;
  std::string list = source.substr(colon + 1);
  std::size_t start = 0;
  while (start <= list.size()) {
    std::size_t comma = std::min(list.find(',', start), list.size());
    std::string name = list.substr(start, comma - start);
    bool ok = !name.empty();
    for (char ch : name) ok = ok && (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_');
    if (!ok)
      throw UsageError("--source " + terminal_safe(zoo_name(source)) +
                       ":NAME[,NAME...]: expected architecture names like resnet18, got '" +
                       terminal_safe(name) + "'");
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    start = comma + 1;
  }
  return names;
}

namespace {

// The zoo source's architectures as the worker lists them, the subset's names checked first.
void plan_zoo(const std::string& source, const nlohmann::json& zoo, const CampaignConfig& c,
              std::vector<ModelTask>& plan) {
  auto libs = zoo_libraries(source);
  auto in_source = [&](const nlohmann::json& m) {
    return std::find(libs.begin(), libs.end(), m.value("library", "")) != libs.end();
  };
  auto wanted = zoo_subset(source);
  for (const auto& name : wanted) {
    bool known = false;
    for (const auto& m : zoo) known = known || (in_source(m) && m.value("name", "") == name);
    if (!known)
      throw UserError("--source " + terminal_safe(source) + ": no " + zoo_name(source) +
                      " architecture '" + name + "' (plain --source " + zoo_name(source) +
                      " runs every one)");
  }
  for (const auto& lib : libs)
    for (const auto& m : zoo) {
      std::string arch = m.value("name", "");
      if (m.value("library", "") != lib) continue;
      if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), arch) == wanted.end())
        continue;
      ModelTask t;
      t.seq = static_cast<int>(plan.size());
      t.source = lib;
      t.arch = arch;
      t.family = m.value("family", "");
      t.seed = c.seed;
      t.name = lib + ":" + arch;
      plan.push_back(t);
    }
}

}  // namespace

std::vector<ModelTask> make_plan(const CampaignConfig& c, const nlohmann::json& zoo) {
  std::vector<ModelTask> plan;
  std::size_t script = 0;
  for (const auto& source : c.sources) {
    std::size_t first = plan.size();
    if (source == "synthetic") {
      auto counts = node_counts(c);
      for (int i = 0; i < c.models; ++i) {
        ModelTask t;
        t.seq = static_cast<int>(plan.size());
        t.source = "synthetic";
        t.nodes = counts[static_cast<std::size_t>(i) % counts.size()];
        t.seed = c.seed * 1000003 + i;
        t.name = "synthetic-n" + std::to_string(t.nodes) + "-s" + std::to_string(t.seed);
        plan.push_back(t);
      }
    } else if (is_zoo_source(source)) {
      plan_zoo(source, zoo, c, plan);
    } else {
      ModelTask t;
      t.seq = static_cast<int>(plan.size());
      t.source = "script";
      t.script = c.scripts_abs.at(script++);
      t.seed = c.seed;
      t.name = "script:" + std::filesystem::path(t.script).filename().string();
      plan.push_back(t);
    }
    for (std::size_t i = first; i < plan.size(); ++i) {
      plan[i].perturb = c.perturb;
      plan[i].external_data = c.external_data;
    }
  }
  return plan;
}

}  // namespace convfail::campaign
